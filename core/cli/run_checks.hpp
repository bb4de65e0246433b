// What `run` checks before anything runs, shared with `slurm` (which checks before it submits): every plugin
// the run file names is created once, so that each checks its own config, and every task it names exists.
#pragma once

#include <cstddef>

#include "cli/commands.hpp"
#include "config/run_config.hpp"
#include "plugins/registry.hpp"
#include "tritongym/sdk/status.hpp"

namespace tritongym::cli {

// invalid_config (with the YAML spot) for a bad config or an unknown task or plugin id; another code when a
// plugin could not be created. `task_count`: the tasks the suites select.
Status check_run_plugins(const CliContext& context, plugins::Registry& registry, const config::RunConfig& run,
                         size_t& task_count);

}  // namespace tritongym::cli
