#include "report/report.hpp"

#include <algorithm>
#include <tuple>

#include "metrics/episode_speedups.hpp"

namespace tritongym::report {
namespace {

void append_unique(std::vector<std::string>& names, const std::string& name) {
  if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
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
    if (run.reports_performance) {
      view.speedup_over_oracle = metrics::speedup_over_oracle(*episode);
      view.speedup_over_eager = metrics::speedup_over_eager(*episode);
      view.speedup_over_compile = metrics::speedup_over_compile(*episode);
      view.speed_of_light_fraction = metrics::speed_of_light_fraction(*episode);
    }
    report.episodes.push_back(std::move(view));
  }
  return report;
}

}  // namespace tritongym::report
