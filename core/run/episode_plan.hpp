// Which episodes a run is made of, in a fixed order: tasks (suites in file order, each suite's tasks in
// its own order) x models x workflows x samples. The order never depends on timing, so a resumed run,
// a shard and a merge all agree on what "the run" is.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/run_config.hpp"
#include "results/records.hpp"
#include "tritongym/sdk/status.hpp"
#include "tritongym/sdk/suite.hpp"
#include "tritongym/sdk/types.hpp"

namespace tritongym::run {

// Episode i (0-based, in plan order) belongs to shard `index` when i % count == index.
struct Shard {
  int64_t index = 0;
  int64_t count = 1;
  bool whole() const { return count == 1; }
  std::string to_string() const { return std::to_string(index) + "/" + std::to_string(count); }
};

// "I/N" with 0 <= I < N (I is 0-based, like a Slurm array index).
Result<Shard> parse_shard(const std::string& text);

// The folder a shard's run writes inside the run's output.dir: "shard-I-of-N".
std::string shard_folder_name(const Shard& shard);

struct PlannedEpisode {
  results::EpisodeKey key;
  size_t task_index = 0;      // into the task list given to plan_episodes
  size_t model_index = 0;     // into RunConfig::models
  size_t workflow_index = 0;  // into RunConfig::workflows
};

// The tasks a suite entry selects (`tasks:`, `splits:`, `limit:`), in the suite's order.
// An id in `tasks:` that the suite does not have is an invalid_config error naming it.
Result<std::vector<TaskSpec>> select_tasks(const config::SuiteChoice& choice, size_t suite_index,
                                           std::vector<TaskSpec> all_tasks);

// Every episode of the run (or of one shard), in plan order. A task selected by two suite entries is
// an error: its episodes would share keys.
Result<std::vector<PlannedEpisode>> plan_episodes(const std::vector<TaskSpec>& tasks, const config::RunConfig& run,
                                                  Shard shard = {});

}  // namespace tritongym::run
