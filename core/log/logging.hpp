// The one logger: spdlog to the terminal (stderr) and, during a run, to <run dir>/tritongym.log.
#pragma once

#include <string>

#include "tritongym/sdk/context.hpp"
#include "tritongym/sdk/status.hpp"

namespace tritongym::log {

// Parses "trace", "debug", "info", "warn", "error", "off".
Result<int> parse_level(const std::string& name);

// Sets up the terminal sink at `level` (an spdlog level number from parse_level).
void init(int level);

// Adds a file sink (always at debug level) for a run's folder.
Status add_file_sink(const std::string& path);

// The adapter plugins get as PluginContext::log. Lives for the whole process.
HostLog& host_log();

}  // namespace tritongym::log
