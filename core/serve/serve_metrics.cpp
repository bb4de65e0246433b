#include "serve/serve_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace tritongym::serve {

void ServeMetrics::count_request(int status_code) {
  std::lock_guard lock(mutex_);
  ++requests_[status_code];
}

void ServeMetrics::count_evaluation(const std::string& verdict, double seconds, double gpu_seconds) {
  std::lock_guard lock(mutex_);
  ++evaluations_[verdict];
  recent_seconds_.push_back(seconds);
  if (recent_seconds_.size() > window_) recent_seconds_.pop_front();
  seconds_sum_ += seconds;
  ++seconds_count_;
  gpu_seconds_ += gpu_seconds;
}

double ServeMetrics::quantile_locked(double q) const {
  if (recent_seconds_.empty()) return std::nan("");
  std::vector<double> sorted(recent_seconds_.begin(), recent_seconds_.end());
  std::sort(sorted.begin(), sorted.end());
  // The nearest rank: the smallest value with at least q of the window at or below it.
  size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

std::optional<double> ServeMetrics::median_evaluation_seconds() const {
  std::lock_guard lock(mutex_);
  if (recent_seconds_.empty()) return std::nullopt;
  return quantile_locked(0.5);
}

std::string ServeMetrics::prometheus_text(const QueueGauges& gauges) const {
  std::lock_guard lock(mutex_);
  std::ostringstream out;
  out.precision(12);
  auto family = [&](const char* name, const char* type, const char* help) {
    out << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n";
  };
  family("tritongym_queue_depth", "gauge", "Evaluations waiting for a worker.");
  out << "tritongym_queue_depth " << gauges.depth << "\n";
  family("tritongym_queue_capacity", "gauge", "Evaluations that may wait before a request is answered 429.");
  out << "tritongym_queue_capacity " << gauges.capacity << "\n";
  family("tritongym_workers", "gauge", "Evaluations the executor judges at once (0 while it starts).");
  out << "tritongym_workers " << gauges.workers << "\n";
  family("tritongym_evaluations_total", "counter", "Finished evaluations by verdict (error: the harness failed).");
  for (const auto& [verdict, count] : evaluations_)
    out << "tritongym_evaluations_total{verdict=\"" << verdict << "\"} " << count << "\n";
  family("tritongym_evaluation_seconds", "summary",
         "Seconds an evaluation took from a worker taking it to its result (quantiles over the last evaluations).");
  for (const char* q : {"0.5", "0.9", "0.99"}) {
    double value = quantile_locked(std::stod(q));
    out << "tritongym_evaluation_seconds{quantile=\"" << q << "\"} ";
    if (std::isnan(value)) out << "NaN\n";
    else out << value << "\n";
  }
  out << "tritongym_evaluation_seconds_sum " << seconds_sum_ << "\n";
  out << "tritongym_evaluation_seconds_count " << seconds_count_ << "\n";
  family("tritongym_gpu_seconds_total", "counter", "GPU-seconds the judged candidates used.");
  out << "tritongym_gpu_seconds_total " << gpu_seconds_ << "\n";
  family("tritongym_requests_total", "counter", "HTTP requests answered, by status code.");
  for (const auto& [code, count] : requests_) out << "tritongym_requests_total{code=\"" << code << "\"} " << count << "\n";
  return out.str();
}

}  // namespace tritongym::serve
