// `tritongym tasks check`: is a task fit for the benchmark? Its oracle passes every shape, its reference
// and oracle agree (the oracle is judged against the reference), it is not degenerate, and its plain-Triton
// baseline (triton_baseline.py, where the task ships one) passes too.
#pragma once

#include <boost/json/value.hpp>

#include <string>
#include <vector>

#include "tritongym/sdk/executor.hpp"
#include "tritongym/sdk/types.hpp"

namespace tritongym::tasks {

struct TaskCheck {
  std::string task_id;
  bool passed = false;
  std::vector<std::string> problems;  // each a sentence; empty when passed
  std::string oracle_verdict;         // the executor's verdict on the oracle ("" when it was not run)
  std::string triton_baseline_verdict;  // the executor's verdict on triton_baseline.py ("" when there is none)
  size_t shapes_checked = 0;
  double seconds = 0.0;
};

// Degeneracy, from the reference worker's description of the expected outputs (the executor's
// record "expected_outputs": per case its dims and, per output, std, max_abs, constant_axes, digest):
// an output near zero or near constant (within the task's tolerance), constant along an axis, holding
// NaN/Inf, or identical for different random inputs is a problem.
std::vector<std::string> find_degeneracy(const boost::json::value& expected_outputs, const TaskSpec& task);
// The same, of an evaluation of the task's oracle (its record's "expected_outputs"): what `tasks check` and
// `tasks audit` (rule outputs-vary) report.
std::vector<std::string> degenerate_outputs(const EvaluationResult& oracle_result, const TaskSpec& task);

// Runs the checks with `executor` (final-score stage: every shape the executor runs). With `oracle` false (an
// executor that cannot run the task's DSL), only the plain-Triton baseline is judged.
TaskCheck check_task(const TaskSpec& task, Executor& executor, bool oracle = true);

// The evaluation that judges a task's triton_baseline.py: its source as plain Triton (the task's DSL set to
// triton, every kernel required to be @triton.jit), at the test stage on every shape the executor runs
// (the interpreter: the small shapes; a GPU: visible and held-out), two input sets each.
EvaluationRequest triton_baseline_request(const TaskSpec& task);

// The evaluation check_task asks for: the task's oracle at the final score. Also what a sweep tells the
// executor is coming next (Executor::expect), so that the next task's cases are made while this one is checked.
EvaluationRequest oracle_request(const TaskSpec& task);

}  // namespace tritongym::tasks
