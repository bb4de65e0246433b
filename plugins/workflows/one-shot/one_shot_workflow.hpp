// tritongym.workflow.one-shot: ask once, score what comes back.
#pragma once

#include <optional>
#include <string>

#include "tritongym/sdk/config.hpp"
#include "tritongym/sdk/workflow.hpp"

namespace tritongym::workflow_one_shot {

struct OneShotConfig {
  std::string system_prompt;  // "" -> kDefaultSystemPrompt
  std::optional<double> temperature;
  int64_t max_output_tokens = 16384;
  static constexpr auto fields() {
    return std::make_tuple(field("system_prompt", &OneShotConfig::system_prompt),
                           field("temperature", &OneShotConfig::temperature),
                           field("max_output_tokens", &OneShotConfig::max_output_tokens));
  }
};

class OneShotWorkflow final : public Workflow {
 public:
  explicit OneShotWorkflow(OneShotConfig config) : config_(std::move(config)) {}
  Result<WorkflowOutcome> run(EpisodeContext& episode) noexcept override;

 private:
  OneShotConfig config_;
};

}  // namespace tritongym::workflow_one_shot
