// The HTML report in a real browser: headless Chromium opens a report of synthetic records, the page's
// #selftest clicks headers, tabs and an episode link, and this test reads the resulting DOM and the
// browser's console. Skips, visibly, only where no Chromium is installed (scripts/setup.sh installs it).
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "tritongym/support/subprocess.hpp"
#include "report/report.hpp"
#include "support/synthetic_run.hpp"
#include "support/test_support.hpp"

namespace tritongym::report {
namespace {


std::string find_chromium() {
  if (const char* configured = std::getenv("TRITONGYM_CHROMIUM"); configured && *configured) return configured;
  for (const char* name : {"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"})
    if (auto path = process::find_executable(name); !path.empty()) return path;
  return "";
}

class HtmlReportInChromium : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = find_chromium();
    if (chromium_.empty()) GTEST_SKIP() << "no chromium binary on PATH (apt-get install chromium; scripts/setup.sh does)";
    auto report = build_report(test_data::synthetic_run(true), test_data::synthetic_episodes());
    folder_.write("report.html", render_html(report, test_data::synthetic_transcript));
  }

  // The DOM after the page's scripts ran, and the browser's log (console messages appear as ":CONSOLE").
  process::ProcessResult open(const std::string& fragment) {
    process::ProcessOptions options;
    options.argv = {chromium_, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                    "--user-data-dir=" + (folder_.path() / "profile").string(), "--enable-logging=stderr", "--v=0",
                    "--virtual-time-budget=5000", "--dump-dom", "file://" + (folder_.path() / "report.html").string() + fragment};
    options.timeout_s = 120;
    options.max_output_bytes = 64 << 20;
    auto result = process::run_process(options);
    EXPECT_TRUE(result.has_value()) << result.status().message();
    return result.has_value() ? *result : process::ProcessResult{};
  }

  static void expect_no_console_output(const process::ProcessResult& browser) {
    std::istringstream log(browser.stderr_text);
    for (std::string line; std::getline(log, line);) {
      EXPECT_EQ(line.find(":CONSOLE"), std::string::npos) << "the page logged: " << line;
      EXPECT_EQ(line.find("Uncaught"), std::string::npos) << line;
    }
  }

  std::string chromium_;
  testing::TemporaryDirectory folder_;
};

// (model, workflow) of each row of the overall leaderboard, in DOM order.
std::vector<std::string> leaderboard_rows(const std::string& dom) {
  const size_t start = dom.find("id=\"leaderboard-overall\"");
  if (start == std::string::npos) return {};
  const std::string table = dom.substr(start, dom.find("</table>", start) - start);
  std::vector<std::string> rows;
  static const std::regex row(R"(<tr><td class="text">([^<]*)</td><td class="text">([^<]*)</td>)");
  for (std::sregex_iterator it(table.begin(), table.end(), row), end; it != end; ++it)
    rows.push_back((*it)[1].str() + "/" + (*it)[2].str());
  return rows;
}

std::string opening_tag_with(const std::string& dom, const std::string& attribute) {
  const size_t at = dom.find(attribute);
  if (at == std::string::npos) return "";
  const size_t open = dom.rfind('<', at);
  return dom.substr(open, dom.find('>', at) - open + 1);
}

TEST_F(HtmlReportInChromium, RendersSortsRoutesAndLogsNothing) {
  auto browser = open("#selftest");
  ASSERT_TRUE(browser.succeeded()) << browser.describe_end() << "\n" << browser.stderr_text;
  const std::string& dom = browser.stdout_text;

  // The page's own account of what it clicked.
  static const std::regex selftest_result(R"re(<pre id="selftest-result" data-status="(\w+)">([^<]*)</pre>)re");
  std::smatch result;
  ASSERT_TRUE(std::regex_search(dom, result, selftest_result)) << "no self-test result in the DOM";
  auto checks = boost::json::parse(result[2].str()).as_object().at("checks").as_array();
  EXPECT_GE(checks.size(), 8u);
  for (const auto& check : checks)
    EXPECT_TRUE(check.at("ok").as_bool()) << check.at("name").as_string() << ": " << check.at("detail").as_string();
  EXPECT_EQ(result[1].str(), "pass");

  // Independently of the page: the rows are in the DOM, and the last click (Pass@1, descending) reordered them
  // from the order of first appearance to 100%, 50%, 25%, 0%.
  EXPECT_EQ(leaderboard_rows(dom),
            (std::vector<std::string>{"model-a/react", "model-b/one-shot", "model-a/one-shot", "model-b/react"}));
  EXPECT_NE(opening_tag_with(dom, "data-key=\"pass_at_1\"").find("aria-sort=\"descending\""), std::string::npos);

  // The episode view is open and the leaderboard view hidden.
  EXPECT_NE(opening_tag_with(dom, "id=\"view-main\"").find("hidden"), std::string::npos);
  EXPECT_EQ(opening_tag_with(dom, "id=\"episode-1\"").find("hidden"), std::string::npos);
  EXPECT_NE(opening_tag_with(dom, "id=\"episode-2\"").find("hidden"), std::string::npos);

  // The run's text stayed text.
  EXPECT_EQ(dom.find("<img"), std::string::npos);
  EXPECT_NE(dom.find("&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  expect_no_console_output(browser);
}

TEST_F(HtmlReportInChromium, OpensAnEpisodeFromItsAddress) {
  auto browser = open("#episode/3");
  ASSERT_TRUE(browser.succeeded()) << browser.describe_end() << "\n" << browser.stderr_text;
  const std::string& dom = browser.stdout_text;
  EXPECT_EQ(opening_tag_with(dom, "id=\"episode-3\"").find("hidden"), std::string::npos);
  EXPECT_NE(opening_tag_with(dom, "id=\"view-main\"").find("hidden"), std::string::npos);
  // Initial order, untouched: no header was clicked.
  EXPECT_EQ(leaderboard_rows(dom),
            (std::vector<std::string>{"model-a/one-shot", "model-a/react", "model-b/one-shot", "model-b/react"}));
  expect_no_console_output(browser);
}

}  // namespace
}  // namespace tritongym::report
