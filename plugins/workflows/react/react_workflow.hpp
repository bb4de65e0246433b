// tritongym.workflow.react: the model chooses tools freely (compile, test, benchmark, profile, docs)
// until it submits or the budget runs out.
#pragma once

#include <string>

#include "tritongym/sdk/config.hpp"
#include "tritongym/sdk/workflow.hpp"

namespace tritongym::workflow_react {

struct ReactConfig {
  std::string system_prompt;           // "" -> the default
  int64_t max_turns = 40;              // the workflow's own cap; the run's budget also applies
  std::optional<double> temperature;
  int64_t max_output_tokens = 16384;
  static constexpr auto fields() {
    return std::make_tuple(field("system_prompt", &ReactConfig::system_prompt), field("max_turns", &ReactConfig::max_turns),
                           field("temperature", &ReactConfig::temperature),
                           field("max_output_tokens", &ReactConfig::max_output_tokens));
  }
};

class ReactWorkflow final : public Workflow {
 public:
  explicit ReactWorkflow(ReactConfig config) : config_(std::move(config)) {}
  Result<WorkflowOutcome> run(EpisodeContext& episode) noexcept override;

 private:
  ReactConfig config_;
};

}  // namespace tritongym::workflow_react
