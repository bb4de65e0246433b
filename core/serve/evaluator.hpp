// What `tritongym serve` judges with: the tasks of the loaded suites and one warm executor. The CLI hands it
// the judging of `tritongym eval` (cli/eval_judging.hpp); tests hand it stand-ins.
#pragma once

#include <boost/json/object.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "tritongym/sdk/status.hpp"
#include "tritongym/sdk/types.hpp"

namespace tritongym::serve {

// One candidate of `POST /v1/evaluations`, its fields checked (docs/serve.md).
struct CandidateRequest {
  std::string task_id;
  std::string code;  // the candidate's Python source
  EvaluationStage stage = EvaluationStage::test;
  int64_t seeds = 3;         // random input sets per shape
  double timeout_s = 120.0;  // how long the candidate may run
};

// A judged candidate.
struct JudgedCandidate {
  boost::json::object result;  // what `tritongym eval --json` prints for it
  std::string verdict;         // verdict_name of its verdict
  double gpu_seconds = 0.0;    // device time it consumed (0 on the interpreter)
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;

  // Starts the executor and returns once it can judge (its workers started). Error: why it cannot run here.
  // Called once, on a thread of its own; nothing below but tasks() is called before it returns.
  virtual Status start() = 0;
  // Evaluations it judges at once (at least 1). After start().
  virtual int64_t workers() const = 0;
  // The executor's plugin id, e.g. "tritongym.executor.triton-cuda". After start().
  virtual std::string executor_id() const = 0;
  // The tasks of the loaded suites; the same list for the evaluator's whole life.
  virtual const std::vector<TaskSpec>& tasks() const = 0;
  // Judges one candidate of `task` (one of tasks()). A candidate that fails, crashes or hangs is a result with
  // that verdict; a Status error means the harness failed. Thread-safe: workers() calls run at once.
  virtual Result<JudgedCandidate> judge(const TaskSpec& task, const CandidateRequest& request) = 0;
  // A candidate that waits in the queue: the executor may prepare its inputs meanwhile (Executor::expect).
  // Thread-safe, returns at once.
  virtual void expect(const TaskSpec& task, const CandidateRequest& request) = 0;
};

}  // namespace tritongym::serve
