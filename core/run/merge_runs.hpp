// `tritongym merge`: the stores of a run's shards (each `tritongym run FILE --shard I/N` writes its own
// run folder) joined into one store, as if the run had not been split. Also the stores of runs of parts of
// one task set (the same run file, each run given some of the tasks: `suites.0.tasks=[...]`), joined into
// the run of all their tasks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tritongym/sdk/status.hpp"

namespace tritongym::run {

struct MergeOutcome {
  std::string store_path;
  int64_t stores = 0;
  int64_t episodes = 0;
  int64_t duplicates = 0;     // identical episodes found in more than one store (kept once)
  int64_t parts = 1;          // task selections among the stores: more than one for parts of a task set
  std::string status;         // "finished" when every shard is there and finished, else "interrupted"
  std::vector<std::string> notes;  // missing shards, unfinished shards
};

// Refuses stores of different runs (their resolved configs differ but for their suites' task selection),
// shard counts that differ within one part, parts of a run of several suite entries, and an episode key
// recorded twice with different results. `into_dir` must not already hold a run.
// Nothing is written unless every check passes.
Result<MergeOutcome> merge_runs(const std::vector<std::string>& run_dirs, const std::string& into_dir);

}  // namespace tritongym::run
