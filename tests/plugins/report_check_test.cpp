// The timing report held against itself and against the device's busy time (report_check.hpp), and the
// executor's side of the sampler process when the GPU cannot be sampled (device_sampler.hpp). The device side
// here is made of samples the way tritongym-gpu-sampler reports them; the GPU test
// EveryAdversarialCandidateIsCaughtForItsReason runs the real sampler against forges_report.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "device_sampler.hpp"
#include "report_check.hpp"
#include "worker.hpp"

namespace tritongym::triton_executor {
namespace {

constexpr int64_t kT0 = 1764561600000000000;  // 2025-12-01 04:00 UTC, in CLOCK_REALTIME nanoseconds
constexpr int64_t kUs = 1000;

struct Span {
  int64_t start_ns, end_ns;
};

// What a sampler reading every 100 us would report while the GPU was busy exactly over `busy`.
DeviceWindow sampled(const std::vector<Span>& busy, int64_t from_ns, int64_t to_ns, int64_t interval_ns = 100 * kUs) {
  DeviceWindow window;
  window.first_ns = from_ns;
  for (int64_t at = from_ns; at < to_ns; at += interval_ns) {
    double in_sample = 0.0;
    for (const auto& span : busy)
      in_sample += static_cast<double>(std::max<int64_t>(0, std::min(span.end_ns, at + interval_ns) - std::max(span.start_ns, at)));
    ++window.samples;
    if (in_sample > 0) window.busy.push_back({at, at + interval_ns, in_sample, in_sample * 3.0});
    window.last_ns = at + interval_ns;
  }
  return window;
}

// A turn alone: a warm-up call, then `calls` timed calls of `call_us`, each after a 30 us scrub, 10 us apart.
std::vector<ReportItem> turn(int64_t calls, int64_t call_us, int64_t begin_ns = kT0 + 1000 * kUs) {
  std::vector<ReportItem> items{{begin_ns, begin_ns + call_us * kUs, 0, -1, 0}};
  int64_t at = begin_ns + (call_us + 20) * kUs;
  for (int64_t call = 0; call < calls; ++call) {
    items.push_back({at, at + 30 * kUs, 0, -2, 0});
    at += 40 * kUs;
    items.push_back({at, at + call_us * kUs, 0, call, 0});
    at += (call_us + 10) * kUs;
  }
  return items;
}

// What the device counts for the items: each 2.4 us longer than CUPTI's start to end, as on the H200.
std::vector<Span> spans_of(const std::vector<ReportItem>& items, int64_t shift_ns = 0) {
  std::vector<Span> spans;
  for (const auto& item : items) spans.push_back({item.start_ns + shift_ns, item.end_ns + 2400 + shift_ns});
  return spans;
}

boost::json::object report_of(const std::vector<ReportItem>& items, double median_us, int64_t repetitions) {
  boost::json::array listed;
  for (const auto& item : items)
    listed.push_back(boost::json::array{item.start_ns, item.end_ns, item.shape, item.call, item.kind});
  return {{"shapes", boost::json::array{boost::json::object{{"key", "n=4096"}, {"median_us", median_us},
                                                            {"repetitions", repetitions}}}},
          {"window", {{"items", listed}}}};
}

TEST(ReportCheckTest, AnHonestReportMatchesTheDeviceMillisecondByMillisecond) {
  const auto items = turn(200, 45);
  const auto device = sampled(spans_of(items), kT0, kT0 + 30000 * kUs);
  ReportCheck check = check_report_against_device(items, device);
  EXPECT_TRUE(check.flags.empty()) << check.flags.front();
  EXPECT_TRUE(check.record.at("checked").as_bool());
  EXPECT_NEAR(check.record.at("device_busy_ms").as_double(), check.record.at("reported_busy_ms").as_double(), 1e-6);
  // Without the device's own time per item, 401 items leave about 1 ms unaccounted for: still within the margin.
  ReportCheckLimits bare;
  bare.item_overhead_ns = 0;
  ReportCheck unmodelled = check_report_against_device(items, device, bare);
  EXPECT_TRUE(unmodelled.flags.empty());
  EXPECT_NEAR(unmodelled.record.at("apart_ms").as_double(), 401 * 0.0024, 0.01);
  EXPECT_LT(check.record.at("apart_ms").as_double(), 0.001);
}

TEST(ReportCheckTest, ClocksTensOfMicrosecondsApartAreAllowedFor) {
  const auto items = turn(200, 45);
  const auto device = sampled(spans_of(items, 60 * kUs), kT0, kT0 + 30000 * kUs);
  ReportCheck check = check_report_against_device(items, device);
  EXPECT_TRUE(check.flags.empty()) << check.flags.front();
  EXPECT_DOUBLE_EQ(check.record.at("shift_us").as_double(), 60.0);
}

TEST(ReportCheckTest, AReportWhoseCallsWereShortenedLeavesTheDevicesBusyTimeUnaccountedFor) {
  const auto real = turn(200, 45);
  auto forged = real;
  for (auto& item : forged)
    if (item.call >= 0) item.end_ns = item.start_ns + (item.end_ns - item.start_ns) / 2;  // half as long
  const auto device = sampled(spans_of(real), kT0, kT0 + 30000 * kUs);
  ReportCheck check = check_report_against_device(forged, device);
  ASSERT_EQ(check.flags.size(), 1u);
  EXPECT_NE(check.flags[0].find("report: in the candidate's turn alone on the GPU the device was busy"), std::string::npos)
      << check.flags[0];
  EXPECT_NE(check.flags[0].find("the report is not what ran on the GPU"), std::string::npos);
}

TEST(ReportCheckTest, AReportThatClaimsWorkTheDeviceNeverSawIsFlagged) {
  const auto claimed = turn(200, 45);
  const auto device = sampled(spans_of(turn(20, 45)), kT0, kT0 + 30000 * kUs);  // a tenth of it ran
  ReportCheck check = check_report_against_device(claimed, device);
  ASSERT_EQ(check.flags.size(), 1u);
}

TEST(ReportCheckTest, TimeMovedFromTheCallsToTheWarmUpDoesNotAddUpWhereItHappened) {
  // The same total busy time, but the report puts half of each call into an earlier warm-up it never ran.
  const auto real = turn(200, 45);
  auto forged = real;
  int64_t moved = 0;
  for (auto& item : forged)
    if (item.call >= 0) {
      const int64_t half = (item.end_ns - item.start_ns) / 2;
      item.end_ns -= half;
      moved += half;
    }
  forged[0].end_ns = forged[0].start_ns;  // the warm-up, now claimed to be before the window started
  forged.push_back({kT0 - moved, kT0, 0, -1, 0});
  const auto device = sampled(spans_of(real), kT0, kT0 + 30000 * kUs);
  EXPECT_EQ(check_report_against_device(forged, device).flags.size(), 1u);
}

TEST(ReportCheckTest, CopiesToOrFromTheHostAreLeftOutOfTheReportsSide) {
  auto items = turn(100, 45);
  const auto device = sampled(spans_of(items), kT0, kT0 + 20000 * kUs);
  items.push_back({kT0 + 15000 * kUs, kT0 + 18000 * kUs, 0, -1, 2});  // 3 ms on a copy engine
  EXPECT_TRUE(check_report_against_device(items, device).flags.empty());
  EXPECT_EQ(check_report_against_device(items, device, {}, /*host_copies=*/true).flags.size(), 1u);
}

TEST(ReportCheckTest, ATurnLongerThanTheSamplesKeptIsFlaggedAndLostSamplesAreNot) {
  const auto items = turn(10, 45);
  auto device = sampled(spans_of(items), kT0, kT0 + 5000 * kUs);
  device.image_full = true;
  ReportCheck full = check_report_against_device(items, device);
  ASSERT_EQ(full.flags.size(), 1u);
  EXPECT_NE(full.flags[0].find("outlasted what the device's counters are kept for"), std::string::npos);
  device.image_full = false;
  device.overflow = true;
  ReportCheck lost = check_report_against_device(items, device);
  EXPECT_TRUE(lost.flags.empty());
  EXPECT_FALSE(lost.record.at("checked").as_bool());
  EXPECT_NE(std::string(lost.record.at("reason").as_string()).find("overflowed"), std::string::npos);
}

TEST(ReportCheckTest, AMedianThatIsNotWhatTheItemsAddUpToIsFlagged) {
  const auto items = turn(21, 45);
  std::string problem;
  const auto honest = report_of(items, 45.0, 21);
  const auto parsed = report_items(honest, problem);
  ASSERT_TRUE(problem.empty()) << problem;
  ASSERT_EQ(parsed.size(), items.size());
  EXPECT_TRUE(check_report_against_itself(honest, parsed).empty());

  const auto changed = report_of(items, 22.5, 21);  // the median halved after the harness made it
  auto flags = check_report_against_itself(changed, parsed);
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_NE(flags[0].find("n=4096: report: its median is 22.50 us"), std::string::npos) << flags[0];

  const auto fewer = report_of(items, 45.0, 10);  // claims fewer calls than its items hold
  flags = check_report_against_itself(fewer, parsed);
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_NE(flags[0].find("its items hold timed call 20"), std::string::npos) << flags[0];
}

TEST(ReportCheckTest, AMissingOrMalformedWindowIsSaid) {
  std::string problem;
  EXPECT_TRUE(report_items(boost::json::object{{"shapes", boost::json::array{}}}, problem).empty());
  EXPECT_EQ(problem, "the report has no window of items");
  problem.clear();
  boost::json::object bad{{"window", {{"items", boost::json::array{boost::json::array{1, 2, 3}}}}}};
  EXPECT_TRUE(report_items(bad, problem).empty());
  EXPECT_NE(problem.find("an item is not [start_ns, end_ns, shape, call, kind]"), std::string::npos) << problem;
}

TEST(ReportCheckTest, TheSamplersReplyIsReadAsAWindow) {
  auto reply = boost::json::parse(R"({"ok": true, "samples": 3, "first_ns": 100, "last_ns": 400, "busy_ns": 150.0,
      "dram_bytes": 9000.0, "busy": [[100, 200, 100, 6000], [200, 300, 50, 3000]], "malformed": 1,
      "overflow": false, "image_full": true})").as_object();
  DeviceWindow window = device_window(reply);
  EXPECT_EQ(window.samples, 3);
  EXPECT_EQ(window.first_ns, 100);
  EXPECT_EQ(window.last_ns, 400);
  ASSERT_EQ(window.busy.size(), 2u);
  EXPECT_DOUBLE_EQ(window.busy[1].busy_ns, 50.0);
  EXPECT_EQ(window.malformed, 1);
  EXPECT_TRUE(window.image_full);
}

TEST(DeviceSamplersTest, ASamplerThatCannotRunOrExitsAtOnceLeavesTheGpuUnsampledWithTheReason) {
  DeviceSamplerOptions missing;
  missing.program = "/nonexistent/tritongym-gpu-sampler";
  DeviceSamplers none(missing);
  auto missing_one = none.open_window(0, "0");
  EXPECT_EQ(missing_one.problem, "/nonexistent/tritongym-gpu-sampler cannot be run");
  EXPECT_FALSE(missing_one.failed) << "a GPU that cannot be sampled is not a sampler's failure";
  EXPECT_FALSE(none.close_window(0));

  DeviceSamplerOptions exits;
  exits.program = "/bin/false";  // a real process that ends before it says anything
  exits.environment = minimal_environment({});
  exits.log_dir = ::testing::TempDir() + "/report-check-samplers";
  DeviceSamplers ended(exits);
  const std::string problem = ended.open_window(3, "3").problem;
  EXPECT_NE(problem.find("GPU 3 cannot be sampled"), std::string::npos) << problem;
  EXPECT_NE(problem.find("exit code 1"), std::string::npos) << problem;
  auto again = ended.open_window(3, "3");
  EXPECT_EQ(again.problem, problem);  // the answer for that GPU from now on
  EXPECT_FALSE(again.failed);
}

// tests/fixtures/samplers/fake_sampler.sh speaks the sampler's protocol; FAKE_SAMPLER_FAIL says how it fails.
DeviceSamplerOptions fake_sampler(const std::string& name, const std::string& fail) {
  DeviceSamplerOptions options;
  options.program = TRITONGYM_FAKE_SAMPLER;
  const std::string folder = ::testing::TempDir() + "/report-check-" + name;
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  options.environment = minimal_environment({});
  options.environment["FAKE_SAMPLER_LOG"] = folder + "/launches";
  options.environment["FAKE_SAMPLER_FAIL"] = fail;
  options.log_dir = folder;
  return options;
}

int launches(const DeviceSamplerOptions& options) {
  std::ifstream in(options.environment.at("FAKE_SAMPLER_LOG"));
  int count = 0;
  for (std::string line; std::getline(in, line);) ++count;
  return count;
}

TEST(DeviceSamplersTest, ASamplerThatCannotOpenAWindowIsStartedAgainAndTheWindowSaysWhy) {
  auto options = fake_sampler("restart", "second-start");
  DeviceSamplers samplers(options);
  auto first = samplers.open_window(0, "0");
  EXPECT_EQ(first.problem, "");
  EXPECT_EQ(first.restarted_after, "");
  ASSERT_TRUE(samplers.close_window(0));
  // Its second window is refused (as by a sampler whose earlier window never closed): a new sampler opens it.
  auto second = samplers.open_window(0, "0");
  EXPECT_EQ(second.problem, "");
  EXPECT_FALSE(second.failed);
  EXPECT_NE(second.restarted_after.find("could not open a window: a window is already open"), std::string::npos)
      << second.restarted_after;
  EXPECT_NE(second.restarted_after.find("fake sampler: a window is already open"), std::string::npos)
      << "the sampler's own last words: " << second.restarted_after;
  EXPECT_TRUE(samplers.close_window(0));
  EXPECT_EQ(launches(options), 2);
  EXPECT_EQ(samplers.open_window(0, "0").restarted_after, "");  // the new one goes on serving
  EXPECT_TRUE(samplers.close_window(0));
  EXPECT_EQ(launches(options), 2);
}

TEST(DeviceSamplersTest, AWindowWithoutSamplesIsTheSamplersFailureAndTheNextWindowHasANewOne) {
  auto options = fake_sampler("empty", "empty-window");
  DeviceSamplers samplers(options);
  EXPECT_EQ(samplers.open_window(0, "0").problem, "");
  auto closed = samplers.close_window(0);
  ASSERT_FALSE(closed);
  EXPECT_NE(closed.status().message().find("the sampler of GPU 0 failed: its window had no samples"), std::string::npos)
      << closed.status().message();
  auto next = samplers.open_window(0, "0");
  EXPECT_EQ(next.problem, "");
  EXPECT_NE(next.restarted_after.find("its window had no samples"), std::string::npos) << next.restarted_after;
  auto reply = samplers.close_window(0);
  ASSERT_TRUE(reply) << reply.status().message();
  EXPECT_EQ(device_window(*reply).samples, 3);
  EXPECT_EQ(launches(options), 2);
}

TEST(DeviceSamplersTest, ASamplerThatKeepsFailingIsStartedAgainABoundedNumberOfTimes) {
  auto options = fake_sampler("bounded", "every-start");
  options.max_restarts = 2;
  DeviceSamplers samplers(options);
  std::string last;
  for (int turn = 0; turn < 5; ++turn) {
    auto opening = samplers.open_window(0, "0");
    last = opening.problem;
    EXPECT_NE(last.find("could not open a window"), std::string::npos) << "turn " << turn << ": " << last;
    EXPECT_TRUE(opening.failed) << "the sampler had run: each turn it fails in is flagged; turn " << turn;
    EXPECT_FALSE(samplers.close_window(0));  // nothing open to close
  }
  EXPECT_EQ(launches(options), 3);  // the first start and two more, no more
  EXPECT_NE(last.find("started 3 times; not again"), std::string::npos) << last;
}

}  // namespace
}  // namespace tritongym::triton_executor
