#include "episode/episode.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <mutex>

#include "episode/episode_runner.hpp"

#include "plugins/loader.hpp"
#include "support/test_support.hpp"

namespace tritongym::episode {
namespace {

ChatMessage said(Role role, std::string text) {
  ChatMessage message;
  message.role = role;
  message.content = std::move(text);
  return message;
}

// A tool that asks the executor to test the code, as the real `test` tool will.
class EvaluatingTool final : public Tool {
 public:
  ToolSchema schema() const noexcept override {
    return {"test", "test the code",
            R"({"type":"object","properties":{"code":{"type":"string"},"verbose":{"type":"boolean"}},"required":["code"],"additionalProperties":false})"};
  }
  Result<ToolResult> call(const std::string& arguments_json, ToolServices& services) noexcept override {
    EvaluationRequest request;
    request.task = services.task();
    request.source_code = std::string(boost::json::parse(arguments_json).as_object().at("code").as_string());
    auto result = services.evaluate(request);
    if (!result) return result.status();
    return ToolResult{result->verdict == Verdict::passed, verdict_name(result->verdict), "{}", 0.25};
  }
};

// Loads the real scripted backend and plays `replies_json` through it.
class EpisodeTest : public ::testing::Test {
 protected:
  std::unique_ptr<ModelBackend> scripted(const std::string& replies_json) {
    auto report = plugins::load_plugins({testing::builtin_plugin_dir()}, registry_);
    PluginContext context;
    context.config_json = R"({"replies":)" + replies_json + "}";
    auto backend = registry_.create<ModelBackend>("tritongym.backend.scripted", context);
    EXPECT_TRUE(backend) << backend.status().to_string();
    return backend ? std::move(backend.value()) : nullptr;
  }
  EpisodeSetup setup(ModelBackend* model, Budget budget = {}) {
    EpisodeSetup setup;
    setup.task.id = "standard/vector-add";
    setup.model = model;
    setup.tools["test"] = &tool_;
    setup.budget = std::move(budget);
    return setup;
  }
  plugins::Registry registry_;
  EvaluatingTool tool_;
};

ToolCall call(const std::string& name, const std::string& arguments) { return {"c1", name, arguments}; }

TEST_F(EpisodeTest, ChatGoesThroughTheBackendAndIsCharged) {
  auto model = scripted(R"([{"content":"hello","usage":{"input_tokens":11,"output_tokens":7}}])");
  Episode episode(setup(model.get()));
  auto response = episode.chat({});
  ASSERT_TRUE(response) << response.status().to_string();
  EXPECT_EQ(response->message.content, "hello");
  EXPECT_EQ(episode.usage().turns, 1);
  EXPECT_EQ(episode.usage().input_tokens, 11);
  EXPECT_EQ(episode.usage().output_tokens, 7);
  ASSERT_EQ(episode.transcript().size(), 1u);
}

TEST_F(EpisodeTest, PromptsEnterTheTranscriptOnceBeforeTheTurnThatFirstSentThem) {
  auto model = scripted(R"([{"content":"one"},{"content":"two"}])");
  Episode episode(setup(model.get()));
  ChatRequest request;
  request.messages = {said(Role::system, "you write kernels"), said(Role::user, "task: add")};
  ASSERT_TRUE(episode.chat(request));
  request.messages.push_back(said(Role::assistant, "one"));
  request.messages.push_back(said(Role::user, "test failed: fix it"));
  ASSERT_TRUE(episode.chat(request));  // the resent system and first user message are not repeated
  auto events = episode.transcript();
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(events[0].kind, EpisodeEvent::Kind::prompt);
  EXPECT_EQ(events[0].message.content, "you write kernels");
  EXPECT_EQ(events[1].message.content, "task: add");
  EXPECT_EQ(events[2].kind, EpisodeEvent::Kind::turn);
  EXPECT_EQ(events[3].message.content, "test failed: fix it");
  EXPECT_EQ(events[4].response.message.content, "two");
}

TEST_F(EpisodeTest, UnknownToolIsAMessageForTheModelAndCostsACall) {
  auto model = scripted(R"([{"content":"x"}])");
  Episode episode(setup(model.get()));
  auto result = episode.call_tool(call("tset", R"({"code":"x"})"));
  ASSERT_TRUE(result);
  EXPECT_FALSE(result->ok);
  EXPECT_NE(result->text.find("no tool 'tset' (did you mean 'test'?)"), std::string::npos) << result->text;
  EXPECT_EQ(episode.usage().tool_calls, 1);
}

TEST_F(EpisodeTest, MalformedArgumentsAreExplained) {
  auto model = scripted(R"([{"content":"x"}])");
  Episode episode(setup(model.get()));
  auto bad_json = episode.call_tool(call("test", R"({"code": "unterminated)"));
  EXPECT_NE(bad_json->text.find("not valid JSON"), std::string::npos) << bad_json->text;
  auto missing = episode.call_tool(call("test", R"({})"));
  EXPECT_NE(missing->text.find("missing required argument 'code'"), std::string::npos) << missing->text;
  auto wrong_type = episode.call_tool(call("test", R"({"code": 5})"));
  EXPECT_NE(wrong_type->text.find("'code' must be a string"), std::string::npos) << wrong_type->text;
  auto extra = episode.call_tool(call("test", R"({"code": "x", "cod": 1})"));
  EXPECT_NE(extra->text.find("unknown argument 'cod'"), std::string::npos) << extra->text;
  EXPECT_EQ(episode.usage().tool_calls, 4);
  EXPECT_EQ(episode.last_candidate(), "");  // none of these reached the tool
}

TEST_F(EpisodeTest, ValidCallReachesTheToolAndRecordsTheCandidate) {
  auto model = scripted(R"([{"content":"x"}])");
  Episode episode(setup(model.get()));
  auto result = episode.call_tool(call("test", R"({"code":"def f(): pass"})"));
  ASSERT_TRUE(result);
  // No executor is configured: the harness failure is reported to the model, not hidden.
  EXPECT_FALSE(result->ok);
  EXPECT_NE(result->text.find("no executor"), std::string::npos) << result->text;
  EXPECT_EQ(episode.last_candidate(), "def f(): pass");
}

TEST_F(EpisodeTest, SpentBudgetRefusesWithoutCallingTheModel) {
  auto model = scripted(R"([{"content":"one"},{"content":"two"}])");
  Budget budget;
  budget.max_turns = 1;
  budget.max_tool_calls = 1;
  Episode episode(setup(model.get(), budget));
  ASSERT_TRUE(episode.chat({}));
  EXPECT_TRUE(episode.budget_exhausted());
  auto refused = episode.chat({});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.status().code(), StatusCode::resource_exhausted);
  EXPECT_NE(refused.status().message().find("max_turns (1) reached"), std::string::npos);
  ASSERT_TRUE(episode.call_tool(call("test", R"({"code":"x"})")));
  EXPECT_FALSE(episode.call_tool(call("test", R"({"code":"y"})")));
  EXPECT_EQ(episode.last_candidate(), "x");
}

// ------------------------------------------------------------------ the DSL rule on every path

// Passes whatever reaches it, and keeps the requests.
class RecordingExecutor final : public Executor {
 public:
  Status availability() const noexcept override { return {}; }
  ExecutorInfo info() const noexcept override { return {}; }
  Result<EvaluationResult> evaluate(const EvaluationRequest& request) noexcept override {
    std::lock_guard lock(mutex_);
    evaluated.push_back(request);
    EvaluationResult result;
    result.verdict = Verdict::passed;
    return result;
  }
  void expect(const EvaluationRequest& request) noexcept override {
    std::lock_guard lock(mutex_);
    expected.push_back(request);
  }
  std::vector<EvaluationRequest> evaluated, expected;

