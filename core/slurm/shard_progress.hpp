// How far each shard of a run has come, read from the shards' stores (`<run dir>/shard-I-of-N/run.sqlite`)
// and from the merged store (`<run dir>/merged/run.sqlite`). The stores, not Slurm, say whether a shard is
// complete: a job that Slurm calls COMPLETED may have stopped early, and one it calls CANCELLED may have
// recorded every episode before the signal came.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tritongym/sdk/status.hpp"

namespace tritongym::slurm {

struct StoreProgress {
  std::string dir;            // the run folder of the shard (or of the merge)
  bool store_exists = false;  // run.sqlite is there
  bool has_run = false;       // and holds a run (a process stopped while starting leaves a store without one)
  std::string status;         // the run's status: running | finished | interrupted
  int64_t recorded = 0;       // episodes in the store
  int64_t planned = 0;        // episodes the shard (or the merged run) plans
  int64_t run_episodes = 0;   // episodes of the whole run ("total_episodes"), 0 when not known
  std::string problem;        // why the store could not be read, "" when it could

  // Every planned episode is recorded and the run says finished.
  bool complete() const { return has_run && status == "finished" && recorded == planned; }
  // "4 of 4 episodes, finished", "no store yet", ...
  std::string describe() const;
};

// The folder of shard `index` of `count` in a run folder: `shard-I-of-N` (what `tritongym run --shard` writes).
std::string shard_dir(const std::string& run_dir, int64_t index, int64_t count);

// Never an error: an unreadable store is a progress with `problem` set.
StoreProgress read_store_progress(const std::string& dir);
std::vector<StoreProgress> read_shard_progress(const std::string& run_dir, int64_t shard_count);

}  // namespace tritongym::slurm
