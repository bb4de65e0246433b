#include "verdict.hpp"

#include <algorithm>
#include <sstream>

#include "worker_json.hpp"

namespace tritongym::triton_executor {
namespace {

std::string dims_text(const std::map<std::string, int64_t>& dims) {
  std::string text;
  for (const auto& [name, size] : dims) text += (text.empty() ? "" : ", ") + name + "=" + std::to_string(size);
  return text;
}

}  // namespace

ShapesJudged judge_shapes(const std::vector<CaseLabel>& cases, const boost::json::array& compared) {
  ShapesJudged out;
  std::map<std::string, ShapeOutcome> by_shape;
  std::vector<std::string> order;
  const size_t judged = std::min(cases.size(), compared.size());
  for (size_t i = 0; i < judged; ++i) {
    const auto& entry = compared[i].as_object();
    auto [slot, inserted] = by_shape.try_emplace(cases[i].shape);
    ShapeOutcome& shape = slot->second;
    if (inserted) {
      order.push_back(cases[i].shape);
      shape.shape = cases[i].shape;
      shape.passed = true;
    }
    const bool passed = entry.at("passed").as_bool();
    shape.max_abs_error = std::max(shape.max_abs_error, number_of(entry, "max_abs_error"));
    shape.max_rel_error = std::max(shape.max_rel_error, number_of(entry, "max_rel_error"));
    if (!passed && shape.passed) {
      std::string problem = text_of(entry, "problem");
      shape.first_mismatch =
          "(" + dims_text(cases[i].dims) + ") " + (problem.empty() ? text_of(entry, "first_mismatch") : problem);
    }
    shape.passed = shape.passed && passed;
  }
  const auto split = compared.begin() + static_cast<std::ptrdiff_t>(judged);
  out.comparison = boost::json::array(compared.begin(), split);
  out.recheck = boost::json::array(split, compared.end());

  size_t failing = 0;
  double worst_abs = 0.0;
  std::string details;
  for (const auto& name : order) {
    const ShapeOutcome& shape = by_shape[name];
    out.shapes.push_back(shape);
    worst_abs = std::max(worst_abs, shape.max_abs_error);
    if (!shape.passed) {
      ++failing;
      details += "\n  " + name + " " + shape.first_mismatch;
    }
  }
  out.verdict = order.empty() ? Verdict::harness_error : failing == 0 ? Verdict::passed : Verdict::wrong_answer;
  std::ostringstream message;
  if (order.empty()) {
    message << "the reference worker compared none of the " << cases.size() << " case(s)";
  } else if (failing == 0) {
    message << "passed " << order.size() << " shape(s) x " << cases.size() / order.size()
            << " random input set(s); max abs error " << worst_abs
            << (worst_abs <= 0.01 ? " (within TritonGym's 0.01)" : " (above TritonGym's 0.01)");
  } else {
    message << "wrong answer on " << failing << " of " << order.size() << " shape(s):" << details;
  }
  out.message = message.str();
  return out;
}

Verdict reported_failure(const std::string& name, bool interpreter) {
  auto verdict = verdict_from_name(name);
  if (!verdict || *verdict == Verdict::passed || (*verdict == Verdict::not_judged && !interpreter))
    return Verdict::runtime_error;
  return *verdict;
}

std::string unconfined_warning(const boost::json::object& reply) {
  const auto* record = reply.if_contains("sandbox");
  const auto* confined = record && record->is_object() ? record->as_object().if_contains("confined") : nullptr;
  if (!confined || !confined->is_bool() || confined->as_bool()) return "";
  std::string missing;
  if (const auto* items = record->as_object().if_contains("missing"); items && items->is_array())
    for (const auto& item : items->as_array())
      if (item.is_string()) missing += (missing.empty() ? "" : "; ") + std::string(item.as_string());
  return "[unconfined] the candidate ran without the sandbox's full confinement (sandbox: best_effort): " + missing;
}

void add_flags(EvaluationResult& result, const std::vector<std::string>& flags) {
  if (flags.empty()) return;
  result.flags.insert(result.flags.end(), flags.begin(), flags.end());
  if (result.verdict == Verdict::passed) {
    result.verdict = Verdict::flagged;
    result.message = "flagged: the result is correct on the checks but cannot be trusted as a speedup:";
  }
  for (const auto& flag : flags)
    result.message += (result.verdict == Verdict::flagged ? "\n  - " : "\nalso flagged: ") + flag;
}

}  // namespace tritongym::triton_executor
