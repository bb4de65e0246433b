// A run's report: the metrics of every group plus each episode's own numbers, built once from the
// store's records and rendered three ways (a terminal table, JSON, one self-contained HTML file).
// What each view shows: docs/report.md.
#pragma once

#include <boost/json/value.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "metrics/group_metrics.hpp"
#include "results/records.hpp"

namespace tritongym::report {

// One episode as the report shows it. The speedups are set only when the run reports performance.
struct EpisodeView {
  int64_t number = 0;  // 1-based; the HTML page's route is #episode/<number>
  results::EpisodeRecord record;
  std::optional<double> speedup_over_oracle;
  std::optional<double> speedup_over_eager;
  std::optional<double> speedup_over_compile;
  std::optional<double> speed_of_light_fraction;
  std::optional<double> speedup_over_best;  // over min(eager, compile, oracle) per shape
  // The candidate ran without the sandbox's full confinement (an "[unconfined]" warning on its final score):
  // its result stands, and every view marks it.
  bool unconfined = false;
};

// What a run's final scores say of one task's oracle (from the first episode whose shapes carry its timing):
// its fraction of the speed-of-light floor and its speedup over the best of eager, torch.compile and a DSL task's plain-Triton baseline (below 1:
// a baseline beats the oracle, and Perf@1 flatters every candidate of the task; Perf@1 vs best does not).
struct TaskOracleView {
  std::string task_id;
  std::string split;
  std::optional<double> speed_of_light_fraction;
  std::optional<double> over_best_baseline;
  // The bar of a task (docs/task-format.md): an oracle within 3% of the better baseline, or faster, and between
  // 45% and 100% of its floor. A weak oracle fails the first two; above 100%, the floor itself is wrong.
  bool weak() const {
    return (over_best_baseline && *over_best_baseline < 0.97) ||
           (speed_of_light_fraction && (*speed_of_light_fraction < 0.45 || *speed_of_light_fraction > 1.0));
  }
};

struct Report {
  results::RunInfo run;
  std::vector<std::string> splits;     // "overall" first, then the splits present (metrics order)
  std::vector<std::string> models;     // in order of first appearance
  std::vector<std::string> workflows;  // in order of first appearance
  std::vector<metrics::GroupMetrics> groups;  // split-major, as metrics::compute_all_groups
  std::vector<EpisodeView> episodes;          // by model, workflow, task, sample
  std::vector<TaskOracleView> task_oracles;   // by task id; only tasks with a timed oracle (empty off the GPU)

  // The group of one (split, model, workflow), or nullptr when it has no episode.
  const metrics::GroupMetrics* find_group(const std::string& split, const std::string& model,
                                          const std::string& workflow) const;
};

// Pure: computes every metric of the run (docs/metrics.md). The records are copied into the report.
Report build_report(const results::RunInfo& run, const std::vector<results::EpisodeRecord>& episodes);

// Plain-text leaderboard, cost and failure tables for a terminal; every line fits in 120 columns.
// Performance columns read "n/a" when the run does not report performance.
std::string render_terminal(const Report& report);

// Every metric and every episode's numbers (no transcripts, no code) as a JSON document; schema
// "tritongym.report.v1" (docs/report.md). Numbers that do not exist (Perf@1 on the interpreter) are null.
boost::json::value report_to_json(const Report& report);
std::string render_json(const Report& report);  // report_to_json, compact

// Loads one episode's transcript (the store's load_transcript). It may throw; the episode page then
// says the transcript could not be loaded, with the exception's message.
using TranscriptLoader = std::function<std::vector<results::TranscriptEntry>(const results::EpisodeKey&)>;

// One self-contained HTML file: inline CSS, JS and SVG, no network access (a Content-Security-Policy
// forbids it). Every string that came from the run is escaped. An empty loader leaves the
// transcripts out. Opened with #selftest the page checks its own sorting and routing and writes the
// result into #selftest-result (tests/integration/html_report_chromium_test.cpp).
std::string render_html(const Report& report, const TranscriptLoader& load_transcript);

// &, <, >, " and ' as character references: safe in HTML text and in quoted attribute values.
std::string html_escape(const std::string& text);

}  // namespace tritongym::report
