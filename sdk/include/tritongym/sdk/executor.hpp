// TritonGym SDK: kind `executor`, runs candidate kernels and judges them (docs/writing-an-executor.md).
#pragma once

#include <string>
#include <vector>

#include "tritongym/sdk/status.hpp"
#include "tritongym/sdk/types.hpp"

namespace tritongym {

struct ExecutorInfo {
  std::string device;            // "NVIDIA H200", "cpu (Triton interpreter)"
  bool reports_performance = false;  // false: latencies are not comparable performance numbers
  int64_t parallel_slots = 1;    // evaluations it can run at once
  // The DSLs (task.yaml's `dsl`) whose kernels it can run; empty: every one. `tasks check` and `tasks audit`
  // skip, and say so, a task in a DSL its executor does not run.
  std::vector<std::string> dsls;
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

  // A request that is coming (a batch's next lines, an episode's final score): the executor may start on what
  // does not depend on the candidate, such as the cases' inputs and expected outputs, while it has nothing
  // else to do. Only the task, stage, shape set and seeds are read; source_code may be empty. A hint: a
  // verdict is the same with or without it, and an executor may ignore it (the default). Thread-safe, and
  // returns at once.
  virtual void expect(const EvaluationRequest& request) noexcept { (void)request; }
};

}  // namespace tritongym
