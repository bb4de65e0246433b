// tritongym.executor.remote: judges each evaluation at one of several `tritongym serve` endpoints
// (docs/serve.md, "The remote executor"). The task goes by its id: the servers judge it with their own task files.
#pragma once

#include <memory>
#include <mutex>

#include "endpoint_pool.hpp"
#include "remote_config.hpp"
#include "tritongym/sdk/executor.hpp"

namespace tritongym::remote {

class RemoteExecutor final : public Executor {
 public:
  RemoteExecutor(RemoteConfig config, std::string token, HostLog* log);

  // Ready once one endpoint answers /v1/health with "ready"; waits up to ready_timeout_seconds for one.
  Status availability() const noexcept override;
  // The ready endpoints: their executor, their workers summed as the parallel slots.
  ExecutorInfo info() const noexcept override;
  // At the least loaded ready endpoint; moved to another on a lost connection, a busy or draining server
  // (429, 503: after its Retry-After) or a server error, within the retry settings; while no endpoint is ready
  // (all dead, busy or starting), it waits for one up to retry.max_busy_wait_seconds. The record says where it
  // was judged and what was retried (record_json's "remote").
  Result<EvaluationResult> evaluate(const EvaluationRequest& request) noexcept override;

 private:
  Result<EvaluationResult> evaluate_at_some_endpoint(const EvaluationRequest& request);
  ExchangeOutcome probe(const EndpointAddress& address) const;
  void log(LogLevel level, const std::string& message) const;

  RemoteConfig config_;
  std::string token_;
  HostLog* log_;
  mutable std::unique_ptr<EndpointPool> pool_;
};

// The request body of POST /v1/evaluations for `request` (task id, code, stage, seeds, timeout, wait).
std::string evaluation_body(const EvaluationRequest& request);

}  // namespace tritongym::remote
