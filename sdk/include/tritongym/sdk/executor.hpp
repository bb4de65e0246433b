// TritonGym SDK: kind `executor`, runs candidate kernels and judges them (docs/writing-an-executor.md).
#pragma once

#include <string>

#include "tritongym/sdk/status.hpp"
#include "tritongym/sdk/types.hpp"

namespace tritongym {

struct ExecutorInfo {
  std::string device;            // "NVIDIA H200", "cpu (Triton interpreter)"
  bool reports_performance = false;  // false: latencies are not comparable performance numbers
  int64_t parallel_slots = 1;    // evaluations it can run at once
};

class Executor {
 public:
  virtual ~Executor() = default;

  // Whether this executor can run here; an unavailable Status explains what is missing.
  virtual Status availability() const noexcept = 0;
  virtual ExecutorInfo info() const noexcept = 0;

  // Judge one candidate. A candidate's failure (compile error, crash, hang) is a Result holding an
  // EvaluationResult with that verdict; a Status error means the harness itself failed.
  // Thread-safe: the host submits from many episodes at once.
  virtual Result<EvaluationResult> evaluate(const EvaluationRequest& request) noexcept = 0;
};

}  // namespace tritongym
