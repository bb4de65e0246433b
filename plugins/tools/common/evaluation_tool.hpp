// What the evaluating tools (compile, test, benchmark, profile, submit) share: sending the candidate to the executor
// (the core applies the task's DSL rule to every evaluation: ToolServices::evaluate), and turning the result into
// the short text the model reads and the full JSON record the store keeps. Identical for every workflow.
#pragma once

#include <boost/json.hpp>

#include <sstream>
#include <string>

#include "tritongym/sdk/prompts.hpp"
#include "tritongym/sdk/result_json.hpp"
#include "tritongym/sdk/tool.hpp"
#include "tritongym/sdk/types.hpp"

namespace tritongym::tools {

inline std::string tail_of(const std::string& text, size_t max_chars) {
  if (text.size() <= max_chars) return text;
  return "... (" + std::to_string(text.size() - max_chars) + " characters cut)\n" + text.substr(text.size() - max_chars);
}

// "verdict: message", the static checks' warnings, and the candidate's output when there is some,
// capped at max_chars.
inline std::string evaluation_text(const EvaluationResult& result, size_t max_chars) {
  std::ostringstream text;
  text << verdict_name(result.verdict) << ": " << result.message << "\n";
  if (!result.warnings.empty()) {
    text << "warnings (static checks; they do not change the verdict, but a flagged result scores as a failure):\n";
    for (const auto& warning : result.warnings) text << "  " << warning << "\n";
  }
  if (!result.stderr_text.empty()) text << "stderr:\n" << tail_of(result.stderr_text, max_chars / 2) << "\n";
  if (!result.stdout_text.empty()) text << "stdout:\n" << tail_of(result.stdout_text, max_chars / 4) << "\n";
  return text.str();
}

inline std::string evaluation_record(const EvaluationResult& result) {
  return boost::json::serialize(evaluation_json(result));
}

// The candidate of `arguments_json` judged on the visible shapes; a source the task's DSL refuses comes back as a
// compile_error the model reads (the core's DSL rule).
inline Result<EvaluationResult> evaluate_code(ToolServices& services, const std::string& arguments_json,
                                              EvaluationStage stage, double timeout_s, int64_t seeds_per_shape) {
  EvaluationRequest request;
  request.task = services.task();
  request.source_code = code_argument_of(arguments_json);
  request.stage = stage;
  request.shapes = ShapeSet::visible;
  request.seeds_per_shape = seeds_per_shape;
  request.timeout_s = timeout_s;
  return services.evaluate(request);
}

inline constexpr const char* kCodeSchema =
    R"({"type":"object","properties":{"code":{"type":"string","description":"the complete candidate file: imports, kernels and the entry function"}},"required":["code"],"additionalProperties":false})";

}  // namespace tritongym::tools
