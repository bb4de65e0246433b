#include "report/svg_plots.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/number_format.hpp"

namespace tritongym::report {
namespace {

constexpr double kWidth = 640.0;

std::vector<const metrics::GroupMetrics*> overall_series(const Report& report) {
  std::vector<const metrics::GroupMetrics*> series;
  for (const auto& group : report.groups)
    if (group.split == metrics::kOverallSplit) series.push_back(&group);
  return series;
}

std::string label(const metrics::GroupMetrics& group) { return group.model + " \xC2\xB7 " + group.workflow; }

std::string open_svg(double height, const std::string& title) {
  return fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" )"
                     R"(role="img" font-size="11" font-family="sans-serif"><title>{2}</title>)",
                     kWidth, height, html_escape(title));
}

std::string text(double x, double y, const std::string& content, const char* anchor = "start") {
  return fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="{}">{}</text>)", x, y, anchor, html_escape(content));
}

std::string line(double x1, double y1, double x2, double y2, const char* stroke, const char* extra = "") {
  return fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" {}/>)", x1, y1, x2, y2,
                     stroke, extra);
}

std::string empty_plot(const std::string& title, const std::string& reason) {
  return open_svg(60, title) + text(10, 34, reason) + "</svg>";
}

}  // namespace

const char* series_colour(size_t series_index) {
  static const char* palette[] = {"#2d5bd7", "#d9480f", "#2b8a3e", "#862e9c", "#c2255c",
                                  "#0b7285", "#e67700", "#5c940d", "#364fc7", "#495057"};
  return palette[series_index % (sizeof(palette) / sizeof(palette[0]))];
}

std::string speedup_distribution_svg(const Report& report) {
  const std::string title = "Speedup over the oracle, passing episodes";
  if (!report.run.reports_performance)
    return empty_plot(title, "n/a: this run's executor does not measure performance");
  const auto series = overall_series(report);
  const double left = 190, right = kWidth - 20, top = 14, row_height = 26;
  const double height = top + row_height * static_cast<double>(series.size()) + 36;
  const double low = std::log2(0.125), high = std::log2(8.0);
  auto x_of = [&](double speedup) {
    const double clamped = std::clamp(std::log2(speedup), low, high);
    return left + (clamped - low) / (high - low) * (right - left);
  };
  std::string svg = open_svg(height, title);
  const double axis_y = top + row_height * static_cast<double>(series.size()) + 4;
  for (double tick : {0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0}) {
    svg += line(x_of(tick), top, x_of(tick), axis_y, tick == 1.0 ? "#888" : "#e3e6ec");
    svg += text(x_of(tick), axis_y + 14, fmt::format("{:g}x", tick), "middle");
  }
  for (size_t index = 0; index < series.size(); ++index) {
    const auto& group = *series[index];
    const double y = top + row_height * (static_cast<double>(index) + 0.5);
    svg += text(left - 8, y + 4, label(group), "end");
    int64_t dot = 0;
    for (const auto& episode : report.episodes) {
      const auto& record = episode.record;
      if (record.key.model != group.model || record.key.workflow != group.workflow || !record.passed() ||
          !episode.speedup_over_oracle)
        continue;
      svg += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="4" fill="{}" fill-opacity="0.6"><title>{}</title></circle>)",
                         x_of(*episode.speedup_over_oracle), y + static_cast<double>(dot++ % 5 - 2) * 2.5,
                         series_colour(index),
                         html_escape(record.key.task_id + ": " + format_ratio(episode.speedup_over_oracle) + "x"));
    }
  }
  return svg + text(left, height - 4, "speedup (oracle latency / candidate latency), log scale") + "</svg>";
}

