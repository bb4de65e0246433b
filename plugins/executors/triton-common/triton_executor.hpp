// The Triton executors: the same machinery runs kernels on a GPU (triton-cuda) or on the CPU
// through Triton's interpreter (triton-interpreter).
//
// Per evaluation: a trusted reference worker makes (and caches) inputs and expected outputs for each
// shape, dtype and secret seed; a candidate worker (a fork server) runs the candidate on those inputs
// in a sandboxed child and saves its outputs; the reference worker compares them. Candidate code never
// shares a process with the reference, the comparison, or the reference's files.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "executor_config.hpp"
#include "tritongym/sdk/context.hpp"
#include "tritongym/sdk/executor.hpp"
#include "worker.hpp"

namespace tritongym::triton_executor {

enum class Target { cuda, interpreter };

class TritonExecutor final : public Executor {
 public:
  // `python_path` is the folder holding the tritongym_worker package (and the native module).
  TritonExecutor(Target target, TritonExecutorConfig config, std::string python, std::string python_path,
                 HostLog* log);
  ~TritonExecutor() override;

  Status availability() const noexcept override;
  ExecutorInfo info() const noexcept override;
  Result<EvaluationResult> evaluate(const EvaluationRequest& request) noexcept override;

 private:
  struct Case {
    std::string key;        // "visible-0/float32/seed-1"
    std::string shape;      // ShapeSpec::name (with the dtype when the task has several)
    std::map<std::string, int64_t> dims;
    std::string dtype;
    int64_t seed = 0;
    std::string inputs;     // path under the reference cache's inputs folder
    std::string expected;   // path under the reference cache's expected folder (the candidate cannot read it)
  };

  std::vector<Case> plan_cases(const EvaluationRequest& request) const;
  // Error, or the reference worker's description of the expected outputs, one entry per case.
  Result<boost::json::array> prepare_references(const TaskSpec& task, const std::vector<Case>& cases);
  Result<boost::json::object> compare(const std::vector<Case>& cases, const std::string& folder, const TaskSpec& task);
  Status ensure_reference_worker() const;  // caller holds reference_mutex_

  Result<std::unique_ptr<Worker>> acquire_worker();
  void release_worker(std::unique_ptr<Worker> worker, bool keep);
  WorkerLaunch launch_for(const std::string& role, int64_t slot) const;

  Target target_;
  TritonExecutorConfig config_;
  std::string python_;
  std::string python_path_;
  HostLog* log_;
  std::string root_;                  // this executor's temporary folder
  std::vector<int64_t> secret_seeds_;

  mutable std::mutex reference_mutex_;  // one request at a time to the reference worker
  mutable std::unique_ptr<Worker> reference_;
  mutable std::optional<Status> availability_;
  std::map<std::string, boost::json::value> prepared_;  // expected-output path -> its description

  std::mutex pool_mutex_;
  std::condition_variable pool_changed_;
  std::vector<std::unique_ptr<Worker>> idle_;
  int64_t running_workers_ = 0;
  int64_t next_slot_ = 0;
  int64_t capacity_ = 1;
};

}  // namespace tritongym::triton_executor
