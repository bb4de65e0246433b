// The worker protocol's schema as the executor checks it (worker_protocol.hpp): the shared transcript of messages
// that the worker's test (tests/worker/test_protocol.py) reads too, word for word, and a worker whose reply breaks
// the schema, refused by Worker with the message type and the field.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "worker.hpp"
#include "worker_protocol.hpp"

namespace tritongym::triton_executor {
namespace {

boost::json::array transcript() {
  std::ifstream in(TRITONGYM_PROTOCOL_TRANSCRIPT);
  std::stringstream text;
  text << in.rdbuf();
  return boost::json::parse(text.str()).as_object().at("cases").as_array();
}

TEST(WorkerProtocolTest, SaysWhatTheSharedTranscriptSaysOfEachMessage) {
  const boost::json::array cases = transcript();
  ASSERT_GT(cases.size(), 10u);
  for (const auto& item : cases) {
    const auto& c = item.as_object();
    const std::string type(c.at("type").as_string());
    const std::string expected(c.at("error").as_string());
    Status status = protocol::check(type, c.at("message"));
    if (expected.empty()) {
      EXPECT_TRUE(status.is_ok()) << type << ": " << status.message();
    } else {
      EXPECT_FALSE(status.is_ok()) << type << " passed, expected: " << expected;
      EXPECT_EQ(status.message(), expected);
    }
  }
}

TEST(WorkerProtocolTest, NamesTheReplyOfEachRequest) {
  EXPECT_EQ(protocol::request_type({{"op", "compare"}}), "compare.request");
  EXPECT_EQ(protocol::request_type({{"op", 3}}), "request");
  EXPECT_EQ(protocol::reply_type("compare", {{"ok", true}}), "compare.reply");
  EXPECT_EQ(protocol::reply_type("compare", {{"ok", false}, {"error", "x"}}), "error.reply");
  EXPECT_EQ(protocol::reply_type("run", {{"ok", true}}), "run.reply");
}

class WorkerProtocolWorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("tritongym-protocol-test-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  WorkerLaunch launch(const std::string& extra_field) const {
    WorkerLaunch how;
    how.python = TRITONGYM_ANSWERING_WORKER;
    how.role = "candidate";
    how.root = root_.string();
    how.environment = minimal_environment({});
    if (!extra_field.empty()) how.environment["TRITONGYM_ANSWER_EXTRA"] = extra_field;
    how.start_timeout_s = 20;
    return how;
  }
  std::filesystem::path root_;
};

TEST_F(WorkerProtocolWorkerTest, AReplyWithAFieldTheSchemaLacksIsRefusedByName) {
  auto started = Worker::start(launch("\"forged\": 1"));
  ASSERT_FALSE(started.has_value());
  EXPECT_NE(started.status().message().find("hello.reply: unknown field 'forged'"), std::string::npos)
      << started.status().message();
}

TEST_F(WorkerProtocolWorkerTest, ARequestTheSchemaLacksIsNeverSent) {
  auto worker = Worker::start(launch(""));
  ASSERT_TRUE(worker.has_value()) << worker.status().message();
  auto refused = (*worker)->request({{"op", "compare"}, {"cases", boost::json::array{{{"key", "k"}}}}}, 10);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.status().code(), StatusCode::internal);
  EXPECT_NE(refused.status().message().find("compare.request: missing field 'cases[0].inputs'"), std::string::npos)
      << refused.status().message();
  auto served = (*worker)->request({{"op", "hello"}}, 10);  // the worker never saw it, and still serves
  ASSERT_TRUE(served.has_value()) << served.status().message();
  EXPECT_TRUE(served->at("ok").as_bool());
}

}  // namespace
}  // namespace tritongym::triton_executor