std::string pass_rate_by_attempt_svg(const Report& report) {
  const std::string title = "Pass rate by attempt";
  const auto series = overall_series(report);
  size_t attempts = 0;
  for (const auto* group : series) attempts = std::max(attempts, group->pass_rate_by_attempt.size());
  if (attempts == 0) return empty_plot(title, "no episode made an evaluation attempt");
  const double left = 50, right = kWidth - 20, top = 12, bottom = 230, height = 262;
  auto x_of = [&](size_t attempt) {
    return attempts == 1 ? (left + right) / 2
                         : left + static_cast<double>(attempt - 1) / static_cast<double>(attempts - 1) * (right - left);
  };
  auto y_of = [&](double rate) { return bottom - rate * (bottom - top); };
  std::string svg = open_svg(height, title);
  for (double rate : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    svg += line(left, y_of(rate), right, y_of(rate), "#e3e6ec");
    svg += text(left - 6, y_of(rate) + 4, fmt::format("{:.0f}%", rate * 100), "end");
  }
  const size_t step = std::max<size_t>(1, attempts / 10);
  for (size_t attempt = 1; attempt <= attempts; attempt += step)
    svg += text(x_of(attempt), bottom + 16, std::to_string(attempt), "middle");
  for (size_t index = 0; index < series.size(); ++index) {
    const auto& rates = series[index]->pass_rate_by_attempt;
    std::string points;
    for (size_t attempt = 1; attempt <= attempts; ++attempt) {
      // After its last attempt a series stays where it ended.
      const double rate = rates.empty() ? 0.0 : rates[std::min(attempt, rates.size()) - 1];
      points += fmt::format("{:.1f},{:.1f} ", x_of(attempt), y_of(rate));
    }
    svg += fmt::format(R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="2"><title>{}</title></polyline>)",
                       points, series_colour(index), html_escape(label(*series[index])));
  }
  return svg + text(left, height - 4, "attempt (evaluation tool calls, in order)") + "</svg>";
}

std::string perf_versus_dollars_svg(const Report& report) {
  const bool performance = report.run.reports_performance;
  const std::string title = performance ? "Perf@1 vs dollars per episode"
                                        : "Pass@1 vs dollars per episode (Perf@1 n/a on this executor)";
  const auto series = overall_series(report);
  if (series.empty()) return empty_plot(title, "no episodes");
  auto y_value = [&](const metrics::GroupMetrics& group) -> std::optional<double> {
    if (performance) return group.perf_at_1;
    return group.pass_at_k.empty() ? std::nullopt : std::optional(group.pass_at_k[0]);
  };
  auto x_value = [](const metrics::GroupMetrics& group) {
    return group.episodes ? group.dollars / static_cast<double>(group.episodes) : 0.0;
  };
  double x_max = 0.0, y_max = performance ? 1.2 : 1.0;
  for (const auto* group : series) {
    x_max = std::max(x_max, x_value(*group));
    if (auto y = y_value(*group)) y_max = std::max(y_max, *y * 1.1);
  }
  if (x_max <= 0.0) x_max = 1.0;
  x_max *= 1.1;
  const double left = 50, right = kWidth - 20, top = 12, bottom = 230, height = 262;
  auto x_of = [&](double dollars) { return left + dollars / x_max * (right - left); };
  auto y_of = [&](double value) { return bottom - value / y_max * (bottom - top); };
  std::string svg = open_svg(height, title);
  for (int tick = 0; tick <= 4; ++tick) {
    const double value = y_max * tick / 4.0;
    svg += line(left, y_of(value), right, y_of(value), "#e3e6ec");
    svg += text(left - 6, y_of(value) + 4, performance ? fmt::format("{:.2f}", value) : fmt::format("{:.0f}%", value * 100),
                "end");
    const double dollars = x_max * tick / 4.0;
    svg += text(x_of(dollars), bottom + 16, format_dollars(dollars), "middle");
  }
  for (size_t index = 0; index < series.size(); ++index) {
    const auto y = y_value(*series[index]);
    if (!y) continue;
    svg += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="6" fill="{}"><title>{}</title></circle>)",
                       x_of(x_value(*series[index])), y_of(*y), series_colour(index),
                       html_escape(label(*series[index]) + ": " + (performance ? format_ratio(y) : format_percent(y) + "%") +
                                   ", " + format_dollars(x_value(*series[index])) + " per episode"));
  }
  return svg + text(left, height - 4, "dollars per episode") + "</svg>";
}

}  // namespace tritongym::report
