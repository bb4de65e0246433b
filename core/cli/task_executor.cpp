#include "cli/task_executor.hpp"

#include <boost/json.hpp>

#include <algorithm>

#include "cli/plugin_loading.hpp"

namespace tritongym::cli {

Result<environment::ExecutorChoice> make_task_executor(const CliContext& context, plugins::Registry& registry,
                                                       const std::string& executor_id,
                                                       const std::string& executor_config,
                                                       const std::vector<std::string>& default_baselines) {
  boost::system::error_code error;
  boost::json::value given = boost::json::parse(executor_config, error);
  if (error || !given.is_object())
    return Status(StatusCode::invalid_config, "--executor-config must be a JSON object, not '" + executor_config + "'");
  return environment::choose_executor(registry, executor_id, [&](const std::string& id) {
    const auto* origin = registry.origin(id);
    bool chooses = origin && std::any_of(origin->manifest.config.begin(), origin->manifest.config.end(),
                                         [](const plugins::ConfigFieldDoc& field) { return field.name == "baselines"; });
    boost::json::object config = given.as_object();
    if (chooses && !config.contains("baselines"))
      config["baselines"] = boost::json::array(default_baselines.begin(), default_baselines.end());
    return plugin_context(context, registry, id, boost::json::serialize(config), "--executor-config");
  });
}

std::optional<std::string> executor_skips(const environment::ExecutorChoice& executor, const TaskSpec& task) {
  const std::vector<std::string> dsls = executor.executor->info().dsls;
  const std::string dsl = task.dsl.empty() ? "triton" : task.dsl;
  if (dsls.empty() || std::find(dsls.begin(), dsls.end(), dsl) != dsls.end()) return std::nullopt;
  return executor.id + " does not run " + dsl + " kernels; a GPU executor does";
}

bool runs_plain_triton(const environment::ExecutorChoice& executor, const TaskSpec& task) {
  TaskSpec plain = task;
  plain.dsl = "triton";
  return !executor_skips(executor, plain);
}

}  // namespace tritongym::cli
