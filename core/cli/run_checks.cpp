#include "cli/run_checks.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "cli/plugin_loading.hpp"
#include "tritongym/sdk/did_you_mean.hpp"

namespace tritongym::cli {

namespace {

// Creates the plugin to let it check its own config; maps its errors to the YAML spot.
template <class Interface>
Result<std::unique_ptr<Interface>> create_checked(const CliContext& context, plugins::Registry& registry,
                                                  const config::PluginChoice& choice, const std::string& role) {
  if (!registry.contains(plugins::KindOf<Interface>::value, choice.id)) {
    Status unknown = registry.unknown_id(plugins::KindOf<Interface>::value, choice.id);
    return Status(StatusCode::invalid_config, role + ": " + unknown.message(), choice.id_where.to_string());
  }
  auto created = registry.create<Interface>(
      choice.id, plugin_context(context, registry, choice.id, choice.config_json, choice.config_origin));
  if (!created) return config::locate_config_error(created.status(), choice.config_sources, role + " (" + choice.id + ")");
  return created;
}

}  // namespace

Status check_run_plugins(const CliContext& context, plugins::Registry& registry, const config::RunConfig& run,
                         size_t& task_count) {
  task_count = 0;
  for (size_t i = 0; i < run.suites.size(); ++i) {
    const auto& choice = run.suites[i];
    auto suite = create_checked<Suite>(context, registry, choice.plugin, "suites[" + std::to_string(i) + "]");
    if (!suite) return suite.status();
    auto tasks = (*suite)->load_tasks();
    if (!tasks) return tasks.status();
    std::vector<std::string> known;
    for (const auto& task : tasks.value()) known.push_back(task.id);
    for (const auto& wanted : choice.task_ids) {
      if (std::find(known.begin(), known.end(), wanted) == known.end())
        return Status(StatusCode::invalid_config,
                      "suites[" + std::to_string(i) + "]: no task '" + wanted + "'" + did_you_mean(wanted, known),
                      choice.plugin.config_origin);
    }
    size_t selected = 0;
    for (const auto& task : tasks.value()) {
      bool id_ok = choice.task_ids.empty() ||
                   std::find(choice.task_ids.begin(), choice.task_ids.end(), task.id) != choice.task_ids.end();
      bool split_ok = choice.splits.empty() ||
                      std::find(choice.splits.begin(), choice.splits.end(), task.split) != choice.splits.end();
      if (id_ok && split_ok) ++selected;
    }
    if (choice.limit) selected = std::min<size_t>(selected, static_cast<size_t>(*choice.limit));
    task_count += selected;
  }
  for (const auto& model : run.models) {
    auto backend = create_checked<ModelBackend>(context, registry, model.backend, "model '" + model.name + "'");
    if (!backend) return backend.status();
  }
  for (const auto& workflow : run.workflows) {
    auto created = create_checked<Workflow>(context, registry, workflow.plugin, "workflow '" + workflow.name + "'");
    if (!created) return created.status();
  }
  for (size_t i = 0; i < run.tools.size(); ++i) {
    auto tool = create_checked<Tool>(context, registry, run.tools[i], "tools[" + std::to_string(i) + "]");
    if (!tool) return tool.status();
  }
  if (run.executor.id != "auto") {
    auto executor = create_checked<Executor>(context, registry, run.executor, "executor");
    if (!executor) return executor.status();
  } else if (registry.ids(plugins::PluginKind::executor).empty()) {
    spdlog::warn("executor: auto, but no executor plugin is loaded (see `tritongym plugins doctor`)");
  }
  return {};
}


}  // namespace tritongym::cli
