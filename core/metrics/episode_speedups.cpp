#include "metrics/episode_speedups.hpp"

#include <initializer_list>
#include <vector>

#include "metrics/estimators.hpp"

namespace tritongym::metrics {
namespace {

using LatencyField = std::optional<double> results::ShapeRecord::*;

// The geometric mean over the shapes of numerator(shape) / denominator(shape), where both are known and positive.
template <typename Numerator, typename Denominator>
std::optional<double> geometric_mean_ratio(const results::EpisodeRecord& episode, Numerator numerator,
                                           Denominator denominator) {
  std::vector<double> ratios;
  for (const auto& shape : episode.shapes) {
    const std::optional<double> top = numerator(shape), bottom = denominator(shape);
    if (!top || !bottom || *top <= 0.0 || *bottom <= 0.0) continue;
    ratios.push_back(*top / *bottom);
  }
  if (ratios.empty()) return std::nullopt;
  return geometric_mean(ratios);
}

auto field(LatencyField latency) {
  return [latency](const results::ShapeRecord& shape) { return shape.*latency; };
}

std::optional<double> ratio_to_candidate(const results::EpisodeRecord& episode, LatencyField baseline) {
  return geometric_mean_ratio(episode, field(baseline), field(&results::ShapeRecord::candidate_us));
}

// The fastest of the given latencies of a shape that were measured (positive), or nullopt.
std::optional<double> fastest(const results::ShapeRecord& shape, std::initializer_list<LatencyField> latencies) {
  std::optional<double> best;
  for (LatencyField latency : latencies)
    if (const auto& us = shape.*latency; us && *us > 0.0 && (!best || *us < *best)) best = us;
  return best;
}

}  // namespace

std::optional<double> speedup_over_oracle(const results::EpisodeRecord& episode) {
  return ratio_to_candidate(episode, &results::ShapeRecord::oracle_us);
}
std::optional<double> speedup_over_eager(const results::EpisodeRecord& episode) {
  return ratio_to_candidate(episode, &results::ShapeRecord::eager_us);
}
std::optional<double> speedup_over_compile(const results::EpisodeRecord& episode) {
  return ratio_to_candidate(episode, &results::ShapeRecord::compile_us);
}
std::optional<double> speed_of_light_fraction(const results::EpisodeRecord& episode) {
  return ratio_to_candidate(episode, &results::ShapeRecord::speed_of_light_us);
}
std::optional<double> speedup_over_best(const results::EpisodeRecord& episode) {
  using S = results::ShapeRecord;
  return geometric_mean_ratio(
      episode, [](const S& shape) { return fastest(shape, {&S::eager_us, &S::compile_us, &S::triton_us, &S::oracle_us}); },
      field(&S::candidate_us));
}
std::optional<double> oracle_speed_of_light_fraction(const results::EpisodeRecord& episode) {
  using S = results::ShapeRecord;
  return geometric_mean_ratio(episode, field(&S::speed_of_light_us), field(&S::oracle_us));
}
std::optional<double> oracle_over_best_baseline(const results::EpisodeRecord& episode) {
  using S = results::ShapeRecord;
  return geometric_mean_ratio(
      episode, [](const S& shape) { return fastest(shape, {&S::eager_us, &S::compile_us, &S::triton_us}); },
      field(&S::oracle_us));
}

}  // namespace tritongym::metrics
