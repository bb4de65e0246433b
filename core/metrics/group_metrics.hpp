// The metrics of one group of episodes (one model x workflow, over one split or all of them), as pure
// functions over the records the store holds. Every formula and its source: docs/metrics.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "metrics/estimators.hpp"
#include "results/records.hpp"

namespace tritongym::metrics {

// The split name of the group that holds every split.
inline constexpr const char* kOverallSplit = "overall";

// The verdict of an episode the executor could not judge: every rate and score leaves it out.
inline constexpr const char* kNotJudged = "not_judged";

// The verdicts counted as failure modes, in the order reports show them. Unknown verdicts are kept
// after these, under their own names.
const std::vector<std::string>& known_failure_verdicts();

// The thresholds p of fast_p: the fraction of episodes that pass and are more than p times as fast.
inline const std::vector<double> kFastPThresholds = {0.0, 1.0, 1.5, 2.0};

struct FastP {
  double threshold = 0.0;
  double over_eager = 0.0;    // denominator: every episode of the group, failures included
  double over_compile = 0.0;
};

struct GroupMetrics {
  std::string model;
  std::string workflow;
  std::string split;  // kOverallSplit or a task split (standard, ood, community, dsl, ...)

  int64_t episodes = 0;          // judged episodes: every rate and score below is over these
  int64_t not_judged_episodes = 0;  // verdict not_judged (the executor could not run the candidate): left out
  int64_t tasks = 0;            // distinct task ids
  int64_t passed_episodes = 0;  // verdict "passed"; flagged is a failure
  int64_t solved_tasks = 0;     // tasks with at least one passing episode
  int64_t min_samples_per_task = 0;
  int64_t max_samples_per_task = 0;

  // Unbiased pass@k averaged over tasks, for k = 1..min_samples_per_task: pass_at_k[k - 1].
  std::vector<double> pass_at_k;
  Interval pass_rate_interval;  // Wilson, 95%, over episodes (passed_episodes / episodes)

  // Performance: all nullopt / empty when the run does not report performance (interpreter runs).
  bool reports_performance = false;
  std::optional<double> perf_at_1;             // mean over scored episodes of the oracle speedup, 0 for failures
  std::optional<Interval> perf_at_1_interval;  // percentile bootstrap, 95%, fixed seed
  int64_t perf_scored_episodes = 0;            // failures plus passes that have an oracle speedup
  // Perf@1 against the best of eager, torch.compile and the oracle per shape (speedup_over_best), 0 for failures,
  // over failures plus passes that have it: where the oracle is weaker than a baseline, this is the honest score.
  std::optional<double> perf_vs_best_at_1;
  std::vector<FastP> fast_p;                   // one per kFastPThresholds
  std::optional<double> speed_of_light_percent;  // 100 x geometric mean over passing episodes

  // Spending, totals and per solve (a passing episode). nullopt when nothing passed.
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  double dollars = 0.0;
  double gpu_seconds = 0.0;
  double wall_seconds = 0.0;
  std::optional<double> tokens_per_solve;
  std::optional<double> dollars_per_solve;
  std::optional<double> gpu_seconds_per_solve;

  // Count of each verdict: the known ones (zeros included) in known_failure_verdicts() order, then others.
  std::vector<std::pair<std::string, int64_t>> verdict_counts;
  // pass_rate_by_attempt[a - 1]: fraction of episodes with 1 <= first_passing_attempt <= a, a = 1..max attempts.
  std::vector<double> pass_rate_by_attempt;
};

// The bootstrap seed: fixed so that a report computed twice is identical.
inline constexpr uint64_t kBootstrapSeed = 20210707;

// The metrics of `episodes` as one group; model, workflow and split are copied into the result.
// `reports_performance` is RunInfo::reports_performance: false leaves every performance field empty.
GroupMetrics compute_group(const std::vector<results::EpisodeRecord>& episodes, bool reports_performance,
                           std::string model, std::string workflow, std::string split);

// Every group of a run: for each split ("overall" first, then standard, ood, community, dsl, then any
// other split in name order) and each (model, workflow) in order of first appearance, a group with at
// least one episode.
std::vector<GroupMetrics> compute_all_groups(const results::RunInfo& run,
                                             const std::vector<results::EpisodeRecord>& episodes);

// The splits present in `episodes` in report order, "overall" first.
std::vector<std::string> splits_in_report_order(const std::vector<results::EpisodeRecord>& episodes);

}  // namespace tritongym::metrics
