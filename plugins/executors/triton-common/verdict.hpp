// The verdict stage: from the reference worker's comparison of every case to a verdict per shape and a message
// for the model, and the rules for what a candidate's own process may say of itself. No worker, no GPU: pure.
#pragma once

#include <boost/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tritongym/sdk/types.hpp"

namespace tritongym::triton_executor {

// A correctness case as the verdict names it.
struct CaseLabel {
  std::string shape;  // the shape's name (with the dtype when the task has several)
  std::map<std::string, int64_t> dims;
};

struct ShapesJudged {
  std::vector<ShapeOutcome> shapes;  // in the order the cases first name them
  Verdict verdict = Verdict::harness_error;  // passed, wrong_answer, or harness_error when none was compared
  std::string message;
  boost::json::array comparison;  // the entries of the correctness cases
  boost::json::array recheck;     // the entries after them: the timed calls' outputs, in plan order
};

// `compared`: the reference worker's entries (passed, max_abs_error, max_rel_error, first_mismatch or problem),
// the correctness cases first, in `cases` order. A shape passes when every case of it (its seeds, its dtypes
// when the label includes one) passes; the message names the first mismatch of each failing shape.
ShapesJudged judge_shapes(const std::vector<CaseLabel>& cases, const boost::json::array& compared);

// A verdict that the candidate's own process reported (the child's reply, its timing report): only a failure it
// can see for itself. `passed` comes from the reference worker's compare alone, and `not_judged` from the
// interpreter alone, so a candidate that writes its own report gains nothing by it.
Verdict reported_failure(const std::string& name, bool interpreter);

// What a child judged with `sandbox: best_effort` lacked, as a warning of its result ("" when it was confined).
std::string unconfined_warning(const boost::json::object& reply);

// Adds `flags` to `result` and lists them in its message: a result that passed is flagged; any other verdict
// stands. A flagged result fails every score.
void add_flags(EvaluationResult& result, const std::vector<std::string>& flags);

}  // namespace tritongym::triton_executor
