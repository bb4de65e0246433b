#include "run/episode_plan.hpp"

#include <algorithm>
#include <charconv>
#include <set>

#include "tritongym/sdk/did_you_mean.hpp"

namespace tritongym::run {

std::string shard_folder_name(const Shard& shard) {
  return "shard-" + std::to_string(shard.index) + "-of-" + std::to_string(shard.count);
}

Result<Shard> parse_shard(const std::string& text) {
  auto slash = text.find('/');
  Shard shard;
  auto number = [](std::string_view part, int64_t& value) {
    auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), value);
    return error == std::errc() && end == part.data() + part.size() && !part.empty();
  };
  if (slash == std::string::npos || !number(std::string_view(text).substr(0, slash), shard.index) ||
      !number(std::string_view(text).substr(slash + 1), shard.count))
    return Status(StatusCode::invalid_argument, "shard '" + text + "' must be I/N, e.g. 0/4 (I counts from 0)");
  if (shard.count < 1 || shard.index < 0 || shard.index >= shard.count)
    return Status(StatusCode::invalid_argument,
                  "shard '" + text + "': I must be in 0.." + std::to_string(std::max<int64_t>(shard.count - 1, 0)) +
                      " and N at least 1 (I counts from 0)");
  return shard;
}

Result<std::vector<TaskSpec>> select_tasks(const config::SuiteChoice& choice, size_t suite_index,
                                           std::vector<TaskSpec> all_tasks) {
  std::vector<std::string> known;
  for (const auto& task : all_tasks) known.push_back(task.id);
  for (const auto& wanted : choice.task_ids)
    if (std::find(known.begin(), known.end(), wanted) == known.end())
      return Status(StatusCode::invalid_config,
                    "suites[" + std::to_string(suite_index) + "]: no task '" + wanted + "'" + did_you_mean(wanted, known),
                    choice.plugin.config_origin);
  std::vector<TaskSpec> selected;
  for (auto& task : all_tasks) {
    bool id_ok = choice.task_ids.empty() ||
                 std::find(choice.task_ids.begin(), choice.task_ids.end(), task.id) != choice.task_ids.end();
    bool split_ok =
        choice.splits.empty() || std::find(choice.splits.begin(), choice.splits.end(), task.split) != choice.splits.end();
    if (!id_ok || !split_ok) continue;
    if (choice.limit && static_cast<int64_t>(selected.size()) >= *choice.limit) break;
    selected.push_back(std::move(task));
  }
  return selected;
}

Result<std::vector<PlannedEpisode>> plan_episodes(const std::vector<TaskSpec>& tasks, const config::RunConfig& run,
                                                  Shard shard) {
  std::set<std::string> seen;
  for (const auto& task : tasks)
    if (!seen.insert(task.id).second)
      return Status(StatusCode::invalid_config,
                    "task '" + task.id + "' is selected by more than one suite entry; its episodes would collide",
                    run.source_file);
  std::vector<PlannedEpisode> planned;
  int64_t ordinal = 0;
  for (size_t t = 0; t < tasks.size(); ++t)
    for (size_t m = 0; m < run.models.size(); ++m)
      for (size_t w = 0; w < run.workflows.size(); ++w)
        for (int64_t sample = 0; sample < run.samples; ++sample, ++ordinal) {
          if (ordinal % shard.count != shard.index) continue;
          planned.push_back({{tasks[t].id, run.models[m].name, run.workflows[w].name, sample}, t, m, w});
        }
  return planned;
}

}  // namespace tritongym::run
