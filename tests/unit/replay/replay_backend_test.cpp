#include "replay/replay_backend.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>

#include "support/test_support.hpp"

namespace tritongym::replay {
namespace {

// The backend being recorded: answers with the turn number and counts the calls that reach it.
class CountingBackend final : public ModelBackend {
 public:
  explicit CountingBackend(std::atomic<int>& calls, bool fail = false) : calls_(calls), fail_(fail) {}
  Result<ChatResponse> chat(const ChatRequest& request) noexcept override {
    ++calls_;
    if (fail_) return Status(StatusCode::unavailable, "the network is gone");
    ChatResponse response;
    response.message.role = Role::assistant;
    response.message.content = "answer to " + request.messages.back().content;
    response.message.tool_calls = {{"c1", "test", R"({"code": "x"})"}};
    response.usage = {100, 40, 5, 20, 3};
    response.cost_usd = 0.0125;
    response.model = "counted";
    return response;
  }
  std::string model_name() const noexcept override { return "counted"; }

 private:
  std::atomic<int>& calls_;
  bool fail_;
};

ChatRequest question(const std::string& text, int64_t sample = 0) {
  ChatRequest request;
  request.task_id = "standard/softmax";
  request.sample_index = sample;
  request.messages = {{Role::user, text, {}, {}, {}}};
  return request;
}

TEST(Replay, RecordsThenReplaysWithoutTheBackend) {
  testing::TemporaryDirectory dir;
  std::string path = (dir.path() / "record.jsonl").string();
  std::atomic<int> calls = 0;
  {
    auto recorder = ReplayBackend::open(path, ReplayMode::record, std::make_unique<CountingBackend>(calls), "m");
    ASSERT_TRUE(recorder) << recorder.status().to_string();
    ASSERT_TRUE((*recorder)->chat(question("one")));
    ASSERT_TRUE((*recorder)->chat(question("two")));
    EXPECT_EQ(calls, 2);
  }
  auto player = ReplayBackend::open(path, ReplayMode::replay, nullptr, "m");
  ASSERT_TRUE(player) << player.status().to_string();
  EXPECT_EQ((*player)->recorded_calls(), 2u);
  auto answer = (*player)->chat(question("two"));
  ASSERT_TRUE(answer) << answer.status().to_string();
  EXPECT_EQ(answer->message.content, "answer to two");
  EXPECT_EQ(answer->message.tool_calls.at(0).arguments_json, R"({"code": "x"})");
  EXPECT_EQ(answer->usage.cached_input_tokens, 40);
  EXPECT_EQ(answer->usage.cache_write_tokens, 5);
  EXPECT_DOUBLE_EQ(answer->cost_usd, 0.0125);
  auto missing = (*player)->chat(question("three"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.status().code(), StatusCode::not_found);
  EXPECT_NE(missing.status().message().find("task 'standard/softmax', sample 0, turn 1"), std::string::npos);
}

TEST(Replay, AutoModePaysOnlyForNewCalls) {
  testing::TemporaryDirectory dir;
  std::string path = (dir.path() / "record.jsonl").string();
  std::atomic<int> calls = 0;
  {
    auto first = ReplayBackend::open(path, ReplayMode::automatic, std::make_unique<CountingBackend>(calls), "m");
    ASSERT_TRUE((*first)->chat(question("one")));
  }
  // The resumed run: its backend is down, yet the finished call is answered from the record.
  std::atomic<int> resumed_calls = 0;
  auto resumed = ReplayBackend::open(path, ReplayMode::automatic, std::make_unique<CountingBackend>(resumed_calls, true), "m");
  ASSERT_TRUE(resumed);
  ASSERT_TRUE((*resumed)->chat(question("one")));
  EXPECT_EQ(resumed_calls, 0);
  EXPECT_EQ((*resumed)->answers_from_record(), 1u);
  auto fresh = (*resumed)->chat(question("two"));
  EXPECT_FALSE(fresh);  // a new call goes to the (failing) backend
  EXPECT_EQ(resumed_calls, 1);
}

// A backend whose answer comes from a file (as the oracle backend reads oracle.py) and is free.
class FileBackend final : public ModelBackend {
 public:
  FileBackend(std::string path, std::atomic<int>& calls) : path_(std::move(path)), calls_(calls) {}
  Result<ChatResponse> chat(const ChatRequest&) noexcept override {
    ++calls_;
    std::ifstream in(path_);
    ChatResponse response;
    response.message.role = Role::assistant;
    std::getline(in, response.message.content);
    return response;
  }
  std::string model_name() const noexcept override { return "file"; }
  bool replayable() const noexcept override { return false; }

 private:
  std::string path_;
  std::atomic<int>& calls_;
};

TEST(Replay, ABackendThatIsNotReplayableAnswersAfreshWhenResumedAndIsStillRecorded) {
  testing::TemporaryDirectory dir;
  std::string path = (dir.path() / "record.jsonl").string(), source = (dir.path() / "oracle.py").string();
  std::ofstream(source) << "the first kernel\n";
  std::atomic<int> calls = 0;
  {
    auto first = ReplayBackend::open(path, ReplayMode::automatic, std::make_unique<FileBackend>(source, calls), "m");
    ASSERT_TRUE(first) << first.status().to_string();
    EXPECT_EQ((*first)->chat(question("kernel?"))->message.content, "the first kernel");
  }
  std::ofstream(source) << "the improved kernel\n";  // the file changed between the run and its resume
  auto resumed = ReplayBackend::open(path, ReplayMode::automatic, std::make_unique<FileBackend>(source, calls), "m");
  ASSERT_TRUE(resumed) << resumed.status().to_string();
  EXPECT_EQ((*resumed)->chat(question("kernel?"))->message.content, "the improved kernel");
  EXPECT_EQ(calls, 2);
  EXPECT_EQ((*resumed)->answers_from_record(), 0u);
  EXPECT_EQ((*resumed)->calls_sent(), 1u);
  // The record keeps every answer (a paper's transcripts), and a pure replay serves the newest one.
  auto player = ReplayBackend::open(path, ReplayMode::replay, nullptr, "m");
  ASSERT_TRUE(player) << player.status().to_string();
  EXPECT_EQ((*player)->chat(question("kernel?"))->message.content, "the improved kernel");
}

TEST(Replay, SamplesAreRecordedApart) {
  testing::TemporaryDirectory dir;
  std::atomic<int> calls = 0;
  auto recorder = ReplayBackend::open((dir.path() / "r.jsonl").string(), ReplayMode::automatic,
                                      std::make_unique<CountingBackend>(calls), "m");
  ASSERT_TRUE((*recorder)->chat(question("one", 0)));
  ASSERT_TRUE((*recorder)->chat(question("one", 1)));
  ASSERT_TRUE((*recorder)->chat(question("one", 0)));
  EXPECT_EQ(calls, 2);
}

TEST(Replay, ATornLastLineIsIgnoredAndNotGluedTo) {
  testing::TemporaryDirectory dir;
  std::string path = (dir.path() / "record.jsonl").string();
  std::atomic<int> calls = 0;
  {
    auto recorder = ReplayBackend::open(path, ReplayMode::record, std::make_unique<CountingBackend>(calls), "m");
    ASSERT_TRUE((*recorder)->chat(question("one")));
  }
  std::ofstream(path, std::ios::app) << R"({"request": "{\"task\":)";  // a crash mid-write
  auto reopened = ReplayBackend::open(path, ReplayMode::automatic, std::make_unique<CountingBackend>(calls), "m");
  ASSERT_TRUE(reopened) << reopened.status().to_string();
  EXPECT_EQ((*reopened)->recorded_calls(), 1u);
  ASSERT_TRUE((*reopened)->chat(question("two")));
  auto again = ReplayBackend::open(path, ReplayMode::replay, nullptr, "m");
  ASSERT_TRUE(again) << again.status().to_string();
  EXPECT_EQ((*again)->recorded_calls(), 2u);
}

TEST(Replay, ACorruptLineInTheMiddleIsAnErrorNamingIt) {
  testing::TemporaryDirectory dir;
  std::string path = dir.write("record.jsonl", "not json\n{\"request\": \"x\", \"response\": {}}\n");
  auto opened = ReplayBackend::open(path, ReplayMode::replay, nullptr, "m");
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.status().location(), path + ":1");
}

TEST(Replay, ModesParse) {
  EXPECT_EQ(parse_mode("auto").value(), ReplayMode::automatic);
  EXPECT_FALSE(parse_mode("sometimes"));
}

}  // namespace
}  // namespace tritongym::replay
