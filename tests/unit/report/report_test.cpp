#include "report/report.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <sstream>
#include <stdexcept>

#include "support/synthetic_run.hpp"

namespace tritongym::report {
namespace {

using test_data::kInjection;

size_t count_of(const std::string& haystack, const std::string& needle) {
  size_t count = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++count;
  return count;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string line_starting_with(const std::string& text, const std::string& prefix) {
  for (const auto& line : lines_of(text))
    if (line.rfind(prefix, 0) == 0) return line;
  return "";
}

Report synthetic_report(bool reports_performance) {
  return build_report(test_data::synthetic_run(reports_performance), test_data::synthetic_episodes());
}

TEST(BuildReport, OrdersEpisodesAndNamesInTheRun) {
  auto report = synthetic_report(true);
  EXPECT_EQ(report.models, (std::vector<std::string>{"model-a", "model-b"}));
  EXPECT_EQ(report.workflows, (std::vector<std::string>{"one-shot", "react"}));
  ASSERT_EQ(report.episodes.size(), 16u);
  EXPECT_EQ(report.episodes[0].number, 1);
  EXPECT_EQ(report.episodes[0].record.key.task_id, "ood/odd-reduction");  // by model, workflow, task, sample
  EXPECT_TRUE(report.episodes[0].speedup_over_oracle.has_value());
  ASSERT_NE(report.find_group("ood", "model-b", "one-shot"), nullptr);
  EXPECT_EQ(report.find_group("dsl", "model-b", "one-shot"), nullptr);
  EXPECT_FALSE(synthetic_report(false).episodes[0].speedup_over_oracle.has_value());
}

TEST(TerminalReport, ShowsEveryGroupAndFitsIn120Columns) {
  const std::string text = render_terminal(synthetic_report(true));
  for (const auto& line : lines_of(text)) EXPECT_LE(line.size(), 120u) << line;
  EXPECT_NE(text.find("TritonGym run synthetic (synthetic-20261130T000000Z)"), std::string::npos);
  EXPECT_NE(text.find("all splits (16 episodes)"), std::string::npos);
  EXPECT_NE(text.find("split standard (8 episodes)"), std::string::npos);
  EXPECT_NE(text.find("split ood (8 episodes)"), std::string::npos);
  // The first leaderboard row: model-a/one-shot passes 1 of 4; Pass@2 averages 1/2 (softmax) and 0 (odd).
  const std::string row = line_starting_with(text, "model-a");
  EXPECT_NE(row.find("one-shot"), std::string::npos) << row;
  EXPECT_NE(row.find("25.0"), std::string::npos) << row;
  EXPECT_NE(row.find("50.0 k=2"), std::string::npos) << row;
  EXPECT_NE(text.find("verdicts (flagged counts as a failure)"), std::string::npos);
  EXPECT_EQ(text.find("n/a (this executor"), std::string::npos);
}

TEST(TerminalReport, InterpreterRunsShowNoPerformanceNumber) {
  const std::string text = render_terminal(synthetic_report(false));
  EXPECT_NE(text.find("Perf@1, fast_p and speed-of-light: n/a"), std::string::npos);
  const std::string row = line_starting_with(text, "model-a");
  std::istringstream cells(row);
  std::vector<std::string> words;
  for (std::string word; cells >> word;) words.push_back(word);
  // model workflow eps Pass@1 CI Pass@k k=.. Perf@1 CI fast1 SoL: the last four are n/a.
  ASSERT_GE(words.size(), 4u) << row;
  for (size_t i = words.size() - 4; i < words.size(); ++i) EXPECT_EQ(words[i], "n/a") << row;
}

TEST(JsonReport, HoldsEveryMetricAndNullForMissingPerformance) {
  auto document = boost::json::parse(render_json(synthetic_report(true))).as_object();
  EXPECT_EQ(document.at("schema").as_string(), "tritongym.report.v1");
  EXPECT_EQ(document.at("run").as_object().at("name").as_string(), "synthetic");
  EXPECT_EQ(document.at("episodes").as_array().size(), 16u);
  const auto& groups = document.at("groups").as_array();
  ASSERT_EQ(groups.size(), 12u);
  const auto& first = groups[0].as_object();
  EXPECT_EQ(first.at("split").as_string(), "overall");
  EXPECT_EQ(first.at("passed_episodes").as_int64(), 1);
  EXPECT_NEAR(first.at("pass_at_k").as_array()[0].as_object().at("value").as_double(), 0.25, 1e-12);
  EXPECT_EQ(first.at("verdicts").as_object().at("flagged").as_int64(), 1);
  EXPECT_TRUE(first.at("perf_at_1").is_double());
  EXPECT_EQ(first.at("pass_rate_ci95").as_array().size(), 2u);
  EXPECT_EQ(first.at("fast_p").as_array().size(), 4u);

  auto interpreter = boost::json::parse(render_json(synthetic_report(false))).as_object();
  const auto& group = interpreter.at("groups").as_array()[0].as_object();
  EXPECT_TRUE(group.at("perf_at_1").is_null());
  EXPECT_TRUE(group.at("perf_at_1_ci95").is_null());
  EXPECT_TRUE(group.at("speed_of_light_percent").is_null());
  EXPECT_FALSE(group.at("reports_performance").as_bool());
}

// Each timed task's oracle is shown against its baselines and its floor, and one that is off the bar is marked in
// every form of the report; Perf@1 vs best sits beside Perf@1.
TEST(Report, ShowsEachOraclesStandingAndPerfVsBest) {
  auto episodes = test_data::synthetic_episodes();
  for (auto& episode : episodes)
    if (episode.key.task_id == "ood/odd-reduction") episode.shapes[0].compile_us = 4.0;  // beats its 10 us oracle
  const Report report = build_report(test_data::synthetic_run(true), episodes);
  ASSERT_EQ(report.task_oracles.size(), 2u);
  EXPECT_EQ(report.task_oracles[0].task_id, "ood/odd-reduction");
  EXPECT_TRUE(report.task_oracles[0].weak());
  EXPECT_NEAR(*report.task_oracles[0].over_best_baseline, 0.4, 1e-12);
  EXPECT_FALSE(report.task_oracles[1].weak());  // standard/softmax: 1.5x the better baseline, 50% of its floor
  EXPECT_NEAR(*report.task_oracles[1].speed_of_light_fraction, 0.5, 1e-12);

  auto document = boost::json::parse(render_json(report)).as_object();
  const auto& oracles = document.at("task_oracles").as_array();
  ASSERT_EQ(oracles.size(), 2u);
  EXPECT_EQ(oracles[0].at("task").as_string(), "ood/odd-reduction");
  EXPECT_NEAR(oracles[0].at("over_best_baseline").as_double(), 0.4, 1e-12);
  EXPECT_TRUE(document.at("groups").as_array()[0].at("perf_vs_best_at_1").is_double());

  const std::string terminal = render_terminal(report);
  EXPECT_NE(terminal.find("vs best"), std::string::npos) << terminal;
  EXPECT_NE(terminal.find("oracles off the bar"), std::string::npos) << terminal;
  EXPECT_NE(line_starting_with(terminal, "ood/odd-reduction").find("0.40"), std::string::npos) << terminal;
  EXPECT_EQ(line_starting_with(terminal, "standard/softmax"), "") << terminal;  // on the bar: not listed

  const std::string html = render_html(report, test_data::synthetic_transcript);
  EXPECT_NE(html.find("id=\"oracle-table\""), std::string::npos);
  EXPECT_EQ(count_of(html, "class=\"weak-oracle\""), 1u);
  EXPECT_NE(html.find("Perf@1 vs best"), std::string::npos);

  const Report interpreter = build_report(test_data::synthetic_run(false), episodes);
  EXPECT_TRUE(interpreter.task_oracles.empty());
  EXPECT_EQ(render_html(interpreter, test_data::synthetic_transcript).find("id=\"oracle-table\""),
            std::string::npos);
}

// A final score judged without the sandbox's full confinement is marked in every view; the others are not.
TEST(Report, MarksEveryUnconfinedResult) {
  auto episodes = test_data::synthetic_episodes();
  episodes[1].warnings = {"[unconfined] the candidate ran without the sandbox's full confinement (sandbox: "
                          "best_effort): network namespace"};
  episodes[2].warnings = {"some other warning"};
  const Report report = build_report(test_data::synthetic_run(true), episodes);
  size_t marked = 0;
  for (const auto& view : report.episodes) marked += view.unconfined ? 1 : 0;
  EXPECT_EQ(marked, 1u);
  const std::string terminal = render_terminal(report);
  EXPECT_NE(terminal.find("unconfined: 1 of " + std::to_string(episodes.size()) + " final scores ran without"),
            std::string::npos) << terminal;
  auto document = boost::json::parse(render_json(report)).as_object();
  size_t in_json = 0;
  for (const auto& episode : document.at("episodes").as_array()) in_json += episode.at("unconfined").as_bool() ? 1 : 0;
  EXPECT_EQ(in_json, 1u);
  const std::string html = render_html(report, test_data::synthetic_transcript);
  EXPECT_EQ(count_of(html, "<span class=\"unconfined\""), 1u);
  EXPECT_NE(html.find("<dt>warnings</dt>"), std::string::npos);
  EXPECT_EQ(render_terminal(synthetic_report(true)).find("unconfined:"), std::string::npos);
}

TEST(HtmlReport, EscapesEveryStringFromTheRun) {
  const std::string html = render_html(synthetic_report(true), test_data::synthetic_transcript);
  EXPECT_EQ(html.find(kInjection), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(count_of(html, "</script>"), 1u);  // the page's own script, nothing else
  EXPECT_EQ(count_of(html, "<script"), 1u);
  EXPECT_GT(count_of(html, "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"), 16u);  // every transcript
  EXPECT_EQ(html_escape(R"(<a href="x" title='y'>&)"), "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;");
}

TEST(HtmlReport, IsSelfContained) {
  const std::string html = render_html(synthetic_report(true), test_data::synthetic_transcript);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find(" src=\""), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  // The only URL is the SVG namespace, which is a name, not a fetch.
  EXPECT_EQ(count_of(html, "https:"), 0u);
  EXPECT_EQ(count_of(html, "http:"), count_of(html, "xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_NE(html.find("default-src 'none'"), std::string::npos);
}

TEST(HtmlReport, HasEveryView) {
  const std::string html = render_html(synthetic_report(true), test_data::synthetic_transcript);
  for (const char* id : {"id=\"leaderboard-overall\"", "id=\"leaderboard-standard\"", "id=\"leaderboard-ood\"",
                         "id=\"matrix-overall\"", "id=\"cost-table\"", "id=\"fast-p-table\"", "id=\"verdict-table\"",
                         "id=\"episodes-table\"", "id=\"episode-1\"", "id=\"episode-16\"", "href=\"#episode/16\"",
                         "data-split-tab=\"community\" aria-selected=\"false\" disabled", "<svg"})
    EXPECT_NE(html.find(id), std::string::npos) << id;
  EXPECT_EQ(count_of(html, "<svg"), 3u);
  EXPECT_EQ(count_of(html, "class=\"episode-view\""), 16u);
  // Every candidate's code: the transcript's test call and the final code, for each episode.
  EXPECT_EQ(count_of(html, "candidate 1</div>"), 16u);
  EXPECT_NE(html.find("Pass@1 25.0%"), std::string::npos);  // the matrix cell of model-a/one-shot
}

TEST(HtmlReport, SaysWhenATranscriptCannotBeLoaded) {
  auto failing = [](const results::EpisodeKey&) -> std::vector<results::TranscriptEntry> {
    throw std::runtime_error("no such episode <in the store>");
  };
  const std::string html = render_html(synthetic_report(false), failing);
  EXPECT_NE(html.find("The transcript could not be loaded: no such episode &lt;in the store&gt;"), std::string::npos);
  EXPECT_NE(html.find("Perf@1, fast_p and speed-of-light are n/a"), std::string::npos);
  const std::string without = render_html(synthetic_report(false), nullptr);
  EXPECT_NE(without.find("Transcripts were not included"), std::string::npos);
}

}  // namespace
}  // namespace tritongym::report