 private:
  std::mutex mutex_;
};

// A DSL whose kernels must come from "gluon" and whose static check refuses "@triton.jit".
class GluonLikeDsl final : public Dsl {
 public:
  std::string name() const noexcept override { return "gluon"; }
  std::string candidate_rules() const noexcept override { return "@gluon.jit only"; }
  Status check_source(std::string_view source_code) const noexcept override {
    if (source_code.find("@triton.jit") != std::string_view::npos)
      return Status(StatusCode::invalid_argument, "this task is in Gluon: not @triton.jit");
    return {};
  }
  std::string required_kernel_frontend() const noexcept override { return "gluon"; }
  Result<std::string> docs(std::string_view) const noexcept override { return std::string(); }
};

// Answers with fixed code, or with none (the core then scores the last candidate a tool was called with).
class AnsweringWorkflow final : public Workflow {
 public:
  explicit AnsweringWorkflow(std::string answer, std::string tested = "") : answer_(std::move(answer)), tested_(std::move(tested)) {}
  Result<WorkflowOutcome> run(EpisodeContext& episode) noexcept override {
    if (!tested_.empty()) {
      boost::json::object arguments{{"code", tested_}};
      if (auto called = episode.call_tool({"c1", "test", boost::json::serialize(arguments)}); !called) return called.status();
    }
    return WorkflowOutcome{answer_, ""};
  }

