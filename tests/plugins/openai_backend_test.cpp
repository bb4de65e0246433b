// tritongym.backend.openai against a real HTTP server on loopback that speaks Chat Completions.
#include <chrono>

#include "backend_test_support.hpp"

namespace tritongym::plugins {
namespace {

class OpenAiBackendTest : public BackendTestBase {
 protected:
  Result<std::unique_ptr<ModelBackend>> backend(const std::string& scenario, bool stream, const std::string& extra = "") {
    return BackendTestBase::backend("tritongym.backend.openai", "/v1", scenario, stream,
                                    R"(,"usd_per_million_input":2.0,"usd_per_million_cached_input":0.5,)"
                                    R"("usd_per_million_output":8.0)" + extra);
  }
};

TEST_F(OpenAiBackendTest, SendsTheWireFormatAndReadsUsageAndCost) {
  ASSERT_TRUE(server_->running());
  auto model = backend("ok", false);
  ASSERT_TRUE(model) << model.status().to_string();
  auto response = (*model)->chat(conversation());
  ASSERT_TRUE(response) << response.status().to_string();
  EXPECT_EQ(response->message.content, "Here is a kernel.");
  EXPECT_EQ(response->model, "served-ok");
  EXPECT_EQ(response->usage.input_tokens, 120);
  EXPECT_EQ(response->usage.cached_input_tokens, 100);
  EXPECT_EQ(response->usage.output_tokens, 30);
  EXPECT_EQ(response->usage.reasoning_tokens, 10);
  EXPECT_NEAR(response->cost_usd, (20 * 2.0 + 100 * 0.5 + 30 * 8.0) / 1e6, 1e-12);

  auto sent = requests();
  ASSERT_EQ(sent.size(), 1u);
  const auto& body = sent[0].at("body").as_object();
  EXPECT_EQ(sent[0].at("authorization").as_string(), std::string("Bearer ") + kKey);
  EXPECT_EQ(body.at("max_completion_tokens"), 512);
  EXPECT_EQ(body.at("tool_choice"), "auto");
  EXPECT_EQ(body.at("tools").at(0).at("function").at("name"), "test");
  const auto& messages = body.at("messages").as_array();
  ASSERT_EQ(messages.size(), 4u);
  EXPECT_TRUE(messages[2].at("content").is_null());
  EXPECT_EQ(messages[2].at("tool_calls").at(0).at("function").at("arguments"), R"({"code":"x"})");
  EXPECT_EQ(messages[3].at("role"), "tool");
  EXPECT_EQ(messages[3].at("tool_call_id"), "call_0");
  EXPECT_FALSE(body.contains("stream"));
}

TEST_F(OpenAiBackendTest, KeepsMalformedToolArgumentsVerbatim) {
  auto model = backend("tools", false);
  ASSERT_TRUE(model);
  auto response = (*model)->chat(conversation());
  ASSERT_TRUE(response) << response.status().to_string();
  ASSERT_EQ(response->message.tool_calls.size(), 2u);
  EXPECT_EQ(response->message.tool_calls[0].name, "test");
  EXPECT_EQ(response->message.tool_calls[0].arguments_json, R"({"code": "x = 1"})");
  EXPECT_EQ(response->message.tool_calls[1].arguments_json, R"({"code": oops)");  // the core explains it to the model
  EXPECT_EQ(response->finish_reason, "tool_calls");
}

TEST_F(OpenAiBackendTest, StreamingJoinsToolCallFragmentsByIndex) {
  auto model = backend("stream", true);
  ASSERT_TRUE(model);
  auto response = (*model)->chat(conversation());
  ASSERT_TRUE(response) << response.status().to_string();
  EXPECT_EQ(response->message.content, "Here it is.");
  ASSERT_EQ(response->message.tool_calls.size(), 2u);
  EXPECT_EQ(response->message.tool_calls[0].id, "call_1");
  EXPECT_EQ(response->message.tool_calls[0].name, "test");
  EXPECT_EQ(response->message.tool_calls[0].arguments_json, R"({"code": "x = 1"})");
  EXPECT_EQ(response->message.tool_calls[1].name, "compile");
  EXPECT_EQ(response->message.tool_calls[1].arguments_json, R"({"code": "y"})");
  EXPECT_EQ(response->usage.input_tokens, 120);  // from the last chunk
  EXPECT_EQ(response->finish_reason, "tool_calls");
  auto sent = requests();
  EXPECT_EQ(sent[0].at("body").at("stream_options").at("include_usage"), true);
}

TEST_F(OpenAiBackendTest, RetriesA429AfterItsRetryAfter) {
  auto model = backend("rate-limited", false);
  ASSERT_TRUE(model);
  auto started = std::chrono::steady_clock::now();
  auto response = (*model)->chat(conversation());
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_TRUE(response) << response.status().to_string();
  EXPECT_EQ(requests().size(), 2u);
  EXPECT_GE(waited, 0.2) << "retry-after-ms: 200 must be honoured";
}

TEST_F(OpenAiBackendTest, Retries5xxAndDroppedConnections) {
  auto errors = backend("server-error", false);
  ASSERT_TRUE(errors);
  ASSERT_TRUE((*errors)->chat(conversation()));
  EXPECT_EQ(requests().size(), 3u);
  auto dropped = backend("drop", false);
  ASSERT_TRUE(dropped);
  auto response = (*dropped)->chat(conversation());
  ASSERT_TRUE(response) << response.status().to_string();
  EXPECT_EQ(requests().size(), 2u);
}

TEST_F(OpenAiBackendTest, AnErrorEventInsideA200StreamIsRetried) {
  auto model = backend("stream-error", true);
  ASSERT_TRUE(model);
  auto response = (*model)->chat(conversation());
  ASSERT_TRUE(response) << response.status().to_string();
  EXPECT_EQ(response->message.content, "Here it is.");  // not "Here Here it is."
  EXPECT_EQ(requests().size(), 2u);
}

TEST_F(OpenAiBackendTest, GivesUpWithAClearErrorAfterTheRetries) {
  auto model = backend("always-500", false, R"(,"max_retries":2)");
  ASSERT_TRUE(model);
  auto response = (*model)->chat(conversation());
  ASSERT_FALSE(response);
  EXPECT_EQ(response.status().code(), StatusCode::unavailable);
  EXPECT_NE(response.status().message().find("HTTP 500"), std::string::npos) << response.status().message();
  EXPECT_NE(response.status().message().find("always broken"), std::string::npos);
  EXPECT_NE(response.status().message().find("after 3 attempts"), std::string::npos);
  EXPECT_EQ(response.status().message().find(kKey), std::string::npos) << "the key must never appear in messages";
}

TEST_F(OpenAiBackendTest, AuthenticationFailureIsNotRetried) {
  auto model = backend("unauthorized", false);
  ASSERT_TRUE(model);
  auto response = (*model)->chat(conversation());
  ASSERT_FALSE(response);
  EXPECT_EQ(response.status().code(), StatusCode::failed_precondition);
  EXPECT_EQ(requests().size(), 1u);
}

TEST_F(OpenAiBackendTest, AnUnreachableServerIsAnErrorNotACrash) {
  PluginContext context;
  context.config_json = R"({"model":"m","base_url":"http://127.0.0.1:9/v1","require_api_key":false,"max_retries":1,
                            "retry_initial_delay_s":0.01,"timeout_s":2})";
  auto model = registry_->create<ModelBackend>("tritongym.backend.openai", context);
  ASSERT_TRUE(model);
  auto response = (*model)->chat(conversation());
  ASSERT_FALSE(response);
  EXPECT_EQ(response.status().code(), StatusCode::unavailable);
}

