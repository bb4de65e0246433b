#include "metrics/episode_speedups.hpp"

#include <vector>

#include "metrics/estimators.hpp"

namespace tritongym::metrics {
namespace {

using LatencyField = std::optional<double> results::ShapeRecord::*;

std::optional<double> ratio_to_candidate(const results::EpisodeRecord& episode, LatencyField baseline) {
  std::vector<double> ratios;
  for (const auto& shape : episode.shapes) {
    const auto& baseline_us = shape.*baseline;
    if (!baseline_us || !shape.candidate_us || *baseline_us <= 0.0 || *shape.candidate_us <= 0.0) continue;
    ratios.push_back(*baseline_us / *shape.candidate_us);
  }
  if (ratios.empty()) return std::nullopt;
  return geometric_mean(ratios);
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

}  // namespace tritongym::metrics
