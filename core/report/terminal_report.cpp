// The terminal view: a leaderboard per split, then cost and failure modes over all splits.
#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "report/number_format.hpp"
#include "report/report.hpp"

namespace tritongym::report {
namespace {

constexpr size_t kModelWidth = 20;
constexpr size_t kWorkflowWidth = 14;

std::string fit(const std::string& text, size_t width) {
  return text.size() <= width ? text : text.substr(0, width - 1) + "~";
}

// Columns padded to the widest cell, two spaces apart; the first two (names) left-aligned, numbers right.
void write_table(std::ostringstream& out, const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths(header.size(), 0);
  for (size_t i = 0; i < header.size(); ++i) widths[i] = header[i].size();
  for (const auto& row : rows)
    for (size_t i = 0; i < row.size() && i < widths.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  auto emit = [&](const std::vector<std::string>& row) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      const std::string padding(widths[i] - row[i].size(), ' ');
      line += i < 2 ? row[i] + padding : padding + row[i];
      if (i + 1 < row.size()) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  };
  emit(header);
  for (const auto& row : rows) emit(row);
}

std::vector<std::string> name_cells(const metrics::GroupMetrics& group) {
  return {fit(group.model, kModelWidth), fit(group.workflow, kWorkflowWidth)};
}

void write_header(std::ostringstream& out, const Report& report) {
  const auto& run = report.run;
  out << "TritonGym run " << (run.name.empty() ? run.run_id : run.name);
  if (!run.name.empty() && !run.run_id.empty()) out << " (" << run.run_id << ")";
  out << "\n";
  out << "status " << run.status << ", " << report.episodes.size() << " of " << run.planned_episodes
      << " planned episodes, executor " << (run.executor.empty() ? "unknown" : run.executor) << "\n";
  if (!run.reports_performance)
    out << "Perf@1, fast_p and speed-of-light: n/a (this executor does not measure performance)\n";
}

void write_leaderboard(std::ostringstream& out, const Report& report, const std::string& split) {
  int64_t episodes = 0;
  std::vector<std::vector<std::string>> rows;
  for (const auto& group : report.groups) {
    if (group.split != split) continue;
    episodes += group.episodes;
    auto row = name_cells(group);
    const bool has_k = group.pass_at_k.size() > 1;
    row.push_back(std::to_string(group.episodes));
    row.push_back(format_percent(group.pass_at_k.empty() ? std::nullopt : std::optional(group.pass_at_k[0])));
    row.push_back(format_percent_interval(group.pass_rate_interval));
    row.push_back(has_k ? format_percent(group.pass_at_k.back()) + " k=" + std::to_string(group.pass_at_k.size())
                        : std::string(kNotAvailable));
    row.push_back(format_ratio(group.perf_at_1));
    row.push_back(format_ratio_interval(group.perf_at_1_interval));
    row.push_back(format_ratio(group.perf_vs_best_at_1));
    const bool has_fast = group.fast_p.size() > 1;
    row.push_back(has_fast ? format_percent(group.fast_p[1].over_eager) : kNotAvailable);
    row.push_back(format_percent(group.speed_of_light_percent
                                     ? std::optional(*group.speed_of_light_percent / 100.0)
                                     : std::nullopt));
    rows.push_back(std::move(row));
  }
  out << "\n" << (split == metrics::kOverallSplit ? "all splits" : "split " + split) << " (" << episodes
      << " episodes)\n";
  write_table(out, {"model", "workflow", "eps", "Pass@1%", "95% CI", "Pass@k%", "Perf@1", "95% CI", "vs best", "fast1%",
                    "SoL%"},
              rows);
}

void write_cost(std::ostringstream& out, const Report& report) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& group : report.groups) {
    if (group.split != metrics::kOverallSplit) continue;
    auto row = name_cells(group);
    row.push_back(std::to_string(group.passed_episodes));
    row.push_back(std::to_string(group.input_tokens + group.output_tokens));
    row.push_back(format_dollars(group.dollars));
    row.push_back(format_seconds(group.gpu_seconds));
    row.push_back(format_count(group.tokens_per_solve));
    row.push_back(format_dollars(group.dollars_per_solve));
    row.push_back(format_seconds(group.gpu_seconds_per_solve));
    rows.push_back(std::move(row));
  }
  out << "\ncost (per solve: per passing episode)\n";
  write_table(out, {"model", "workflow", "solved", "tokens", "dollars", "GPU-s", "tok/solve", "$/solve", "GPU-s/solve"},
              rows);
}

