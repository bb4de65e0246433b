// How the report writes numbers, the same in the terminal and in HTML. "n/a" for what does not exist.
#pragma once

#include <optional>
#include <string>

#include "metrics/estimators.hpp"

namespace tritongym::report {

inline constexpr const char* kNotAvailable = "n/a";

std::string format_percent(std::optional<double> fraction);         // 0.625 -> "62.5"
std::string format_ratio(std::optional<double> ratio);              // 1.2345 -> "1.23"
std::string format_dollars(std::optional<double> dollars);          // "$0.0123", "$12.35"
std::string format_seconds(std::optional<double> seconds);          // "12.3"
std::string format_count(std::optional<double> count);              // 1234.6 -> "1235"
std::string format_percent_interval(std::optional<metrics::Interval> fractions);  // "[40.1,80.2]"
std::string format_ratio_interval(std::optional<metrics::Interval> ratios);       // "[0.95,1.50]"

}  // namespace tritongym::report
