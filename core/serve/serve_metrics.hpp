// What a server counts, and `GET /metrics` in Prometheus's text format (version 0.0.4): requests by status code,
// evaluations by verdict, how long they took, the GPU time they used. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace tritongym::serve {

// The gauges read from elsewhere when the page is written.
struct QueueGauges {
  size_t depth = 0;     // evaluations waiting for a worker
  size_t capacity = 0;  // how many may wait
  int64_t workers = 0;  // evaluations judged at once (0 while the executor starts)
};

class ServeMetrics {
 public:
  // Latency quantiles are over the last `window` evaluations (a sliding window); sum and count over all.
  explicit ServeMetrics(size_t window = 1024) : window_(window) {}

  void count_request(int status_code);
  // One finished evaluation: its verdict ("error" when the harness failed), the seconds it spent being judged
  // (from a worker taking it to its result; not its wait in the queue) and the GPU-seconds it used.
  void count_evaluation(const std::string& verdict, double seconds, double gpu_seconds);
  // The median of the window's evaluation seconds; nullopt before the first evaluation.
  std::optional<double> median_evaluation_seconds() const;

  std::string prometheus_text(const QueueGauges& gauges) const;

 private:
  double quantile_locked(double q) const;

  mutable std::mutex mutex_;
  size_t window_;
  std::map<int, uint64_t> requests_;
  std::map<std::string, uint64_t> evaluations_;
  std::deque<double> recent_seconds_;
  double seconds_sum_ = 0.0;
  uint64_t seconds_count_ = 0;
  double gpu_seconds_ = 0.0;
};

}  // namespace tritongym::serve
