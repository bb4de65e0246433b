// The task's DSL rule, the one judging step every path that judges a candidate goes through: the tools (through
// Episode::evaluate), an episode's final score (run_episode) and `tritongym eval`. The DSL's static check first,
// a refusal the model reads; then the executor, told which frontend every kernel that runs must come from
// (docs/candidate-contract.md, "The task's DSL").
#pragma once

#include "tritongym/sdk/dsl.hpp"
#include "tritongym/sdk/executor.hpp"

namespace tritongym::judging {

// `request` as the executor must see it: Dsl::required_kernel_frontend of `dsl` filled in ("" without a DSL).
// Also what Executor::expect is told.
EvaluationRequest under_dsl_rule(EvaluationRequest request, const Dsl* dsl);

// Judges `request.source_code` under the rule of `dsl` (nullptr: the task's DSL has no plugin loaded, no rule).
// A source the DSL refuses is a compile_error whose message is the DSL's reason, and the executor is not called.
Result<EvaluationResult> judge(Executor& executor, const Dsl* dsl, EvaluationRequest request);

}  // namespace tritongym::judging