 private:
  std::string answer_, tested_;
};

class DslRuleTest : public EpisodeTest {
 protected:
  EpisodeResult run(const std::string& answer, const std::string& tested = "") {
    model_ = scripted(R"([{"content":"x"}])");
    EpisodeSetup episode = setup(model_.get());
    episode.executor = &executor_;
    episode.dsl = &dsl_;
    AnsweringWorkflow workflow(answer, tested);
    return run_episode(workflow, episode, 2, 30);
  }
  std::unique_ptr<ModelBackend> model_;
  RecordingExecutor executor_;
  GluonLikeDsl dsl_;
};

TEST_F(DslRuleTest, TheFinalScoreRefusesWhatTheDslRefusesWithoutRunningIt) {
  EpisodeResult result = run("import triton\n@triton.jit\ndef k(x):\n    pass\n");
  ASSERT_TRUE(result.score.has_value()) << result.score_status.to_string();
  EXPECT_EQ(result.score->verdict, Verdict::compile_error);
  EXPECT_EQ(result.score->message, "this task is in Gluon: not @triton.jit");
  EXPECT_FALSE(result.solved());
  EXPECT_TRUE(executor_.evaluated.empty()) << "a refused candidate never reaches the executor";
}

TEST_F(DslRuleTest, TheFinalScoreTellsTheExecutorTheFrontendTheKernelsMustComeFrom) {
  EpisodeResult result = run("@gluon.jit\ndef k(x):\n    pass\n");
  ASSERT_TRUE(result.score.has_value()) << result.score_status.to_string();
  EXPECT_EQ(result.score->verdict, Verdict::passed);
  ASSERT_EQ(executor_.evaluated.size(), 1u);
  EXPECT_EQ(executor_.evaluated[0].stage, EvaluationStage::final_score);
  EXPECT_EQ(executor_.evaluated[0].required_kernel_frontend, "gluon");
  ASSERT_EQ(executor_.expected.size(), 1u);
  EXPECT_EQ(executor_.expected[0].required_kernel_frontend, "gluon");
}

TEST_F(DslRuleTest, AToolsEvaluationFollowsTheSameRule) {
  // The workflow tests plain Triton (refused before the executor), then answers nothing: the last candidate, the
  // refused code, is the final score's, refused as well.
  EpisodeResult result = run("", "import triton\n@triton.jit\ndef k(x):\n    pass\n");
  EXPECT_EQ(result.final_code_source, "last candidate");
  ASSERT_TRUE(result.score.has_value());
  EXPECT_EQ(result.score->verdict, Verdict::compile_error);
  ASSERT_EQ(result.transcript.size(), 1u);
  EXPECT_EQ(result.transcript[0].result.text, "compile_error");
  EXPECT_TRUE(executor_.evaluated.empty());

  executor_.evaluated.clear();
  run("", "@gluon.jit\ndef k(x):\n    pass\n");
  ASSERT_EQ(executor_.evaluated.size(), 2u);  // the test call, then the final score
  EXPECT_EQ(executor_.evaluated[0].stage, EvaluationStage::test);
  for (const auto& request : executor_.evaluated) EXPECT_EQ(request.required_kernel_frontend, "gluon");
}

}  // namespace
}  // namespace tritongym::episode
