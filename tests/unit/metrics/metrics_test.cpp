#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <tuple>

#include "metrics/episode_speedups.hpp"
#include "metrics/estimators.hpp"
#include "metrics/group_metrics.hpp"
#include "support/synthetic_run.hpp"

namespace tritongym::metrics {
namespace {

using test_data::synthetic_episode;

// Hand-computed: 1 - C(n-c, k) / C(n, k).
TEST(PassAtK, MatchesTheBinomialFormula) {
  EXPECT_NEAR(pass_at_k(5, 2, 1), 1.0 - 3.0 / 5.0, 1e-12);    // 0.4
  EXPECT_NEAR(pass_at_k(5, 2, 2), 1.0 - 3.0 / 10.0, 1e-12);   // C(3,2)=3, C(5,2)=10
  EXPECT_NEAR(pass_at_k(5, 2, 3), 1.0 - 1.0 / 10.0, 1e-12);   // C(3,3)=1, C(5,3)=10: 0.9
  EXPECT_DOUBLE_EQ(pass_at_k(5, 2, 4), 1.0);                  // n - c < k: some sample must pass
  EXPECT_NEAR(pass_at_k(10, 3, 5), 1.0 - 21.0 / 252.0, 1e-12);  // C(7,5)=21, C(10,5)=252
  EXPECT_DOUBLE_EQ(pass_at_k(10, 0, 5), 0.0);
  EXPECT_DOUBLE_EQ(pass_at_k(1, 1, 1), 1.0);
}

TEST(PassAtK, RefusesImpossibleCounts) {
  EXPECT_THROW(pass_at_k(5, 2, 6), std::invalid_argument);
  EXPECT_THROW(pass_at_k(5, 6, 1), std::invalid_argument);
  EXPECT_THROW(pass_at_k(0, 0, 1), std::invalid_argument);
  EXPECT_THROW(pass_at_k(5, 2, 0), std::invalid_argument);
}

TEST(PassAtK, AGroupAveragesOverTasks) {
  std::vector<results::EpisodeRecord> episodes;
  for (int sample = 0; sample < 5; ++sample) {
    episodes.push_back(synthetic_episode("t/a", "standard", "m", "w", sample, sample < 2 ? "passed" : "wrong_answer"));
    episodes.push_back(synthetic_episode("t/b", "standard", "m", "w", sample, "compile_error"));
  }
  auto group = compute_group(episodes, false, "m", "w", kOverallSplit);
  ASSERT_EQ(group.pass_at_k.size(), 5u);
  EXPECT_NEAR(group.pass_at_k[0], (0.4 + 0.0) / 2, 1e-12);
  EXPECT_NEAR(group.pass_at_k[2], (0.9 + 0.0) / 2, 1e-12);
  EXPECT_NEAR(group.pass_at_k[4], (1.0 + 0.0) / 2, 1e-12);
  EXPECT_EQ(group.tasks, 2);
  EXPECT_EQ(group.solved_tasks, 1);
  EXPECT_EQ(group.passed_episodes, 2);
}

TEST(PassAtK, KStopsAtTheFewestSamplesOfAnyTask) {
  std::vector<results::EpisodeRecord> episodes = {
      synthetic_episode("t/a", "standard", "m", "w", 0, "passed"),
      synthetic_episode("t/a", "standard", "m", "w", 1, "passed"),
      synthetic_episode("t/a", "standard", "m", "w", 2, "passed"),
      synthetic_episode("t/b", "standard", "m", "w", 0, "passed")};
  auto group = compute_group(episodes, false, "m", "w", kOverallSplit);
  EXPECT_EQ(group.min_samples_per_task, 1);
  EXPECT_EQ(group.max_samples_per_task, 3);
  EXPECT_EQ(group.pass_at_k.size(), 1u);
}

TEST(WilsonInterval, MatchesReferenceValues) {
  auto eight_of_ten = wilson_interval(8, 10);
  EXPECT_NEAR(eight_of_ten.low, 0.4901568, 1e-6);
  EXPECT_NEAR(eight_of_ten.high, 0.9433191, 1e-6);
  auto none_of_ten = wilson_interval(0, 10);
  EXPECT_DOUBLE_EQ(none_of_ten.low, 0.0);
  EXPECT_NEAR(none_of_ten.high, 3.8416 / 13.8416, 1e-9);  // z^2 / (n + z^2)
  auto one_of_four = wilson_interval(1, 4);
  EXPECT_NEAR(one_of_four.low, 0.0455861, 1e-6);
  EXPECT_NEAR(one_of_four.high, 0.6993639, 1e-6);
  auto nothing = wilson_interval(0, 0);
  EXPECT_DOUBLE_EQ(nothing.low, 0.0);
  EXPECT_DOUBLE_EQ(nothing.high, 1.0);
}

TEST(Bootstrap, IsDeterministicAndBracketsTheMean) {
  const std::vector<double> values = {0.0, 0.5, 1.0, 1.5, 2.0, 0.0, 3.0, 1.2};
  auto first = bootstrap_mean_interval(values, kBootstrapSeed);
  auto second = bootstrap_mean_interval(values, kBootstrapSeed);
  EXPECT_EQ(first.low, second.low);
  EXPECT_EQ(first.high, second.high);
  const double mean = 9.2 / 8.0;
  EXPECT_LT(first.low, mean);
  EXPECT_GT(first.high, mean);
  EXPECT_GE(first.low, 0.0);
  EXPECT_LE(first.high, 3.0);
  auto constant = bootstrap_mean_interval({1.25, 1.25, 1.25}, kBootstrapSeed);
  EXPECT_DOUBLE_EQ(constant.low, 1.25);
  EXPECT_DOUBLE_EQ(constant.high, 1.25);
}

TEST(Speedups, AreGeometricMeansOverShapesWithBothLatencies) {
  auto episode = synthetic_episode("t/a", "standard", "m", "w", 0, "passed");
  results::ShapeRecord faster = episode.shapes[0];
  faster.candidate_us = 2.5;  // 10 / 2.5 = 4x
  results::ShapeRecord untimed = episode.shapes[0];
  untimed.candidate_us.reset();
  episode.shapes[0].candidate_us = 10.0;  // 1x
  episode.shapes.push_back(faster);
  episode.shapes.push_back(untimed);
  EXPECT_NEAR(*speedup_over_oracle(episode), 2.0, 1e-12);  // sqrt(1 * 4)
  EXPECT_NEAR(*speedup_over_eager(episode), std::sqrt(2.0 * 8.0), 1e-12);
  episode.shapes = {untimed};
  EXPECT_FALSE(speedup_over_oracle(episode).has_value());
}

TEST(PerfAt1, CountsFailuresAsZero) {
  std::vector<results::EpisodeRecord> episodes = {
      synthetic_episode("t/a", "standard", "m", "w", 0, "passed", 2.0),
      synthetic_episode("t/b", "standard", "m", "w", 0, "passed", 0.5),
      synthetic_episode("t/c", "standard", "m", "w", 0, "wrong_answer", 3.0),  // fast but wrong: 0
      synthetic_episode("t/d", "standard", "m", "w", 0, "flagged", 5.0),       // flagged is a failure: 0
  };
  auto group = compute_group(episodes, true, "m", "w", kOverallSplit);
  ASSERT_TRUE(group.perf_at_1.has_value());
  EXPECT_NEAR(*group.perf_at_1, (2.0 + 0.5 + 0.0 + 0.0) / 4.0, 1e-12);
  EXPECT_EQ(group.perf_scored_episodes, 4);
  ASSERT_TRUE(group.perf_at_1_interval.has_value());
  EXPECT_LE(group.perf_at_1_interval->low, *group.perf_at_1);
  EXPECT_GE(group.perf_at_1_interval->high, *group.perf_at_1);
  EXPECT_EQ(group.passed_episodes, 2);
}

// not_judged: the executor could not run what the candidate uses. Nothing is known of it, so every rate and score
// is over the judged episodes alone; the episode is still counted under its verdict and in the spending.
TEST(NotJudged, IsLeftOutOfEveryRateAndScore) {
  std::vector<results::EpisodeRecord> episodes = {
      synthetic_episode("t/a", "standard", "m", "w", 0, "passed", 2.0),
      synthetic_episode("t/a", "standard", "m", "w", 1, "not_judged", 1.0),
      synthetic_episode("t/b", "standard", "m", "w", 0, "wrong_answer", 1.0),
      synthetic_episode("t/c", "standard", "m", "w", 0, "not_judged", 1.0),  // a task with no judged episode
  };
  for (auto& episode : episodes) episode.gpu_seconds = 1.0;
  auto group = compute_group(episodes, true, "m", "w", kOverallSplit);
  EXPECT_EQ(group.episodes, 2);
  EXPECT_EQ(group.not_judged_episodes, 2);
  EXPECT_EQ(group.tasks, 2);  // t/c has nothing judged
  ASSERT_FALSE(group.pass_at_k.empty());
  EXPECT_DOUBLE_EQ(group.pass_at_k[0], 0.5);  // t/a 1 of 1, t/b 0 of 1
  ASSERT_TRUE(group.perf_at_1.has_value());
  EXPECT_NEAR(*group.perf_at_1, (2.0 + 0.0) / 2.0, 1e-12);
  EXPECT_DOUBLE_EQ(group.gpu_seconds, 4.0);  // spent all the same
  int64_t counted = -1;
  for (const auto& [verdict, count] : group.verdict_counts)
    if (verdict == "not_judged") counted = count;
  EXPECT_EQ(counted, 2);

  auto only_unjudged = compute_group({episodes[3]}, true, "m", "w", kOverallSplit);
  EXPECT_EQ(only_unjudged.episodes, 0);
  EXPECT_EQ(only_unjudged.not_judged_episodes, 1);
  EXPECT_TRUE(only_unjudged.pass_at_k.empty());
  EXPECT_FALSE(only_unjudged.perf_at_1.has_value());
}

// Perf@1 vs best: where torch.compile beats the oracle, a candidate twice the oracle's speed is still slower than
// the best that was known, and the honest score says so.
TEST(PerfVsBest, ScoresAgainstTheFastestOfEagerCompileAndTheOracle) {
  auto episode = synthetic_episode("t/a", "standard", "m", "w", 0, "passed", 2.0);  // 5 us; oracle 10, eager 20
  episode.shapes[0].compile_us = 4.0;
  EXPECT_NEAR(*speedup_over_oracle(episode), 2.0, 1e-12);
  EXPECT_NEAR(*speedup_over_best(episode), 0.8, 1e-12);
  EXPECT_NEAR(*oracle_over_best_baseline(episode), 0.4, 1e-12);     // the oracle is the weak side: 4 / 10
  EXPECT_NEAR(*oracle_speed_of_light_fraction(episode), 0.5, 1e-12);  // floor 5 us over the oracle's 10
  auto no_baselines = episode;
  no_baselines.shapes[0].eager_us = no_baselines.shapes[0].compile_us = no_baselines.shapes[0].oracle_us = std::nullopt;
  EXPECT_FALSE(speedup_over_best(no_baselines).has_value());
  EXPECT_FALSE(oracle_over_best_baseline(no_baselines).has_value());

  auto group = compute_group({episode, synthetic_episode("t/b", "standard", "m", "w", 0, "wrong_answer", 3.0)}, true,
                             "m", "w", kOverallSplit);
  EXPECT_NEAR(*group.perf_at_1, (2.0 + 0.0) / 2.0, 1e-12);
  ASSERT_TRUE(group.perf_vs_best_at_1.has_value());
  EXPECT_NEAR(*group.perf_vs_best_at_1, (0.8 + 0.0) / 2.0, 1e-12);
  EXPECT_FALSE(compute_group({episode}, false, "m", "w", kOverallSplit).perf_vs_best_at_1.has_value());
}

TEST(PerfAt1, InterpreterRunsHaveNoPerformanceNumbers) {
  std::vector<results::EpisodeRecord> episodes = {synthetic_episode("t/a", "standard", "m", "w", 0, "passed", 2.0)};
  auto group = compute_group(episodes, false, "m", "w", kOverallSplit);
  EXPECT_FALSE(group.perf_at_1.has_value());
  EXPECT_FALSE(group.perf_at_1_interval.has_value());
  EXPECT_TRUE(group.fast_p.empty());
  EXPECT_FALSE(group.speed_of_light_percent.has_value());
  ASSERT_FALSE(group.pass_at_k.empty());
  EXPECT_DOUBLE_EQ(group.pass_at_k[0], 1.0);  // correctness is still measured
}

TEST(FastP, CountsPassingEpisodesStrictlyAboveEachThreshold) {
  std::vector<results::EpisodeRecord> episodes;
  // Speedups over eager are 2x the oracle speedups (eager 20 µs, oracle 10 µs); over compile 1.5x.
  for (double eager : {0.9, 1.0, 1.2, 1.6, 2.5})
    episodes.push_back(synthetic_episode("t/" + std::to_string(eager), "standard", "m", "w", 0, "passed", eager / 2));
  episodes.push_back(synthetic_episode("t/fail", "standard", "m", "w", 0, "wrong_answer", 1.5));  // 3x eager, failed
  auto group = compute_group(episodes, true, "m", "w", kOverallSplit);
  ASSERT_EQ(group.fast_p.size(), 4u);
  EXPECT_DOUBLE_EQ(group.fast_p[0].threshold, 0.0);
  EXPECT_NEAR(group.fast_p[0].over_eager, 5.0 / 6.0, 1e-12);
  EXPECT_NEAR(group.fast_p[1].over_eager, 2.0 / 6.0 + 1.0 / 6.0, 1e-12);  // 1.2, 1.6, 2.5; 1.0 is not > 1
  EXPECT_NEAR(group.fast_p[2].over_eager, 2.0 / 6.0, 1e-12);              // 1.6, 2.5
  EXPECT_NEAR(group.fast_p[3].over_eager, 1.0 / 6.0, 1e-12);              // 2.5
  // Over compile: 0.675, 0.75, 0.9, 1.2, 1.875.
  EXPECT_NEAR(group.fast_p[1].over_compile, 2.0 / 6.0, 1e-12);
  EXPECT_NEAR(group.fast_p[2].over_compile, 1.0 / 6.0, 1e-12);
  EXPECT_DOUBLE_EQ(group.fast_p[3].over_compile, 0.0);
}

TEST(SpeedOfLight, IsTheGeometricMeanOverPassingEpisodes) {
  // Speed of light 5 µs: a 1x candidate (10 µs) reaches 50%, a 0.25x one (40 µs) 12.5%.
  std::vector<results::EpisodeRecord> episodes = {
      synthetic_episode("t/a", "standard", "m", "w", 0, "passed", 1.0),
      synthetic_episode("t/b", "standard", "m", "w", 0, "passed", 0.25),
      synthetic_episode("t/c", "standard", "m", "w", 0, "timeout", 8.0)};
  auto group = compute_group(episodes, true, "m", "w", kOverallSplit);
  ASSERT_TRUE(group.speed_of_light_percent.has_value());
  EXPECT_NEAR(*group.speed_of_light_percent, 25.0, 1e-9);
}

TEST(Spending, IsPerPassingEpisode) {
  std::vector<results::EpisodeRecord> episodes = {
      synthetic_episode("t/a", "standard", "m", "w", 0, "passed"),
      synthetic_episode("t/b", "standard", "m", "w", 0, "compile_error"),
      synthetic_episode("t/c", "standard", "m", "w", 0, "compile_error")};
  auto group = compute_group(episodes, true, "m", "w", kOverallSplit);
  EXPECT_EQ(group.input_tokens + group.output_tokens, 4500);
  EXPECT_NEAR(*group.tokens_per_solve, 4500.0, 1e-9);
  EXPECT_NEAR(*group.dollars_per_solve, 0.03, 1e-12);
  EXPECT_NEAR(*group.gpu_seconds_per_solve, 6.0, 1e-12);
  auto unsolved = compute_group({episodes[1]}, true, "m", "w", kOverallSplit);
  EXPECT_FALSE(unsolved.dollars_per_solve.has_value());
}

TEST(FailureModes, CountEveryVerdictAndPassRateByAttempt) {
  std::vector<results::EpisodeRecord> episodes;
  for (auto [verdict, first_pass, attempts] : std::vector<std::tuple<std::string, int64_t, int64_t>>{
           {"passed", 1, 1}, {"passed", 3, 4}, {"flagged", 2, 2}, {"compile_error", 0, 4}, {"made_up", 0, 1}}) {
    auto episode = synthetic_episode("t/" + verdict + std::to_string(first_pass), "standard", "m", "w", 0, verdict);
    episode.first_passing_attempt = first_pass;
    episode.attempts = attempts;
    episodes.push_back(episode);
  }
  auto group = compute_group(episodes, false, "m", "w", kOverallSplit);
  auto count_of = [&](const std::string& verdict) {
    for (const auto& [name, count] : group.verdict_counts)
      if (name == verdict) return count;
    return int64_t{-1};
  };
  EXPECT_EQ(count_of("passed"), 2);
  EXPECT_EQ(count_of("flagged"), 1);
  EXPECT_EQ(count_of("compile_error"), 1);
  EXPECT_EQ(count_of("oom"), 0);  // every known verdict is listed
  EXPECT_EQ(count_of("made_up"), 1);
  EXPECT_EQ(group.verdict_counts.back().first, "made_up");
  EXPECT_EQ(group.passed_episodes, 2);  // flagged is not a pass
  ASSERT_EQ(group.pass_rate_by_attempt.size(), 4u);
  EXPECT_DOUBLE_EQ(group.pass_rate_by_attempt[0], 1.0 / 5);
  EXPECT_DOUBLE_EQ(group.pass_rate_by_attempt[1], 2.0 / 5);
  EXPECT_DOUBLE_EQ(group.pass_rate_by_attempt[2], 3.0 / 5);
  EXPECT_DOUBLE_EQ(group.pass_rate_by_attempt[3], 3.0 / 5);
}

TEST(Groups, ArePerSplitAndPerModelAndWorkflow) {
  auto episodes = test_data::synthetic_episodes();
  auto groups = compute_all_groups(test_data::synthetic_run(true), episodes);
  EXPECT_EQ(splits_in_report_order(episodes), (std::vector<std::string>{"overall", "standard", "ood"}));
  ASSERT_EQ(groups.size(), 12u);  // 3 splits x 4 (model, workflow)
  EXPECT_EQ(groups[0].split, "overall");
  EXPECT_EQ(groups[0].model, "model-a");
  EXPECT_EQ(groups[0].workflow, "one-shot");
  EXPECT_EQ(groups[0].episodes, 4);
  EXPECT_NEAR(groups[0].pass_at_k[0], 0.25, 1e-12);
  EXPECT_NEAR(groups[1].pass_at_k[1], 1.0, 1e-12);  // model-a/react pass@2
  EXPECT_EQ(groups[4].split, "standard");
  EXPECT_EQ(groups[4].episodes, 2);
  EXPECT_NEAR(groups[4].pass_at_k[0], 0.5, 1e-12);  // model-a/one-shot on standard: passed, wrong_answer
}

}  // namespace
}  // namespace tritongym::metrics
