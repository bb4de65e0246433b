#include "retry_timing.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <iomanip>
#include <sstream>

namespace tritongym::remote {

std::optional<double> retry_after_seconds(const std::map<std::string, std::string>& headers) {
  auto found = headers.find("retry-after");
  if (found == headers.end()) return std::nullopt;
  const std::string& text = found->second;
  if (!text.empty() && text.find_first_not_of("0123456789. ") == std::string::npos) {
    try {
      double seconds = std::stod(text);
      if (std::isfinite(seconds) && seconds >= 0.0) return seconds;
    } catch (const std::exception&) {
    }
    return std::nullopt;
  }
  std::tm when{};
  std::istringstream in(text);
  in >> std::get_time(&when, "%a, %d %b %Y %H:%M:%S");  // IMF-fixdate, always GMT
  if (in.fail()) return std::nullopt;
  const double seconds = std::difftime(timegm(&when), std::time(nullptr));
  return std::max(seconds, 0.0);
}

double backoff_seconds(int attempt, double initial_s, double max_s, std::mt19937& random) {
  const double exponential = initial_s * std::pow(2.0, std::clamp(attempt - 1, 0, 30));
  std::uniform_real_distribution<double> jitter(0.5, 1.0);
  return std::min(exponential, max_s) * jitter(random);
}

}  // namespace tritongym::remote
