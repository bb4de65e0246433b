#include "metrics/estimators.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

namespace tritongym::metrics {

double pass_at_k(int64_t samples, int64_t correct, int64_t k) {
  if (samples < 1 || correct < 0 || correct > samples || k < 1 || k > samples)
    throw std::invalid_argument("pass@k needs 0 <= c <= n and 1 <= k <= n; got n=" + std::to_string(samples) +
                                " c=" + std::to_string(correct) + " k=" + std::to_string(k));
  if (samples - correct < k) return 1.0;
  // C(n-c, k) / C(n, k) = prod_{i=n-c+1}^{n} (1 - k/i), the form of the paper's reference code.
  double all_fail = 1.0;
  for (int64_t i = samples - correct + 1; i <= samples; ++i) all_fail *= 1.0 - static_cast<double>(k) / i;
  return 1.0 - all_fail;
}

Interval wilson_interval(int64_t successes, int64_t trials, double z) {
  if (trials <= 0) return {0.0, 1.0};
  const double n = static_cast<double>(trials);
  const double p = static_cast<double>(successes) / n;
  const double z2 = z * z;
  const double denominator = 1.0 + z2 / n;
  const double center = (p + z2 / (2.0 * n)) / denominator;
  const double half_width = z * std::sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denominator;
  return {std::max(0.0, center - half_width), std::min(1.0, center + half_width)};
}

namespace {

// A uniform index in [0, bound) by rejection, as OpenBSD's arc4random_uniform: no modulo bias.
uint64_t draw_index(std::mt19937_64& generator, uint64_t bound) {
  const uint64_t threshold = (0 - bound) % bound;  // 2^64 mod bound
  for (;;) {
    const uint64_t value = generator();
    if (value >= threshold) return value % bound;
  }
}

double quantile_of_sorted(const std::vector<double>& sorted, double q) {
  // Linear interpolation between closest ranks (numpy's default "linear").
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<size_t>(std::floor(position));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * fraction;
}

}  // namespace

Interval bootstrap_mean_interval(const std::vector<double>& values, uint64_t seed, int resamples,
                                 double confidence) {
  if (values.empty() || resamples < 1) return {0.0, 0.0};
  std::mt19937_64 generator(seed);
  std::vector<double> means;
  means.reserve(static_cast<size_t>(resamples));
  for (int r = 0; r < resamples; ++r) {
    double sum = 0.0;
    for (size_t i = 0; i < values.size(); ++i) sum += values[draw_index(generator, values.size())];
    means.push_back(sum / static_cast<double>(values.size()));
  }
  std::sort(means.begin(), means.end());
  return {quantile_of_sorted(means, (1.0 - confidence) / 2.0), quantile_of_sorted(means, (1.0 + confidence) / 2.0)};
}

double geometric_mean(const std::vector<double>& positive_values) {
  if (positive_values.empty()) return 0.0;
  double log_sum = 0.0;
  for (double value : positive_values) log_sum += std::log(value);
  return std::exp(log_sum / static_cast<double>(positive_values.size()));
}

}  // namespace tritongym::metrics
