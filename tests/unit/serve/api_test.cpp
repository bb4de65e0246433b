// The API's answers without a socket, through stand-in evaluators: a judging that throws or fails is a 500 JSON
// and the server goes on; finished results are forgotten past their limits; the token is compared as a whole.
#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <future>
#include <stdexcept>

#include "serve/api.hpp"

namespace tritongym::serve {
namespace {

namespace http = boost::beast::http;

// Judges by the candidate's code: "throw" throws, "fail" is a harness failure, anything else passes.
class StandInEvaluator : public Evaluator {
 public:
  StandInEvaluator() {
    TaskSpec task;
    task.id = "standard/vector-add";
    task.split = "standard";
    task.category = "elementwise";
    task.dsl = "triton";
    tasks_.push_back(task);
  }
  Status start() override { return {}; }
  int64_t workers() const override { return 1; }
  std::string executor_id() const override { return "stand-in"; }
  const std::vector<TaskSpec>& tasks() const override { return tasks_; }
  Result<JudgedCandidate> judge(const TaskSpec&, const CandidateRequest& request) override {
    if (request.code == "throw") throw std::runtime_error("the stand-in threw");
    if (request.code == "fail") return Status(StatusCode::unavailable, "the worker could not start");
    return JudgedCandidate{{{"verdict", "passed"}}, "passed", 0.5};
  }
  void expect(const TaskSpec&, const CandidateRequest&) override {}

 private:
  std::vector<TaskSpec> tasks_;
};

HttpResponse call(Api& api, http::verb method, const std::string& target, const std::string& body = "",
                  const std::string& authorization = "") {
  HttpRequest request{method, target, 11};
  if (!authorization.empty()) request.set(http::field::authorization, authorization);
  request.body() = body;
  std::promise<HttpResponse> answer;
  api.handle(std::move(request), [&](HttpResponse response) { answer.set_value(std::move(response)); });
  return answer.get_future().get();
}

struct Served {
  StandInEvaluator evaluator;
  ServeMetrics metrics;
  EvaluationQueue queue{evaluator, metrics, 4, Retention{2, 3600}};
  Api api{evaluator, queue, metrics, std::nullopt, ApiLimits{}};
  Served() {
    queue.start(1);
    api.set_endpoint("127.0.0.1:1");
    api.become_ready();
  }
};

TEST(ServeApi, AJudgingThatThrowsOrFailsIsA500AndTheServerGoesOn) {
  Served served;
  for (const char* code : {"throw", "fail"}) {
    auto response = call(served.api, http::verb::post, "/v1/evaluations",
                         boost::json::serialize(boost::json::object{{"task", "standard/vector-add"}, {"code", code}}));
    EXPECT_EQ(response.result_int(), 500u) << code;
    auto error = boost::json::parse(response.body()).at("error");
    EXPECT_EQ(error.at("status"), 500);
    EXPECT_NE(std::string(error.at("message").as_string()).find(code == std::string("throw") ? "the stand-in threw"
                                                                                             : "could not start"),
              std::string::npos)
        << response.body();
  }
  auto passed = call(served.api, http::verb::post, "/v1/evaluations",
                     R"({"task": "standard/vector-add", "code": "ok", "stage": "final"})");
  EXPECT_EQ(passed.result_int(), 200u) << passed.body();
  auto body = boost::json::parse(passed.body());
  EXPECT_EQ(body.at("verdict"), "passed");
  EXPECT_EQ(body.at("endpoint"), "127.0.0.1:1");
  EXPECT_NE(std::string(passed["Server-Timing"]).find("judge;dur="), std::string::npos);
  auto metrics = call(served.api, http::verb::get, "/metrics").body();
  EXPECT_NE(metrics.find("tritongym_evaluations_total{verdict=\"error\"} 2"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("tritongym_gpu_seconds_total 0.5"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("tritongym_requests_total{code=\"500\"} 2"), std::string::npos) << metrics;
}

TEST(ServeApi, FinishedResultsAreKeptUpToTheLimit) {
  Served served;  // keeps the newest two
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    auto response = call(served.api, http::verb::post, "/v1/evaluations",
                         R"({"task": "standard/vector-add", "code": "ok", "wait": false})");
    ASSERT_EQ(response.result_int(), 202u) << response.body();
    ids.push_back(std::string(boost::json::parse(response.body()).at("id").as_string()));
  }
  served.queue.close();
  while (!served.queue.finished()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(call(served.api, http::verb::get, "/v1/evaluations/" + ids[0]).result_int(), 404u);
  auto last = call(served.api, http::verb::get, "/v1/evaluations/" + ids[2]);
  EXPECT_EQ(last.result_int(), 200u);
  EXPECT_EQ(boost::json::parse(last.body()).at("result").at("id").as_string(), ids[2]);
}

TEST(ServeApi, TheTokenIsComparedAsAWhole) {
  auto token = BearerToken::load("", "abc123");
  ASSERT_TRUE(token && token->has_value());
  const BearerToken& bearer = **token;
  EXPECT_TRUE(bearer.admits("Bearer abc123"));
  EXPECT_TRUE(bearer.admits("bearer abc123"));
  EXPECT_FALSE(bearer.admits("Bearer abc12"));
  EXPECT_FALSE(bearer.admits("Bearer abc1234"));
  EXPECT_FALSE(bearer.admits("Bearer abc124"));
  EXPECT_FALSE(bearer.admits("Basic abc123"));
  EXPECT_FALSE(bearer.admits(""));
  EXPECT_FALSE(BearerToken::load("", "two words"));
  EXPECT_FALSE(BearerToken::load("/no/such/token", nullptr));
  auto none = BearerToken::load("", nullptr);
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->has_value());
}

}  // namespace
}  // namespace tritongym::serve
