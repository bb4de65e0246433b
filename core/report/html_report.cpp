// The HTML view: one self-contained file. Everything is rendered here, as escaped text; the inline
// script only sorts, switches tabs and routes between views, so no string from the run ever reaches
// a script or innerHTML.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <exception>

#include "report/html_assets.hpp"
#include "report/number_format.hpp"
#include "report/report.hpp"
#include "report/svg_plots.hpp"

namespace tritongym::report {

std::string html_escape(const std::string& text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': escaped += "&amp;"; break;
      case '<': escaped += "&lt;"; break;
      case '>': escaped += "&gt;"; break;
      case '"': escaped += "&quot;"; break;
      case '\'': escaped += "&#39;"; break;
      default: escaped += c;
    }
  }
  return escaped;
}

namespace {

const std::vector<std::string> kSplitTabs = {metrics::kOverallSplit, "standard", "ood", "community", "dsl"};

// A fragment of an element id: the report's own ids must not depend on what a split is called.
std::string id_fragment(const std::string& name) {
  std::string fragment;
  for (char c : name) fragment += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '-';
  return fragment;
}

std::string number_attribute(std::optional<double> value) {
  return value && std::isfinite(*value) ? fmt::format("{:.17g}", *value) : "";
}

struct Column {
  std::string label;
  std::string key;
  bool numeric = true;
};

std::string table_head(const std::vector<Column>& columns) {
  std::string html = "<thead><tr>";
  for (const auto& column : columns)
    html += fmt::format(R"(<th data-key="{}" data-type="{}"{}>{}</th>)", column.key,
                        column.numeric ? "number" : "text", column.numeric ? "" : R"( class="text")",
                        html_escape(column.label));
  return html + "</tr></thead>";
}

std::string text_cell(const std::string& text) { return "<td class=\"text\">" + html_escape(text) + "</td>"; }

std::string number_cell(const std::string& shown, std::optional<double> value) {
  return fmt::format(R"(<td data-value="{}">{}</td>)", number_attribute(value), html_escape(shown));
}

std::optional<double> pass_at_1(const metrics::GroupMetrics& group) {
  return group.pass_at_k.empty() ? std::nullopt : std::optional(group.pass_at_k[0]);
}

std::optional<double> fast_p_at(const metrics::GroupMetrics& group, double threshold, bool over_compile) {
  for (const auto& entry : group.fast_p)
    if (entry.threshold == threshold) return over_compile ? entry.over_compile : entry.over_eager;
  return std::nullopt;
}

std::string verdict_class(const std::string& verdict) {
  return verdict == "passed" ? "verdict-passed" : "verdict-failed";
}

std::string leaderboard_table(const Report& report, const std::string& split) {
  const std::vector<Column> columns = {
      {"Model", "model", false},          {"Workflow", "workflow", false},  {"Episodes", "episodes"},
      {"Tasks", "tasks"},                 {"Pass@1 %", "pass_at_1"},        {"95% CI", "pass_at_1_ci"},
      {"Pass@k %", "pass_at_k"},          {"Perf@1", "perf_at_1"},          {"95% CI", "perf_at_1_ci"},
      {"Perf@1 vs best", "perf_vs_best"}, {"fast₁ eager %", "fast_1_eager"},  {"fast₁ compile %", "fast_1_compile"}, {"SoL %", "speed_of_light"},
      {"$ / solve", "dollars_per_solve"}};
  std::string html = fmt::format(R"(<table class="sortable leaderboard" id="leaderboard-{}">)", id_fragment(split)) +
                     table_head(columns) + "<tbody>";
  for (const auto& group : report.groups) {
    if (group.split != split) continue;
    const std::optional<double> pass_at_k =
        group.pass_at_k.size() > 1 ? std::optional(group.pass_at_k.back()) : std::nullopt;
    html += "<tr>" + text_cell(group.model) + text_cell(group.workflow) +
            number_cell(std::to_string(group.episodes), group.episodes) +
            number_cell(std::to_string(group.tasks), group.tasks) +
            number_cell(format_percent(pass_at_1(group)), pass_at_1(group)) +
            number_cell(format_percent_interval(group.pass_rate_interval), group.pass_rate_interval.low) +
            number_cell(pass_at_k ? format_percent(pass_at_k) + " (k=" + std::to_string(group.pass_at_k.size()) + ")"
                                  : kNotAvailable,
                        pass_at_k) +
            number_cell(format_ratio(group.perf_at_1), group.perf_at_1) +
            number_cell(format_ratio_interval(group.perf_at_1_interval),
                        group.perf_at_1_interval ? std::optional(group.perf_at_1_interval->low) : std::nullopt) +
            number_cell(format_ratio(group.perf_vs_best_at_1), group.perf_vs_best_at_1) +
            number_cell(format_percent(fast_p_at(group, 1.0, false)), fast_p_at(group, 1.0, false)) +
            number_cell(format_percent(fast_p_at(group, 1.0, true)), fast_p_at(group, 1.0, true)) +
            number_cell(format_percent(group.speed_of_light_percent ? std::optional(*group.speed_of_light_percent / 100)
                                                                    : std::nullopt),
                        group.speed_of_light_percent) +
            number_cell(format_dollars(group.dollars_per_solve), group.dollars_per_solve) + "</tr>";
  }
  return html + "</tbody></table>";
}

// Rows are models, columns workflows: down a column one workflow across models, along a row one
// model across workflows.
std::string matrix_table(const Report& report, const std::string& split) {
  std::string html = fmt::format(R"(<table class="matrix" id="matrix-{}"><thead><tr><th>model \ workflow</th>)",
                                 id_fragment(split));
  for (const auto& workflow : report.workflows) html += "<th>" + html_escape(workflow) + "</th>";
  html += "</tr></thead><tbody>";
  for (const auto& model : report.models) {
    html += "<tr><th class=\"text\">" + html_escape(model) + "</th>";
    for (const auto& workflow : report.workflows) {
      const auto* group = report.find_group(split, model, workflow);
      if (!group) {
        html += "<td class=\"note\">—</td>";
        continue;
      }
      html += fmt::format(R"(<td><span class="metric">Pass@1 {}%</span><span class="metric">Perf@1 {}</span></td>)",
                          format_percent(pass_at_1(*group)), format_ratio(group->perf_at_1));
    }
    html += "</tr>";
  }
  return html + "</tbody></table>";
}

std::string split_tabs_and_panels(const Report& report) {
  std::vector<std::string> tabs = kSplitTabs;
  for (const auto& split : report.splits)
    if (std::find(tabs.begin(), tabs.end(), split) == tabs.end()) tabs.push_back(split);
  std::string html = R"(<div class="tabs" role="tablist">)";
  for (const auto& split : tabs) {
    const bool present = std::find(report.splits.begin(), report.splits.end(), split) != report.splits.end();
    html += fmt::format(R"(<button type="button" role="tab" data-split-tab="{0}" aria-selected="false"{1}>{0}</button>)",
                        html_escape(split), present ? "" : R"( disabled title="no episodes in this split")");
  }
  html += "</div>";
  for (const auto& split : report.splits) {
    html += fmt::format(R"(<div class="split-panel" data-split-panel="{}">)", html_escape(split));
    html += leaderboard_table(report, split);
    html += "<h3>Model × workflow</h3><p class=\"note\">Rows are models, columns workflows: a row is one model "
            "across workflows, a column one workflow across models.</p>" +
            matrix_table(report, split) + "</div>";
  }
  return html;
}

std::string cost_table(const Report& report) {
  const std::vector<Column> columns = {
      {"Model", "model", false}, {"Workflow", "workflow", false}, {"Solved", "solved"},
      {"Input tokens", "input_tokens"}, {"Output tokens", "output_tokens"}, {"Dollars", "dollars"},
      {"GPU-s", "gpu_seconds"}, {"Wall-s", "wall_seconds"}, {"Tokens / solve", "tokens_per_solve"},
      {"$ / solve", "dollars_per_solve"}, {"GPU-s / solve", "gpu_seconds_per_solve"}};
  std::string html = R"(<table class="sortable" id="cost-table">)" + table_head(columns) + "<tbody>";
  for (const auto& group : report.groups) {
    if (group.split != metrics::kOverallSplit) continue;
    html += "<tr>" + text_cell(group.model) + text_cell(group.workflow) +
            number_cell(std::to_string(group.passed_episodes), group.passed_episodes) +
            number_cell(std::to_string(group.input_tokens), group.input_tokens) +
            number_cell(std::to_string(group.output_tokens), group.output_tokens) +
            number_cell(format_dollars(group.dollars), group.dollars) +
            number_cell(format_seconds(group.gpu_seconds), group.gpu_seconds) +
            number_cell(format_seconds(group.wall_seconds), group.wall_seconds) +
            number_cell(format_count(group.tokens_per_solve), group.tokens_per_solve) +
            number_cell(format_dollars(group.dollars_per_solve), group.dollars_per_solve) +
            number_cell(format_seconds(group.gpu_seconds_per_solve), group.gpu_seconds_per_solve) + "</tr>";
  }
  return html + "</tbody></table>";
}

std::string fast_p_table(const Report& report) {
  std::vector<Column> columns = {{"Model", "model", false}, {"Workflow", "workflow", false}};
  for (double p : metrics::kFastPThresholds) {
    columns.push_back({fmt::format("fast_{:g} eager %", p), fmt::format("fast_{:g}_eager", p)});
    columns.push_back({fmt::format("fast_{:g} compile %", p), fmt::format("fast_{:g}_compile", p)});
  }
  std::string html = R"(<table class="sortable" id="fast-p-table">)" + table_head(columns) + "<tbody>";
  for (const auto& group : report.groups) {
    if (group.split != metrics::kOverallSplit) continue;
    html += "<tr>" + text_cell(group.model) + text_cell(group.workflow);
    for (double p : metrics::kFastPThresholds)
      for (bool over_compile : {false, true})
        html += number_cell(format_percent(fast_p_at(group, p, over_compile)), fast_p_at(group, p, over_compile));
    html += "</tr>";
  }
  return html + "</tbody></table>";
}

std::string verdict_table(const Report& report) {
  std::vector<std::string> verdicts = metrics::known_failure_verdicts();
  for (const auto& group : report.groups)
    for (const auto& [verdict, count] : group.verdict_counts)
      if (std::find(verdicts.begin(), verdicts.end(), verdict) == verdicts.end()) verdicts.push_back(verdict);
  std::vector<Column> columns = {{"Model", "model", false}, {"Workflow", "workflow", false}};
  for (const auto& verdict : verdicts) columns.push_back({verdict, "verdict-" + id_fragment(verdict)});
  std::string html = R"(<table class="sortable" id="verdict-table">)" + table_head(columns) + "<tbody>";
  for (const auto& group : report.groups) {
    if (group.split != metrics::kOverallSplit) continue;
    html += "<tr>" + text_cell(group.model) + text_cell(group.workflow);
    for (const auto& verdict : verdicts) {
      int64_t count = 0;
      for (const auto& [name, value] : group.verdict_counts)
        if (name == verdict) count = value;
      html += number_cell(std::to_string(count), count);
    }
    html += "</tr>";
  }
  return html + "</tbody></table>";
}

std::string oracle_table(const Report& report) {
  const std::vector<Column> columns = {{"Task", "task", false},
                                       {"Split", "split", false},
                                       {"Oracle vs best baseline", "oracle_over_best"},
                                       {"Oracle SoL %", "oracle_speed_of_light"},
                                       {"On the bar", "on_bar", false}};
  std::string html = R"(<table class="sortable" id="oracle-table">)" + table_head(columns) + "<tbody>";
  for (const auto& task : report.task_oracles)
    html += std::string(task.weak() ? R"(<tr class="weak-oracle">)" : "<tr>") + text_cell(task.task_id) +
            text_cell(task.split) + number_cell(format_ratio(task.over_best_baseline), task.over_best_baseline) +
            number_cell(format_percent(task.speed_of_light_fraction), task.speed_of_light_fraction) +
            text_cell(task.weak() ? "no" : "yes") + "</tr>";
  return html + "</tbody></table>";
}

std::string legend(const Report& report) {
  std::string html = "<ul class=\"legend\">";
  size_t index = 0;
  for (const auto& group : report.groups) {
    if (group.split != metrics::kOverallSplit) continue;
    html += fmt::format(R"(<li><span class="swatch" style="background:{}"></span>{} · {}</li>)", series_colour(index++),
                        html_escape(group.model), html_escape(group.workflow));
  }
  return html + "</ul>";
}

std::string plots(const Report& report) {
  const std::string key = legend(report);
  return "<div class=\"plots\"><div class=\"plot\">" + speedup_distribution_svg(report) + key +
         "</div><div class=\"plot\">" + pass_rate_by_attempt_svg(report) + key + "</div><div class=\"plot\">" +
         perf_versus_dollars_svg(report) + key + "</div></div>";
}

std::string episodes_table(const Report& report) {
  const std::vector<Column> columns = {
      {"#", "number"},           {"Task", "task", false},     {"Model", "model", false},
      {"Workflow", "workflow", false}, {"Sample", "sample"},  {"Split", "split", false},
      {"Verdict", "verdict", false},   {"Attempts", "attempts"}, {"First pass", "first_passing_attempt"},
      {"Speedup", "speedup"},    {"Tokens", "tokens"},        {"Dollars", "dollars"}};
  std::string html = R"(<table class="sortable" id="episodes-table">)" + table_head(columns) + "<tbody>";
  for (const auto& view : report.episodes) {
    const auto& record = view.record;
    html += fmt::format(R"(<tr><td data-value="{0}"><a href="#episode/{0}">{0}</a></td>)", view.number) +
            text_cell(record.key.task_id) + text_cell(record.key.model) + text_cell(record.key.workflow) +
            number_cell(std::to_string(record.key.sample), record.key.sample) + text_cell(record.split) +
            fmt::format(R"(<td class="text {}">{}{}</td>)", verdict_class(record.verdict), html_escape(record.verdict),
                        view.unconfined ? R"html( <span class="unconfined" title="ran without the sandbox's full confinement (sandbox: best_effort)">unconfined</span>)html" : "") +
            number_cell(std::to_string(record.attempts), record.attempts) +
            number_cell(record.first_passing_attempt ? std::to_string(record.first_passing_attempt) : "—",
                        record.first_passing_attempt ? std::optional<double>(record.first_passing_attempt) : std::nullopt) +
            number_cell(format_ratio(view.speedup_over_oracle), view.speedup_over_oracle) +
            number_cell(std::to_string(record.input_tokens + record.output_tokens),
                        record.input_tokens + record.output_tokens) +
            number_cell(format_dollars(record.dollars), record.dollars) + "</tr>";
  }
  return html + "</tbody></table>";
}

std::string fact(const std::string& name, const std::string& value) {
  return "<dt>" + html_escape(name) + "</dt><dd>" + html_escape(value) + "</dd>";
}

std::string optional_microseconds(const std::optional<double>& value) {
  return value ? fmt::format("{:.2f}", *value) : kNotAvailable;
}

std::string shapes_table(const results::EpisodeRecord& record) {
  if (record.shapes.empty()) return "<p class=\"note\">No shape was scored.</p>";
  std::string html =
      "<table><thead><tr><th class=\"text\">shape</th><th>passed</th><th>max abs error</th><th>candidate µs</th>"
      "<th>eager µs</th><th>compile µs</th><th>triton µs</th><th>oracle µs</th><th>speed of light µs</th></tr></thead>"
      "<tbody>";
  for (const auto& shape : record.shapes)
    html += "<tr>" + text_cell(shape.shape) + "<td>" + (shape.passed ? "yes" : "no") + "</td><td>" +
            fmt::format("{:.3g}", shape.max_abs_error) + "</td><td>" + optional_microseconds(shape.candidate_us) +
            "</td><td>" + optional_microseconds(shape.eager_us) + "</td><td>" + optional_microseconds(shape.compile_us) +
            "</td><td>" + optional_microseconds(shape.triton_us) + "</td><td>" + optional_microseconds(shape.oracle_us) + "</td><td>" +
            optional_microseconds(shape.speed_of_light_us) + "</td></tr>";
  return html + "</tbody></table>";
}

std::string code_block(const std::string& code) { return "<pre><code>" + html_escape(code) + "</code></pre>"; }

std::string transcript_html(const std::vector<results::TranscriptEntry>& entries) {
  if (entries.empty()) return "<p class=\"note\">The transcript is empty.</p>";
  std::string html;
  int64_t candidate = 0;
  for (const auto& entry : entries) {
    const std::string kind = id_fragment(entry.kind);
    std::string head = "#" + std::to_string(entry.index) + " " + entry.kind;
    if (!entry.tool_name.empty()) head += " · " + entry.tool_name;
    if (!entry.verdict.empty()) head += " · " + entry.verdict;
    if (!entry.ok) head += " · not ok";
    if (entry.input_tokens || entry.output_tokens)
      head += fmt::format(" · {} in / {} out tokens, {}", entry.input_tokens, entry.output_tokens,
                          format_dollars(entry.dollars));
    html += fmt::format(R"(<div class="entry entry-{}"><div class="entry-head">{}</div>)", kind, html_escape(head));
    if (!entry.content.empty()) html += "<pre>" + html_escape(entry.content) + "</pre>";
    if (!entry.arguments_json.empty() && entry.code.empty())
      html += "<div class=\"entry-head\">arguments</div><pre>" + html_escape(entry.arguments_json) + "</pre>";
    if (!entry.code.empty())
      html += fmt::format("<div class=\"entry-head\">candidate {}</div>", ++candidate) + code_block(entry.code);
    html += "</div>";
  }
  return html;
}

std::string episode_view(const EpisodeView& view, const TranscriptLoader& load_transcript) {
  const auto& record = view.record;
  std::string html = fmt::format(R"(<section class="episode-view" id="episode-{}" hidden>)", view.number);
  html += "<p><a href=\"#episodes\">← all episodes</a></p>";
  html += "<h2>" + html_escape(fmt::format("Episode {}: {} · {} · {} · sample {}", view.number, record.key.task_id,
                                           record.key.model, record.key.workflow, record.key.sample)) +
          "</h2>";
  html += fmt::format(R"(<p class="{}">{}</p>)", verdict_class(record.verdict), html_escape(record.verdict));
  std::string flags, warnings;
  for (const auto& flag : record.flags) flags += (flags.empty() ? "" : "; ") + flag;
  for (const auto& warning : record.warnings) warnings += (warnings.empty() ? "" : "; ") + warning;
  html += "<dl class=\"facts\">" + fact("split", record.split) + fact("category", record.category) +
          fact("message", record.message) + (flags.empty() ? "" : fact("flags", flags)) +
          (warnings.empty() ? "" : fact("warnings", warnings)) +
          fact("attempts", std::to_string(record.attempts)) +
          fact("first passing attempt",
               record.first_passing_attempt ? std::to_string(record.first_passing_attempt) : "none") +
          fact("speedup over oracle / eager / compile",
               format_ratio(view.speedup_over_oracle) + " / " + format_ratio(view.speedup_over_eager) + " / " +
                   format_ratio(view.speedup_over_compile)) +
          fact("turns, tool calls", std::to_string(record.turns) + ", " + std::to_string(record.tool_calls)) +
          fact("tokens in / out", std::to_string(record.input_tokens) + " / " + std::to_string(record.output_tokens)) +
          fact("dollars", format_dollars(record.dollars)) + fact("GPU-seconds", format_seconds(record.gpu_seconds)) +
          fact("wall-seconds", format_seconds(record.wall_seconds)) +
          fact("started, finished", record.started_at + " → " + record.finished_at) + "</dl>";
  html += "<h3>Shapes of the final score</h3>" + shapes_table(record);
  html += "<h3>Final code (" + html_escape(record.final_code_source.empty() ? "none" : record.final_code_source) +
          ")</h3>" + (record.final_code.empty() ? "<p class=\"note\">No code.</p>" : code_block(record.final_code));
  html += "<h3>Transcript</h3>";
  if (!load_transcript) {
    html += "<p class=\"note\">Transcripts were not included in this report.</p>";
  } else {
    try {
      html += transcript_html(load_transcript(record.key));
    } catch (const std::exception& error) {
      html += "<p class=\"note\">The transcript could not be loaded: " + html_escape(error.what()) + "</p>";
    }
  }
  return html + "</section>";
}

std::string page_header(const Report& report) {
  const auto& run = report.run;
  std::string html = "<header><h1>" + html_escape("TritonGym: " + (run.name.empty() ? run.run_id : run.name)) + "</h1>";
  html += "<p>" +
          html_escape(fmt::format("run {} · {} · {} of {} planned episodes · executor {} · started {}{}", run.run_id,
                                  run.status, report.episodes.size(), run.planned_episodes, run.executor,
                                  run.started_at, run.finished_at.empty() ? "" : ", finished " + run.finished_at)) +
          "</p>";
  if (!run.description.empty()) html += "<p>" + html_escape(run.description) + "</p>";
  if (!run.reports_performance)
    html += "<p><strong>Perf@1, fast_p and speed-of-light are n/a:</strong> this run's executor does not measure "
            "performance (interpreter).</p>";
  return html +
         "<nav><a href=\"#leaderboard\">Leaderboard</a><a href=\"#cost\">Cost</a><a href=\"#performance\">fast_p</a>"
         "<a href=\"#verdicts\">Verdicts</a><a href=\"#plots\">Plots</a><a href=\"#episodes\">Episodes</a></nav>"
         "<p id=\"route-note\" class=\"note\"></p></header>";
}

}  // namespace

std::string render_html(const Report& report, const TranscriptLoader& load_transcript) {
  const auto& run = report.run;
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
      "script-src 'unsafe-inline'; img-src data:\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>" +
      html_escape("TritonGym report: " + (run.name.empty() ? run.run_id : run.name)) + "</title><style>" +
      report_stylesheet() + "</style></head><body>" + page_header(report);
  html += "<main><section id=\"view-main\">";
  html += "<h2 id=\"leaderboard\">Leaderboard</h2><p class=\"note\">Click a column header to sort. Pass@k: the "
          "unbiased estimator, k up to the fewest samples of any task. Perf@1: oracle latency / candidate latency, "
          "0 for a failure. Perf@1 vs best: the same against the fastest of eager, torch.compile, the plain-Triton "
          "baseline (DSL tasks) and the oracle per shape, so a weak oracle flatters nobody. Intervals are 95% (Wilson; bootstrap for Perf@1).</p>";
  html += split_tabs_and_panels(report);
  html += "<h2 id=\"cost\">Cost</h2><p class=\"note\">A solve is a passing episode.</p>" + cost_table(report);
  html += "<h2 id=\"performance\">fast_p</h2><p class=\"note\">Episodes that pass and are more than p times as "
          "fast as PyTorch eager or torch.compile, over all episodes.</p>" +
          fast_p_table(report);
  html += "<h2 id=\"verdicts\">Verdicts</h2>" + verdict_table(report);
  if (!report.task_oracles.empty())
    html += "<h2 id=\"oracles\">Oracles</h2><p class=\"note\">Each timed task's oracle against the best of eager, "
            "torch.compile and, for a DSL task, its plain-Triton baseline, and its share of the speed-of-light floor. Off the bar (highlighted): slower than a "
            "baseline by over 3%, or outside 45-100% of its floor; Perf@1 flatters that task's candidates.</p>" +
            oracle_table(report);
  html += "<h2 id=\"plots\">Plots</h2>" + plots(report);
  html += "<h2 id=\"episodes\">Episodes</h2>" + episodes_table(report);
  html += "</section>";
  for (const auto& view : report.episodes) html += episode_view(view, load_transcript);
  html += "</main><pre id=\"selftest-result\" data-status=\"not-run\"></pre><script>";
  html += report_script();
  return html + "</script></body></html>\n";
}

}  // namespace tritongym::report
