// Registers tritongym.backend.scripted.
#include <filesystem>

#include "script_file.hpp"
#include "scripted_backend.hpp"
#include "tritongym/sdk/plugin.hpp"

namespace {

using namespace tritongym;
using namespace tritongym::backend_scripted;

Result<std::unique_ptr<ModelBackend>> create(const PluginContext& context) {
  auto config = parse_config<ScriptedConfig>(context.config_json);
  if (!config) return config.status();
  if (!config->script.empty()) {
    std::filesystem::path path(config->script);
    if (path.is_relative()) path = std::filesystem::path(context.project_root) / path;
    auto script = load_script_file(path.string());
    if (!script) return script.status();
    if (config->replies.empty()) config->replies = std::move(script->replies);
    for (auto& [task, replies] : script->per_task) config->per_task.emplace(task, std::move(replies));
  }
  if (config->order != "conversation" && config->order != "sequence")
    return Status(StatusCode::invalid_config, "order must be conversation or sequence", "/order");
  if (config->replies.empty() && config->per_task.empty())
    return Status(StatusCode::invalid_config, "the scripted backend needs `script`, `replies` or `per_task`");
  Status inlined = inline_content_files(config->replies, context.project_root);
  for (auto& [task, replies] : config->per_task)
    if (inlined.is_ok()) inlined = inline_content_files(replies, context.project_root);
  if (!inlined.is_ok()) return inlined;
  return std::unique_ptr<ModelBackend>(std::make_unique<ScriptedBackend>(std::move(config.value())));
}

void register_all(Registrar& registrar) { registrar.add_backend("tritongym.backend.scripted", create); }

}  // namespace

TRITONGYM_PLUGIN(register_all)
