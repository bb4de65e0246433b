#include "metrics/group_metrics.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include "metrics/episode_speedups.hpp"

namespace tritongym::metrics {

const std::vector<std::string>& known_failure_verdicts() {
  static const std::vector<std::string> verdicts = {"passed",  "compile_error", "wrong_answer",
                                                    "timeout", "runtime_error", "crash",
                                                    "oom",     "flagged",       "no_code",
                                                    "harness_error", "not_judged"};
  return verdicts;
}

namespace {

void count_tasks_and_pass_at_k(const std::vector<results::EpisodeRecord>& episodes, GroupMetrics& group) {
  std::map<std::string, std::pair<int64_t, int64_t>> per_task;  // task -> (samples, correct)
  for (const auto& episode : episodes) {
    auto& [samples, correct] = per_task[episode.key.task_id];
    ++samples;
    if (episode.passed()) ++correct;
  }
  group.tasks = static_cast<int64_t>(per_task.size());
  if (per_task.empty()) return;
  group.min_samples_per_task = per_task.begin()->second.first;
  for (const auto& [task, counts] : per_task) {
    group.min_samples_per_task = std::min(group.min_samples_per_task, counts.first);
    group.max_samples_per_task = std::max(group.max_samples_per_task, counts.first);
    if (counts.second > 0) ++group.solved_tasks;
  }
  for (int64_t k = 1; k <= group.min_samples_per_task; ++k) {
    double sum = 0.0;
    for (const auto& [task, counts] : per_task) sum += pass_at_k(counts.first, counts.second, k);
    group.pass_at_k.push_back(sum / static_cast<double>(per_task.size()));
  }
}

void compute_performance(const std::vector<results::EpisodeRecord>& episodes, GroupMetrics& group) {
  std::vector<double> perf_values;
  std::vector<double> perf_vs_best;
  std::vector<double> speed_of_light;
  std::vector<FastP> fast_p;
  for (double threshold : kFastPThresholds) fast_p.push_back({threshold, 0.0, 0.0});
  for (const auto& episode : episodes) {
    if (!episode.passed()) {
      perf_values.push_back(0.0);
      perf_vs_best.push_back(0.0);
      continue;
    }
    if (auto speedup = speedup_over_oracle(episode)) perf_values.push_back(*speedup);
    if (auto speedup = speedup_over_best(episode)) perf_vs_best.push_back(*speedup);
    if (auto fraction = speed_of_light_fraction(episode)) speed_of_light.push_back(*fraction);
    const auto over_eager = speedup_over_eager(episode);
    const auto over_compile = speedup_over_compile(episode);
    for (auto& entry : fast_p) {
      if (over_eager && *over_eager > entry.threshold) entry.over_eager += 1.0;
      if (over_compile && *over_compile > entry.threshold) entry.over_compile += 1.0;
    }
  }
  for (auto& entry : fast_p) {
    entry.over_eager /= static_cast<double>(episodes.size());
    entry.over_compile /= static_cast<double>(episodes.size());
  }
  group.fast_p = std::move(fast_p);
  group.perf_scored_episodes = static_cast<int64_t>(perf_values.size());
  if (!perf_values.empty()) {
    double sum = 0.0;
    for (double value : perf_values) sum += value;
    group.perf_at_1 = sum / static_cast<double>(perf_values.size());
    group.perf_at_1_interval = bootstrap_mean_interval(perf_values, kBootstrapSeed);
  }
  if (!perf_vs_best.empty()) {
    double sum = 0.0;
    for (double value : perf_vs_best) sum += value;
    group.perf_vs_best_at_1 = sum / static_cast<double>(perf_vs_best.size());
  }
  if (!speed_of_light.empty()) group.speed_of_light_percent = 100.0 * geometric_mean(speed_of_light);
}

void compute_spending(const std::vector<results::EpisodeRecord>& episodes, GroupMetrics& group) {
  for (const auto& episode : episodes) {
    group.input_tokens += episode.input_tokens;
    group.output_tokens += episode.output_tokens;
    group.dollars += episode.dollars;
    group.gpu_seconds += episode.gpu_seconds;
    group.wall_seconds += episode.wall_seconds;
  }
  if (group.passed_episodes == 0) return;
  const double solves = static_cast<double>(group.passed_episodes);
  group.tokens_per_solve = static_cast<double>(group.input_tokens + group.output_tokens) / solves;
  group.dollars_per_solve = group.dollars / solves;
  group.gpu_seconds_per_solve = group.gpu_seconds / solves;
}

void count_verdicts(const std::vector<results::EpisodeRecord>& episodes, GroupMetrics& group) {
  std::map<std::string, int64_t> counts;
  for (const auto& episode : episodes) ++counts[episode.verdict.empty() ? "harness_error" : episode.verdict];
  for (const auto& verdict : known_failure_verdicts()) {
    group.verdict_counts.emplace_back(verdict, counts[verdict]);
    counts.erase(verdict);
  }
  for (const auto& [verdict, count] : counts) group.verdict_counts.emplace_back(verdict, count);
}

void count_attempts(const std::vector<results::EpisodeRecord>& episodes, GroupMetrics& group) {
  int64_t max_attempts = 0;
  for (const auto& episode : episodes)
    max_attempts = std::max({max_attempts, episode.attempts, episode.first_passing_attempt});
  for (int64_t attempt = 1; attempt <= max_attempts; ++attempt) {
    const auto passed_by = std::count_if(episodes.begin(), episodes.end(), [&](const auto& episode) {
      return episode.first_passing_attempt >= 1 && episode.first_passing_attempt <= attempt;
    });
    group.pass_rate_by_attempt.push_back(static_cast<double>(passed_by) / static_cast<double>(episodes.size()));
  }
}

}  // namespace

GroupMetrics compute_group(const std::vector<results::EpisodeRecord>& episodes, bool reports_performance,
                           std::string model, std::string workflow, std::string split) {
  GroupMetrics group;
  group.model = std::move(model);
  group.workflow = std::move(workflow);
  group.split = std::move(split);
  group.reports_performance = reports_performance;
  // An episode the executor could not judge (not_judged: the interpreter cannot run what it uses) says nothing
  // of the model: it is counted under its verdict and in the spending, and left out of every rate and score.
  std::vector<results::EpisodeRecord> judged;
  std::copy_if(episodes.begin(), episodes.end(), std::back_inserter(judged),
               [](const auto& episode) { return episode.verdict != kNotJudged; });
  group.episodes = static_cast<int64_t>(judged.size());
  group.not_judged_episodes = static_cast<int64_t>(episodes.size() - judged.size());
  group.passed_episodes =
      std::count_if(judged.begin(), judged.end(), [](const auto& episode) { return episode.passed(); });
  compute_spending(episodes, group);
  count_verdicts(episodes, group);
  if (judged.empty()) return group;
  group.pass_rate_interval = wilson_interval(group.passed_episodes, group.episodes);
  count_tasks_and_pass_at_k(judged, group);
  if (reports_performance) compute_performance(judged, group);
  count_attempts(judged, group);
  return group;
}

std::vector<std::string> splits_in_report_order(const std::vector<results::EpisodeRecord>& episodes) {
  static const std::vector<std::string> canonical = {"standard", "ood", "community", "dsl"};
  std::set<std::string> present;
  for (const auto& episode : episodes) present.insert(episode.split);
  present.erase(kOverallSplit);
  std::vector<std::string> order = {kOverallSplit};
  for (const auto& split : canonical)
    if (present.erase(split)) order.push_back(split);
  for (const auto& split : present) order.push_back(split);
  return order;
}

std::vector<GroupMetrics> compute_all_groups(const results::RunInfo& run,
                                             const std::vector<results::EpisodeRecord>& episodes) {
  std::vector<std::pair<std::string, std::string>> pairs;  // (model, workflow), first appearance
  for (const auto& episode : episodes) {
    std::pair<std::string, std::string> pair{episode.key.model, episode.key.workflow};
    if (std::find(pairs.begin(), pairs.end(), pair) == pairs.end()) pairs.push_back(std::move(pair));
  }
  std::vector<GroupMetrics> groups;
  for (const auto& split : splits_in_report_order(episodes)) {
    for (const auto& [model, workflow] : pairs) {
      std::vector<results::EpisodeRecord> members;
      for (const auto& episode : episodes)
        if (episode.key.model == model && episode.key.workflow == workflow &&
            (split == kOverallSplit || episode.split == split))
          members.push_back(episode);
      if (!members.empty())
        groups.push_back(compute_group(members, run.reports_performance, model, workflow, split));
    }
  }
  return groups;
}

}  // namespace tritongym::metrics
