// The result store of one run: `<run dir>/run.sqlite` (docs/results-store.md has the schema).
// Every episode is written in one transaction with its shapes, transcript and evaluations, so a
// process killed at any moment leaves either the whole episode or none of it.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "results/records.hpp"
#include "store/sqlite.hpp"
#include "tritongym/sdk/status.hpp"

namespace tritongym::store {

inline constexpr const char* kStoreFileName = "run.sqlite";
inline constexpr int kSchemaVersion = 2;  // 2: shapes.triton_us (a version 1 store gains it on open)

// One evaluation the executor made for an episode (the final score, with everything the executor
// returned), beyond what EpisodeRecord summarises.
struct EvaluationRow {
  std::string stage;         // "final_score"
  std::string verdict;
  std::string message;
  std::string stdout_text;
  std::string stderr_text;
  std::string record_json = "{}";
  std::vector<std::string> flags;
  std::vector<std::string> warnings;
  double gpu_seconds = 0.0;
  double wall_seconds = 0.0;
};

// Thread-safe: every method takes the store's lock, so episodes finishing on several threads may
// record at once.
class RunStore {
 public:
  // Opens or creates the store file. `create` false: a missing file is not_found.
  static Result<RunStore> open(const std::string& path, bool create = true);

  const std::string& path() const { return path_; }

  // The run row (inserted, or replaced when a run with that id is already there).
  Status write_run(const results::RunInfo& run);
  Result<results::RunInfo> load_run() const;  // not_found when no run was written
  // status: "running" | "finished" | "interrupted"; finished_at "" for running.
  Status set_status(const std::string& status, const std::string& finished_at);

  // Key/value facts about this store: "shard" ("I/N"), "total_episodes" (the whole run's count).
  Status set_meta(const std::string& key, const std::string& value);
  std::optional<std::string> meta(const std::string& key) const;

  // Tasks as the run saw them, as JSON text (what export and reports need without the suite plugin).
  Status write_task(const std::string& task_id, const std::string& spec_json);
  std::optional<std::string> task(const std::string& task_id) const;
  std::map<std::string, std::string> tasks() const;

  // One finished episode with its transcript and evaluations, in one transaction. An episode whose
  // key is already recorded is refused (failed_precondition) and nothing is written.
  Status record_episode(const results::EpisodeRecord& episode, const std::vector<results::TranscriptEntry>& transcript,
                        const std::vector<EvaluationRow>& evaluations = {});

  Result<std::set<std::string>> finished_keys() const;
  // Sorted by task, model, workflow, sample: the same order for a run, its resume and its merged shards.
  Result<std::vector<results::EpisodeRecord>> load_episodes() const;
  Result<std::vector<results::TranscriptEntry>> load_transcript(const std::string& episode_key) const;
  Result<std::vector<EvaluationRow>> load_evaluations(const std::string& episode_key) const;

 private:
  RunStore() = default;
  Status create_schema();
  std::string path_;
  mutable std::unique_ptr<std::mutex> mutex_ = std::make_unique<std::mutex>();
  mutable std::unique_ptr<Database> database_;
};

// The store of the run in `run_dir`, with a clear error when the folder holds no run.
Result<RunStore> open_run_dir(const std::string& run_dir);

}  // namespace tritongym::store
