#include "report/report.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "metrics/episode_speedups.hpp"

namespace tritongym::report {
namespace {

void append_unique(std::vector<std::string>& names, const std::string& name) {
  if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
}

// Per task, from its first episode (in store order) whose shapes carry the oracle's timing.
std::vector<TaskOracleView> task_oracles(const std::vector<results::EpisodeRecord>& episodes) {
  std::map<std::string, TaskOracleView> found;
  for (const auto& episode : episodes) {
    if (found.count(episode.key.task_id)) continue;
    TaskOracleView view{episode.key.task_id, episode.split, metrics::oracle_speed_of_light_fraction(episode),
                        metrics::oracle_over_best_baseline(episode)};
    if (view.speed_of_light_fraction || view.over_best_baseline) found.emplace(episode.key.task_id, std::move(view));
  }
  std::vector<TaskOracleView> out;
  for (auto& [task, view] : found) out.push_back(std::move(view));
  return out;
}

}  // namespace

const metrics::GroupMetrics* Report::find_group(const std::string& split, const std::string& model,
                                                const std::string& workflow) const {
  for (const auto& group : groups)
    if (group.split == split && group.model == model && group.workflow == workflow) return &group;
  return nullptr;
}

Report build_report(const results::RunInfo& run, const std::vector<results::EpisodeRecord>& episodes) {
  Report report;
  report.run = run;
  report.splits = metrics::splits_in_report_order(episodes);
  for (const auto& episode : episodes) {
    append_unique(report.models, episode.key.model);
    append_unique(report.workflows, episode.key.workflow);
  }
  report.groups = metrics::compute_all_groups(run, episodes);

  std::vector<const results::EpisodeRecord*> ordered;
  for (const auto& episode : episodes) ordered.push_back(&episode);
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto* left, const auto* right) {
    return std::tie(left->key.model, left->key.workflow, left->key.task_id, left->key.sample) <
           std::tie(right->key.model, right->key.workflow, right->key.task_id, right->key.sample);
  });
  for (const auto* episode : ordered) {
    EpisodeView view;
    view.number = static_cast<int64_t>(report.episodes.size()) + 1;
    view.record = *episode;
    view.unconfined = std::any_of(episode->warnings.begin(), episode->warnings.end(),
                                  [](const std::string& warning) { return warning.rfind("[unconfined]", 0) == 0; });
    if (run.reports_performance) {
      view.speedup_over_oracle = metrics::speedup_over_oracle(*episode);
      view.speedup_over_eager = metrics::speedup_over_eager(*episode);
      view.speedup_over_compile = metrics::speedup_over_compile(*episode);
      view.speed_of_light_fraction = metrics::speed_of_light_fraction(*episode);
      view.speedup_over_best = metrics::speedup_over_best(*episode);
    }
    report.episodes.push_back(std::move(view));
  }
  if (run.reports_performance) report.task_oracles = task_oracles(episodes);
  return report;
}

}  // namespace tritongym::report
