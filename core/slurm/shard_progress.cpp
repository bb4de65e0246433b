#include "slurm/shard_progress.hpp"

#include <filesystem>

#include "run/episode_plan.hpp"
#include "store/run_store.hpp"

namespace tritongym::slurm {

namespace fs = std::filesystem;

std::string StoreProgress::describe() const {
  if (!problem.empty()) return "unreadable store: " + problem;
  if (!store_exists) return "no store yet";
  if (!has_run) return "a store without a run (its process stopped while starting)";
  return std::to_string(recorded) + " of " + std::to_string(planned) + " episodes, " + status;
}

std::string shard_dir(const std::string& run_dir, int64_t index, int64_t count) {
  return (fs::path(run_dir) / run::shard_folder_name(run::Shard{index, count})).string();
}

StoreProgress read_store_progress(const std::string& dir) {
  StoreProgress progress;
  progress.dir = dir;
  std::string path = (fs::path(dir) / store::kStoreFileName).string();
  std::error_code error;
  progress.store_exists = fs::exists(path, error);
  if (!progress.store_exists) return progress;
  auto store = store::RunStore::open(path, false);
  if (!store) {
    progress.problem = store.status().message();
    return progress;
  }
  auto run = store->load_run();
  if (!run) {
    if (run.status().code() != StatusCode::not_found) progress.problem = run.status().message();
    return progress;
  }
  progress.has_run = true;
  progress.status = run->status;
  progress.planned = run->planned_episodes;
  auto keys = store->finished_keys();
  if (!keys) {
    progress.problem = keys.status().message();
    return progress;
  }
  progress.recorded = static_cast<int64_t>(keys->size());
  if (auto total = store->meta("total_episodes")) {
    try {
      progress.run_episodes = std::stoll(*total);
    } catch (const std::exception&) {
      progress.problem = "its total_episodes is not a number: '" + *total + "'";
    }
  }
  return progress;
}

std::vector<StoreProgress> read_shard_progress(const std::string& run_dir, int64_t shard_count) {
  std::vector<StoreProgress> shards;
  for (int64_t index = 0; index < shard_count; ++index)
    shards.push_back(read_store_progress(shard_dir(run_dir, index, shard_count)));
  return shards;
}

}  // namespace tritongym::slurm