TEST_F(OpenAiBackendTest, TheKeyComesFromTheEnvironmentOrAFileOnly) {
  PluginContext context;
  context.config_json = R"({"model":"m","api_key_env":"TRITONGYM_TEST_UNSET_VARIABLE"})";
  auto missing = registry_->create<ModelBackend>("tritongym.backend.openai", context);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.status().code(), StatusCode::invalid_config);
  EXPECT_NE(missing.status().message().find("TRITONGYM_TEST_UNSET_VARIABLE"), std::string::npos);
  testing::TemporaryDirectory dir;
  std::string file = dir.write("key.txt", "sk-from-file\n");
  context.config_json = R"({"model":"ok","api_key_env":"TRITONGYM_TEST_UNSET_VARIABLE","api_key_file":")" + file +
                        R"(","stream":false,"base_url":")" + server_->base_url() + R"(/v1","extra_headers":{"X-Test-Group":"key-file"}})";
  auto from_file = registry_->create<ModelBackend>("tritongym.backend.openai", context);
  ASSERT_TRUE(from_file) << from_file.status().to_string();
  ASSERT_TRUE((*from_file)->chat(conversation()));
  auto sent = boost::json::parse(server_->requests("key-file")).at("requests").as_array();
  EXPECT_EQ(sent.at(0).at("authorization"), "Bearer sk-from-file");
}

TEST_F(OpenAiBackendTest, PricesCanComeFromAPriceTable) {
  testing::TemporaryDirectory dir;
  std::string table = dir.write("prices.yaml", "models:\n  ok: {input: 4.0, cached_input: 1.0, output: 20.0}\n");
  auto model = BackendTestBase::backend("tritongym.backend.openai", "/v1", "ok", false,
                                        R"(,"price_table":")" + table + R"(")");
  ASSERT_TRUE(model) << model.status().to_string();
  auto response = (*model)->chat(conversation());
  ASSERT_TRUE(response) << response.status().to_string();
  EXPECT_NEAR(response->cost_usd, (20 * 4.0 + 100 * 1.0 + 30 * 20.0) / 1e6, 1e-12);

  auto unknown = BackendTestBase::backend("tritongym.backend.openai", "/v1", "okk", false,
                                          R"(,"price_table":")" + table + R"(")");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.status().location(), "/price_table");
  EXPECT_NE(unknown.status().message().find("did you mean 'ok'"), std::string::npos) << unknown.status().message();
}

TEST_F(OpenAiBackendTest, TheShippedPriceTableParses) {
  for (const char* name : {"gpt-5", "gpt-4o", "o3"}) {
    PluginContext context;
    context.project_root = testing::source_dir();
    context.config_json = std::string(R"({"model":")") + name +
                          R"(","require_api_key":false,"price_table":"plugins/backends/prices.yaml"})";
    auto created = registry_->create<ModelBackend>("tritongym.backend.openai", context);
    EXPECT_TRUE(created) << name << ": " << created.status().to_string();
  }
  PluginContext context;
  context.project_root = testing::source_dir();
  context.config_json = R"({"model":"claude-sonnet-4-5","require_api_key":false,"price_table":"plugins/backends/prices.yaml"})";
  auto claude = registry_->create<ModelBackend>("tritongym.backend.anthropic", context);
  EXPECT_TRUE(claude) << claude.status().to_string();
}

}  // namespace
}  // namespace tritongym::plugins
