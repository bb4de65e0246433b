// Registers tritongym.workflow.react.
#include "react_workflow.hpp"
#include "tritongym/sdk/plugin.hpp"

namespace {

using namespace tritongym;

Result<std::unique_ptr<Workflow>> create(const PluginContext& context) {
  auto config = parse_config<workflow_react::ReactConfig>(context.config_json);
  if (!config) return config.status();
  if (config->max_turns < 1) return Status(StatusCode::invalid_config, "max_turns must be at least 1", "/max_turns");
  return std::unique_ptr<Workflow>(std::make_unique<workflow_react::ReactWorkflow>(std::move(config.value())));
}

void register_all(Registrar& registrar) { registrar.add_workflow("tritongym.workflow.react", create); }

}  // namespace

TRITONGYM_PLUGIN(register_all)
