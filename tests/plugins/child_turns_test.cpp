// The host's arbiter for a candidate's turns on the GPU (child_turns.hpp), against a stand-in worker
// (tests/fixtures/workers/turn_worker.py) whose child talks to it on the turn socket, as a timed child does: only the
// named child's words count, none before the fork server says the next child has readied, the answers reach the
// child, the time it waited goes to holds/<pid>, and a byte out of turn ends what counts. And the checked cases are
// read from a plain file only.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "child_turns.hpp"

namespace tritongym::triton_executor {
namespace {

namespace fs = std::filesystem;

class ChildTurnsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("tritongym-turns-test-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "eval-1");
  }
  void TearDown() override { fs::remove_all(root_); }
  std::string read(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  fs::path root_;
};

TEST_F(ChildTurnsTest, TheNamedChildAsksForItsTurnsDirectlyAndIsAnswered) {
  WorkerLaunch how;
  how.python = TRITONGYM_TURN_WORKER;
  how.role = "candidate";
  how.root = root_.string();
  how.environment = minimal_environment({});
  how.start_timeout_s = 20;
  auto worker = Worker::start(how);
  ASSERT_TRUE(worker.has_value()) << worker.status().message();
  ASSERT_NE((*worker)->turns(), nullptr);

  const std::string folder = (root_ / "eval-1").string();
  boost::json::object run{{"op", "run"}, {"stage", "benchmark"}, {"code", ""}, {"entry", "f"},
                          {"cases", boost::json::array{{{"key", "s/seed-0"}, {"inputs", "in.pt"}, {"output", folder}}}},
                          {"timeout_s", 30}, {"keep_folder", false}, {"sandbox", "required"},
                          {"pause_before_timing", true}};
  ChildTurns turns(**worker, true, 30);
  auto word = turns.start(run);
  ASSERT_TRUE(word.has_value()) << word.status().message();
  const auto heard = std::chrono::steady_clock::now();
  // The first word counted is the child's, after the fork server said the next child had readied: the intruder's
  // "idle" before it is nobody's.
  ASSERT_EQ(word->at("event"), "gpu_idle") << boost::json::serialize(*word);
  const int64_t child = word->at("pid").as_int64();
  EXPECT_GT(child, 0);
  EXPECT_NE(child, (*worker)->pid());
  const double readied = std::stod(read(root_ / "eval-1" / "readied"));
  EXPECT_GE(std::chrono::duration<double>(heard.time_since_epoch()).count(), readied);
  ASSERT_NE(turns.clock(), nullptr);

  word = turns.answer(true);  // idle: no answer goes to the child
  ASSERT_TRUE(word.has_value()) << word.status().message();
  EXPECT_EQ(word->at("event"), "gpu_wanted");
  EXPECT_EQ(word->at("pid").as_int64(), child);
  word = turns.answer(true);
  ASSERT_TRUE(word.has_value()) << word.status().message();
  ASSERT_EQ(word->at("event"), "ready_to_time") << boost::json::serialize(*word);
  EXPECT_EQ(word->at("folder").as_string(), folder);
  ASSERT_TRUE(word->at("cases").is_array()) << boost::json::serialize(*word);
  EXPECT_EQ(word->at("cases").as_array()[0].as_object().at("key"), "s/seed-0");
  word = turns.answer(false);  // not timed: its "d" after that counts for nothing
  ASSERT_TRUE(word.has_value()) << word.status().message();
  EXPECT_FALSE(word->contains("event")) << boost::json::serialize(*word);
  EXPECT_EQ(word->at("folder").as_string(), folder);  // the run's reply
  EXPECT_EQ(read(root_ / "eval-1" / "answers"), "gs");
  // Its waits for the answers (the first one since before the next child readied) are the host's, not its own.
  std::istringstream held(read(root_ / "holds" / std::to_string(child)));
  double before = -1, since = -1;
  held >> before >> since;
  EXPECT_GT(before, 0.2);
  EXPECT_EQ(since, 0.0);
}

TEST_F(ChildTurnsTest, CheckedCasesAreReadFromAPlainFileOnly) {
  const fs::path folder = root_ / "eval-1";
  std::ofstream(folder / kCheckedFile) << R"([{"key": "s/seed-0", "status": "ok"}])";
  EXPECT_EQ(boost::json::serialize(checked_cases(folder.string())), R"([{"key":"s/seed-0","status":"ok"}])");
  // A pipe would block the read; a link could point anywhere; an object is not a list of cases.
  fs::create_directories(root_ / "pipe");
  ASSERT_EQ(::mkfifo((root_ / "pipe" / kCheckedFile).c_str(), 0600), 0);
  const auto started = std::chrono::steady_clock::now();
  EXPECT_TRUE(checked_cases((root_ / "pipe").string()).is_null());
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(1));
  fs::create_directories(root_ / "link");
  fs::create_symlink(folder / kCheckedFile, root_ / "link" / kCheckedFile);
  EXPECT_TRUE(checked_cases((root_ / "link").string()).is_null());
  fs::create_directories(root_ / "object");
  std::ofstream(root_ / "object" / kCheckedFile) << R"({"key": "s/seed-0"})";
  EXPECT_TRUE(checked_cases((root_ / "object").string()).is_null());
  EXPECT_TRUE(checked_cases((root_ / "missing").string()).is_null());
}

// A hold and a wait for an answer that overlap count once; the file says the total and whether one is in force.
TEST(HeldClockTest, OverlappingWaitsCountOnceAndTheFileSaysSo) {
  const fs::path file = fs::temp_directory_path() / ("tritongym-held-clock-" + std::to_string(::getpid())) / "7";
  fs::remove_all(file.parent_path());
  HeldClock clock(file.string());
  const auto t0 = std::chrono::steady_clock::now();
  auto at = [&](double s) { return t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s)); };
  auto read = [&] {
    std::ifstream in(file);
    double before = -1, since = -1;
    in >> before >> since;
    return std::pair{before, since};
  };
  clock.begin(at(0.0));  // a wait for an answer
  EXPECT_NEAR(read().second, std::chrono::duration<double>(t0.time_since_epoch()).count(), 1e-5);
  clock.begin(at(1.0));  // a hold while it waits
  clock.end(at(2.0));    // the hold ends; the wait goes on
  EXPECT_GT(read().second, 0.0);
  clock.end(at(3.0));
  EXPECT_NEAR(clock.seconds(), 3.0, 1e-9);
  EXPECT_NEAR(read().first, 3.0, 1e-5);
  EXPECT_EQ(read().second, 0.0);
  clock.end(at(4.0));  // one end too many changes nothing
  EXPECT_NEAR(clock.seconds(), 3.0, 1e-9);
  clock.forget();  // the child has ended: nothing more is written
  fs::remove(file);
  clock.begin(at(5.0));
  clock.end(at(6.0));
  EXPECT_FALSE(fs::exists(file));
  fs::remove_all(file.parent_path());
}

}  // namespace
}  // namespace tritongym::triton_executor
