// Registers tritongym.workflow.one-shot.
#include "one_shot_workflow.hpp"
#include "tritongym/sdk/plugin.hpp"

namespace {

using namespace tritongym;

Result<std::unique_ptr<Workflow>> create(const PluginContext& context) {
  auto config = parse_config<workflow_one_shot::OneShotConfig>(context.config_json);
  if (!config) return config.status();
  if (config->max_output_tokens <= 0)
    return Status(StatusCode::invalid_config, "max_output_tokens must be positive", "/max_output_tokens");
  return std::unique_ptr<Workflow>(std::make_unique<workflow_one_shot::OneShotWorkflow>(std::move(config.value())));
}

void register_all(Registrar& registrar) { registrar.add_workflow("tritongym.workflow.one-shot", create); }

}  // namespace

TRITONGYM_PLUGIN(register_all)
