// The statistics behind the metrics, as plain functions over numbers: the unbiased pass@k estimator,
// the Wilson interval and a percentile bootstrap. Sources and formulas: docs/metrics.md.
#pragma once

#include <cstdint>
#include <vector>

namespace tritongym::metrics {

// A two-sided confidence interval.
struct Interval {
  double low = 0.0;
  double high = 0.0;
};

// Chen et al. 2021 ("Evaluating Large Language Models Trained on Code"), per task:
// 1 - C(n-c, k) / C(n, k), the chance that at least one of k samples drawn without replacement from the
// n samples (c of them correct) is correct. Computed as a product, so large n does not overflow.
// Requires 0 <= c <= n and 1 <= k <= n; throws std::invalid_argument otherwise.
double pass_at_k(int64_t samples, int64_t correct, int64_t k);

// Wilson score interval for a binomial proportion (Wilson 1927); z = 1.96 is 95%.
// Zero trials give [0, 1]: nothing is known.
Interval wilson_interval(int64_t successes, int64_t trials, double z = 1.96);

// Percentile bootstrap of the mean (Efron 1979): `resamples` means of samples drawn with replacement,
// then the (1-confidence)/2 and (1+confidence)/2 quantiles. Deterministic for a given seed, on every
// standard library (the generator and the index draw are both specified here, not by the library).
// An empty input gives [0, 0].
Interval bootstrap_mean_interval(const std::vector<double>& values, uint64_t seed, int resamples = 2000,
                                 double confidence = 0.95);

// exp(mean(log x)) over the positive values; 0 values are not allowed (a failure scores 0 elsewhere).
double geometric_mean(const std::vector<double>& positive_values);

}  // namespace tritongym::metrics
