// Per-episode performance ratios from the final score's shapes. Each is a geometric mean over the
// shapes where both latencies exist; nullopt when no shape has both. Ratios > 1 mean the candidate
// is faster. They say nothing about correctness: callers decide what a failure scores.
#pragma once

#include <optional>

#include "results/records.hpp"

namespace tritongym::metrics {

// oracle_us / candidate_us: the speedup Perf@1 averages (1.0 = as fast as the task's oracle).
std::optional<double> speedup_over_oracle(const results::EpisodeRecord& episode);
// eager_us / candidate_us: PyTorch eager, the reference implementation (fast_p over eager).
std::optional<double> speedup_over_eager(const results::EpisodeRecord& episode);
// compile_us / candidate_us: torch.compile of the reference (fast_p over torch.compile).
std::optional<double> speedup_over_compile(const results::EpisodeRecord& episode);
// speed_of_light_us / candidate_us: the fraction of the roofline floor reached (1.0 = at the floor).
std::optional<double> speed_of_light_fraction(const results::EpisodeRecord& episode);
// min(eager_us, compile_us, triton_us, oracle_us) / candidate_us per shape: the speedup over the best that was known for the
// shape, so that a weak oracle inflates nothing (Perf@1 vs best). Shapes with no baseline are left out.
std::optional<double> speedup_over_best(const results::EpisodeRecord& episode);

// What the episode's shapes say of the task's oracle itself: speed_of_light_us / oracle_us (its fraction of the
// floor) and min(eager_us, compile_us, triton_us) / oracle_us (below 1: the oracle is slower than a baseline there).
std::optional<double> oracle_speed_of_light_fraction(const results::EpisodeRecord& episode);
std::optional<double> oracle_over_best_baseline(const results::EpisodeRecord& episode);

}  // namespace tritongym::metrics
