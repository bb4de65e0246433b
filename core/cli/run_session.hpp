// What `run` and `resume` share once the run config is known: load the plugins, run the engine
// (core/run), print the summary and pick the exit code.
#pragma once

#include "cli/commands.hpp"
#include "config/run_config.hpp"
#include "run/run_engine.hpp"

namespace tritongym::cli {

// `options.run_dir` must exist. Exit codes: 0 every planned episode is recorded, 1 the run stopped
// early (interrupted, or episodes that could not be recorded: resume continues it), 3/4/6 for a
// config, plugin or machine problem found before the first episode.
int run_and_summarise(const CliContext& context, const config::RunConfig& run, run::RunOptions options);

}  // namespace tritongym::cli
