// Loads the plugins for a command and logs each refusal once (commands other than `plugins doctor`
// go on without the refused plugins).
#pragma once

#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "plugins/loader.hpp"
#include "plugins/registry.hpp"

namespace tritongym::cli {

plugins::LoadReport load_registry(const CliContext& context, plugins::Registry& registry,
                                  const std::vector<std::string>& extra_paths = {});

// The context a plugin object is created with.
PluginContext plugin_context(const CliContext& context, plugins::Registry& registry, const std::string& id,
                             std::string config_json, std::string config_origin);

// Says why no executor was made (environment::choose_executor's error; a config error is placed at
// --executor-config) and returns the exit code: config error, plugin error or a missing requirement.
int executor_not_made(const Status& status);

}  // namespace tritongym::cli
