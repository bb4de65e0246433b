#include "cli/plugin_loading.hpp"

#include <spdlog/spdlog.h>

#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "tritongym/support/machine_probe.hpp"
#include "log/logging.hpp"

namespace tritongym::cli {

plugins::LoadReport load_registry(const CliContext& context, plugins::Registry& registry,
                                  const std::vector<std::string>& extra_paths) {
  std::vector<std::string> paths = context.plugin_paths;
  paths.insert(paths.end(), extra_paths.begin(), extra_paths.end());
  plugins::LoadReport report = plugins::load_plugins(plugins::plugin_search_paths(paths), registry);
  for (const auto& error : report.manifest_errors) spdlog::warn("{}: {}", error.location(), error.message());
  for (const auto& plugin : report.plugins)
    if (!plugin.loaded) spdlog::warn("{}", plugin.message);
  spdlog::debug("{} plugins loaded", report.loaded_count());
  return report;
}

PluginContext plugin_context(const CliContext& context, plugins::Registry& registry, const std::string& id,
                             std::string config_json, std::string config_origin) {
  PluginContext plugin;
  plugin.config_json = std::move(config_json);
  plugin.config_origin = std::move(config_origin);
  plugin.project_root = context.project_root;
  if (const auto* origin = registry.origin(id)) plugin.plugin_dir = origin->manifest.directory;
  plugin.python_executable = environment::locate_python(context.project_root).executable;
  plugin.log = &log::host_log();
  return plugin;
}

int executor_not_made(const Status& status) {
  if (status.code() == StatusCode::invalid_config) {
    print_error(Status(status.code(), status.message(), "--executor-config " + status.location()));
    return kExitConfigError;
  }
  print_error(status);
  return status.code() == StatusCode::not_found ? kExitPluginError : kExitMissingRequirement;
}

}  // namespace tritongym::cli
