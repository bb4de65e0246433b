#include "report/number_format.hpp"

#include <fmt/format.h>

#include <cmath>

namespace tritongym::report {

std::string format_percent(std::optional<double> fraction) {
  return fraction ? fmt::format("{:.1f}", *fraction * 100.0) : kNotAvailable;
}

std::string format_ratio(std::optional<double> ratio) { return ratio ? fmt::format("{:.2f}", *ratio) : kNotAvailable; }

std::string format_dollars(std::optional<double> dollars) {
  if (!dollars) return kNotAvailable;
  return std::fabs(*dollars) < 1.0 ? fmt::format("${:.4f}", *dollars) : fmt::format("${:.2f}", *dollars);
}

std::string format_seconds(std::optional<double> seconds) {
  return seconds ? fmt::format("{:.1f}", *seconds) : kNotAvailable;
}

std::string format_count(std::optional<double> count) {
  return count ? fmt::format("{:.0f}", *count) : kNotAvailable;
}

std::string format_percent_interval(std::optional<metrics::Interval> fractions) {
  if (!fractions) return kNotAvailable;
  return fmt::format("[{:.1f},{:.1f}]", fractions->low * 100.0, fractions->high * 100.0);
}

std::string format_ratio_interval(std::optional<metrics::Interval> ratios) {
  if (!ratios) return kNotAvailable;
  return fmt::format("[{:.2f},{:.2f}]", ratios->low, ratios->high);
}

}  // namespace tritongym::report
