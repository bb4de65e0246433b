#include "judging/dsl_rule.hpp"

namespace tritongym::judging {

EvaluationRequest under_dsl_rule(EvaluationRequest request, const Dsl* dsl) {
  request.required_kernel_frontend = dsl ? dsl->required_kernel_frontend() : std::string();
  return request;
}

Result<EvaluationResult> judge(Executor& executor, const Dsl* dsl, EvaluationRequest request) {
  if (dsl) {
    if (Status rules = dsl->check_source(request.source_code); !rules.is_ok()) {
      EvaluationResult refused;
      refused.verdict = Verdict::compile_error;
      refused.message = rules.message();
      return refused;
    }
  }
  return executor.evaluate(under_dsl_rule(std::move(request), dsl));
}

}  // namespace tritongym::judging