void write_failure_modes(std::ostringstream& out, const Report& report) {
  static const std::vector<std::pair<std::string, std::string>> columns = {
      {"passed", "pass"},   {"compile_error", "compile"}, {"wrong_answer", "wrong"}, {"timeout", "timeout"},
      {"runtime_error", "runtime"}, {"crash", "crash"},   {"oom", "oom"},          {"flagged", "flagged"},
      {"no_code", "no_code"}, {"harness_error", "harness"}, {"not_judged", "unjudged"}};
  std::vector<std::string> header = {"model", "workflow"};
  for (const auto& [verdict, label] : columns) header.push_back(label);
  header.push_back("other");
  std::vector<std::vector<std::string>> rows;
  for (const auto& group : report.groups) {
    if (group.split != metrics::kOverallSplit) continue;
    auto row = name_cells(group);
    int64_t other = 0;
    for (const auto& [verdict, count] : group.verdict_counts) {
      auto known = std::find_if(columns.begin(), columns.end(), [&](const auto& c) { return c.first == verdict; });
      if (known == columns.end()) other += count;
    }
    for (const auto& [verdict, label] : columns) {
      auto found = std::find_if(group.verdict_counts.begin(), group.verdict_counts.end(),
                                [&](const auto& entry) { return entry.first == verdict; });
      row.push_back(std::to_string(found == group.verdict_counts.end() ? 0 : found->second));
    }
    row.push_back(std::to_string(other));
    rows.push_back(std::move(row));
  }
  out << "\nverdicts (flagged counts as a failure)\n";
  write_table(out, header, rows);
}

void write_weak_oracles(std::ostringstream& out, const Report& report) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& task : report.task_oracles)
    if (task.weak())
      rows.push_back({task.task_id, format_ratio(task.over_best_baseline), format_percent(task.speed_of_light_fraction)});
  if (report.task_oracles.empty()) return;
  out << "\noracles off the bar (over 3% slower than eager or torch.compile, or outside 45-100% of the floor): "
      << rows.size() << " of " << report.task_oracles.size() << " timed tasks\n";
  if (!rows.empty()) write_table(out, {"task", "oracle vs best baseline", "oracle SoL%"}, rows);
}

// Results judged without the sandbox's full confinement (sandbox: best_effort): listed, so that no reader takes
// them for confined ones.
void write_unconfined(std::ostringstream& out, const Report& report) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& view : report.episodes)
    if (view.unconfined)
      rows.push_back({std::to_string(view.number), view.record.key.task_id, view.record.key.model, view.record.verdict});
  if (rows.empty()) return;
  out << "\nunconfined: " << rows.size() << " of " << report.episodes.size()
      << " final scores ran without the sandbox's full confinement (sandbox: best_effort)\n";
  write_table(out, {"episode", "task", "model", "verdict"}, rows);
}

}  // namespace

std::string render_terminal(const Report& report) {
  std::ostringstream out;
  write_header(out, report);
  if (report.episodes.empty()) {
    out << "\nno finished episodes yet\n";
    return out.str();
  }
  // With one split, its table would repeat the overall one.
  for (const auto& split : report.splits)
    if (split == metrics::kOverallSplit || report.splits.size() > 2) write_leaderboard(out, report, split);
  write_cost(out, report);
  write_failure_modes(out, report);
  write_weak_oracles(out, report);
  write_unconfined(out, report);
  return out.str();
}

}  // namespace tritongym::report
