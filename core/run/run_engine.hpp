// The run engine: every episode of a run (suites x models x workflows x samples, docs/configuration.md)
// through episode::run_episode, up to max_concurrent_episodes at once, each recorded in the run's store
// (core/store) in one transaction as soon as it ends. Model calls go through a record/replay log per
// model (<run dir>/replay/<model>.jsonl), so a resumed run never pays twice for a finished call.
//
// Sharing across threads: the executor and the model backends are documented thread-safe and are shared
// (one each); workflows and tools say nothing about it, so every episode gets its own instances; DSL
// plugins are shared as const objects.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "config/run_config.hpp"
#include "plugins/registry.hpp"
#include "run/episode_plan.hpp"
#include "tritongym/sdk/context.hpp"

namespace tritongym::run {

// Builds the context a plugin object is created with (paths, python, log) for `id` with this config.
using ContextMaker =
    std::function<PluginContext(const std::string& id, const std::string& config_json, const std::string& origin)>;

struct RunOptions {
  std::string run_dir;       // absolute; holds run.sqlite, replay/, resolved-config.yaml, tritongym.log
  std::string project_root;  // for the machine probe
  Shard shard;               // which episodes this process runs
  bool resume = false;       // the store must already hold this run; finished episodes are skipped
  bool terminal = false;     // redraw one progress line in place (else one log line per episode)
};

struct RunOutcome {
  std::string run_dir;
  std::string store_path;
  std::string status;              // "finished" | "interrupted"
  int64_t planned = 0;             // episodes of this run (or shard)
  int64_t skipped = 0;             // already in the store when this invocation started (resume)
  int64_t ran = 0;                 // recorded by this invocation
  int64_t not_recorded = 0;        // could not be run or stored (logged); a resume retries them
  int64_t recorded_total = 0;      // in the store at the end
  int64_t passed_total = 0;        // of those, passed
  size_t replay_answers = 0;       // model calls answered from the replay logs
  size_t replay_sent = 0;          // model calls sent to the backends
};

// Runs (or resumes) the run. Errors before any episode starts (a plugin that cannot be created, a run
// folder that holds another run) come back as a Status; episode failures are results in the store.
Result<RunOutcome> execute_run(const config::RunConfig& run, const plugins::Registry& registry,
                               const ContextMaker& make_context, const RunOptions& options);

}  // namespace tritongym::run
