#include "run/merge_runs.hpp"

#include <boost/json.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "run/episode_plan.hpp"
#include "store/run_store.hpp"

namespace tritongym::run {

namespace fs = std::filesystem;

namespace {

struct LoadedEpisode {
  results::EpisodeRecord record;
  std::vector<results::TranscriptEntry> transcript;
  std::vector<store::EvaluationRow> evaluations;
  std::string from;
};

struct LoadedStore {
  std::string dir;
  results::RunInfo run;
  std::string shard;  // "I/N" or "" (older stores)
  int64_t total_episodes = 0;
  std::map<std::string, std::string> tasks;
  std::vector<LoadedEpisode> episodes;
};

// A suite entry's selection of tasks: what runs of parts of one run's task set differ in.
constexpr const char* kSelectionKeys[] = {"tasks", "splits", "limit"};

// The resolved config as shards of one run must share it: without output.dir, since each shard may
// have been written elsewhere (another machine, a GPU's own folder) before it was fetched. Parts of one
// run's task set share it but for their suites' selection (`without_selection`).
std::string comparable_config(const std::string& resolved_yaml, bool without_selection) {
  try {
    YAML::Node root = YAML::Load(resolved_yaml);
    if (root.IsMap() && root["output"] && root["output"].IsMap()) root["output"].remove("dir");
    if (without_selection && root.IsMap() && root["suites"] && root["suites"].IsSequence())
      for (YAML::Node suite : root["suites"])
        if (suite.IsMap())
          for (const char* key : kSelectionKeys) suite.remove(key);
    YAML::Emitter out;
    out << root;
    return out.c_str();
  } catch (const YAML::Exception&) {
    return resolved_yaml;  // compared as text
  }
}

// The first store's resolved config with its one suite's selection replaced by the tasks of every part.
Result<std::string> config_of_parts(const std::string& resolved_yaml, const std::set<std::string>& tasks) {
  try {
    YAML::Node root = YAML::Load(resolved_yaml);
    if (!root.IsMap() || !root["suites"] || !root["suites"].IsSequence() || root["suites"].size() != 1)
      return Status(StatusCode::failed_precondition,
                    "runs of parts of a task set are merged only for a run of one suite entry (this run has " +
                        std::to_string(root["suites"] ? root["suites"].size() : 0) + ")");
    YAML::Node suite = root["suites"][0];
    for (const char* key : kSelectionKeys) suite.remove(key);
    YAML::Node listed(YAML::NodeType::Sequence);
    for (const auto& task : tasks) listed.push_back(task);
    suite["tasks"] = listed;
    YAML::Emitter out;
    out << root;
    return std::string(out.c_str()) + "\n";
  } catch (const YAML::Exception& error) {
    return Status(StatusCode::failed_precondition, std::string("the run's resolved config cannot be read: ") + error.what());
  }
}

// "line 12: `samples: 2` here, `samples: 3` there", for a clear refusal.
std::string first_difference(const std::string& one, const std::string& other) {
  std::istringstream a(one), b(other);
  std::string line_a, line_b;
  for (int line = 1;; ++line) {
    bool more_a = static_cast<bool>(std::getline(a, line_a)), more_b = static_cast<bool>(std::getline(b, line_b));
    if (!more_a && !more_b) return "no difference";
    if (!more_a) line_a = "(end)";
    if (!more_b) line_b = "(end)";
    if (line_a != line_b) return "line " + std::to_string(line) + ": `" + line_a + "` vs `" + line_b + "`";
  }
}

bool same_result(const results::EpisodeRecord& a, const results::EpisodeRecord& b) {
  if (a.verdict != b.verdict || a.final_code != b.final_code || a.flags != b.flags || a.shapes.size() != b.shapes.size())
    return false;
  for (size_t i = 0; i < a.shapes.size(); ++i)
    if (a.shapes[i].shape != b.shapes[i].shape || a.shapes[i].passed != b.shapes[i].passed) return false;
  return true;
}

Result<LoadedStore> load(const std::string& dir) {
  auto store = store::open_run_dir(dir);
  if (!store) return store.status();
  LoadedStore loaded;
  loaded.dir = dir;
  auto run = store->load_run();
  if (!run) return run.status();
  loaded.run = run.value();
  loaded.shard = store->meta("shard").value_or("");
  if (auto total = store->meta("total_episodes")) loaded.total_episodes = std::stoll(*total);
  loaded.tasks = store->tasks();
  auto episodes = store->load_episodes();
  if (!episodes) return episodes.status();
  for (auto& record : episodes.value()) {
    LoadedEpisode episode;
    auto transcript = store->load_transcript(record.key.key());
    if (!transcript) return transcript.status();
    auto evaluations = store->load_evaluations(record.key.key());
    if (!evaluations) return evaluations.status();
    episode.record = std::move(record);
    episode.transcript = std::move(transcript.value());
    episode.evaluations = std::move(evaluations.value());
    episode.from = dir;
    loaded.episodes.push_back(std::move(episode));
  }
  return loaded;
}

}  // namespace

Result<MergeOutcome> merge_runs(const std::vector<std::string>& run_dirs, const std::string& into_dir) {
  if (run_dirs.empty()) return Status(StatusCode::invalid_argument, "merge needs at least one run folder");
  std::vector<LoadedStore> stores;
  for (const auto& dir : run_dirs) {
    auto loaded = load(dir);
    if (!loaded) return loaded.status();
    stores.push_back(std::move(loaded.value()));
  }
  MergeOutcome outcome;
  const LoadedStore& first = stores.front();
  // Shards of one run share its whole resolved config. Runs of parts of its task set (each given some of the
  // tasks) share all but their suite's selection; each part may have been split into shards of its own.
  const std::string first_whole = comparable_config(first.run.resolved_config_yaml, false);
  const std::string first_rest = comparable_config(first.run.resolved_config_yaml, true);
  struct Shards {
    std::optional<int64_t> count;
    std::set<int64_t> indexes;
  };
  std::map<std::string, Shards> parts;  // by selection: one entry for shards of one run
  for (const auto& store : stores) {
    const std::string whole = comparable_config(store.run.resolved_config_yaml, false);
    if (whole != first_whole) {
      const std::string rest = comparable_config(store.run.resolved_config_yaml, true);
      if (rest != first_rest)
        return Status(StatusCode::failed_precondition,
                      store.dir + " and " + first.dir + " are not shards of the same run, nor parts of its task set: " +
                          "their resolved configs differ (" + first_difference(first_rest, rest) + ")");
    }
    Shards& shards = parts[whole];
    if (store.shard.empty() || store.shard == "merged") continue;
    auto shard = parse_shard(store.shard);
    if (!shard) return Status(StatusCode::failed_precondition, store.dir + ": unreadable shard '" + store.shard + "'");
    if (shards.count && *shards.count != shard->count)
      return Status(StatusCode::failed_precondition, store.dir + " is shard " + store.shard + " but another store is one of " +
                                                         std::to_string(*shards.count) + " shards; merge the shards of one split");
    shards.count = shard->count;
    shards.indexes.insert(shard->index);
  }
  outcome.parts = static_cast<int64_t>(parts.size());

  std::map<std::string, const LoadedEpisode*> merged;
  for (const auto& store : stores)
    for (const auto& episode : store.episodes) {
      auto [found, inserted] = merged.emplace(episode.record.key.key(), &episode);
      if (inserted) continue;
      if (!same_result(found->second->record, episode.record))
        return Status(StatusCode::failed_precondition,
                      "episode '" + episode.record.key.key() + "' is in " + found->second->from + " (" +
                          found->second->record.verdict + ") and in " + store.dir + " (" + episode.record.verdict +
                          ") with different results; refusing to choose one");
      ++outcome.duplicates;
    }

  bool all_finished = true;
  for (const auto& store : stores)
    if (store.run.status != "finished") {
      all_finished = false;
      outcome.notes.push_back(store.dir + " is " + store.run.status + " (not every episode of it ran)");
    }
  for (const auto& [selection, shards] : parts)
    if (shards.count)
      for (int64_t index = 0; index < *shards.count; ++index)
        if (!shards.indexes.count(index))
          outcome.notes.push_back("shard " + std::to_string(index) + "/" + std::to_string(*shards.count) + " is missing" +
                                  (parts.size() > 1 ? " from one of the parts" : ""));

  // Parts: the merged run is the one whose suite lists every part's tasks, each with as many episodes as in its
  // part (models x workflows x samples, the same in all of them).
  std::set<std::string> all_tasks;
  for (const auto& store : stores)
    for (const auto& [task_id, spec] : store.tasks) all_tasks.insert(task_id);
  std::string merged_config = first.run.resolved_config_yaml;
  int64_t planned_of_parts = 0;
  if (parts.size() > 1) {
    auto config = config_of_parts(first.run.resolved_config_yaml, all_tasks);
    if (!config) return config.status();
    merged_config = std::move(config.value());
    for (const auto& store : stores)
      if (store.total_episodes > 0 && !store.tasks.empty()) {
        planned_of_parts = static_cast<int64_t>(all_tasks.size()) * (store.total_episodes / static_cast<int64_t>(store.tasks.size()));
        break;
      }
  }

  std::error_code error;
  fs::create_directories(into_dir, error);
  if (error) return Status(StatusCode::unavailable, "cannot create " + into_dir + ": " + error.message());
  std::string path = (fs::path(into_dir) / store::kStoreFileName).string();
  if (fs::exists(path))
    return Status(StatusCode::failed_precondition, into_dir + " already holds a store (" + path + "); merge into a new folder");
  auto opened = store::RunStore::open(path);
  if (!opened) return opened.status();
  store::RunStore& into = opened.value();

  results::RunInfo info = first.run;
  info.resolved_config_yaml = merged_config;
  boost::json::array sources;
  info.planned_episodes = 0;
  for (const auto& store : stores) {
    info.planned_episodes += store.run.planned_episodes;
    info.started_at = std::min(info.started_at, store.run.started_at);
    info.finished_at = std::max(info.finished_at, store.run.finished_at);
    boost::system::error_code parse_error;
    boost::json::value environment = boost::json::parse(store.run.environment_json, parse_error);
    sources.push_back({{"dir", fs::absolute(store.dir).string()}, {"run_id", store.run.run_id}, {"shard", store.shard},
                       {"status", store.run.status}, {"episodes", store.episodes.size()}, {"tasks", store.tasks.size()},
                       {"environment", parse_error ? boost::json::value(nullptr) : environment}});
  }
  if (parts.size() > 1) {
    if (planned_of_parts > 0) info.planned_episodes = planned_of_parts;
  } else if (first.total_episodes > 0) {
    info.planned_episodes = first.total_episodes;
  }
  // Named like any run, after its folder and start (the first shard's id would read "shard-0-of-N-...").
  info.run_id = fs::absolute(into_dir).lexically_normal().filename().string() + "-" + info.started_at;
  bool complete = all_finished && outcome.notes.empty() && static_cast<int64_t>(merged.size()) == info.planned_episodes;
  info.status = complete ? "finished" : "interrupted";
  if (!complete) info.finished_at = "";
  if (Status status = into.write_run(info); !status.is_ok()) return status;
  if (Status status = into.set_meta("shard", "merged"); !status.is_ok()) return status;
  if (Status status = into.set_meta("total_episodes", std::to_string(info.planned_episodes)); !status.is_ok())
    return status;
  if (Status status = into.set_meta("merged_from", boost::json::serialize(sources)); !status.is_ok()) return status;
  for (const auto& store : stores)
    for (const auto& [task_id, spec] : store.tasks)
      if (Status status = into.write_task(task_id, spec); !status.is_ok()) return status;
  for (const auto& [key, episode] : merged)
    if (Status status = into.record_episode(episode->record, episode->transcript, episode->evaluations); !status.is_ok())
      return status;

  outcome.store_path = path;
  outcome.stores = static_cast<int64_t>(stores.size());
  outcome.episodes = static_cast<int64_t>(merged.size());
  outcome.status = info.status;
  return outcome;
}

}  // namespace tritongym::run
