// tritongym.backend.anthropic against a real HTTP server on loopback that speaks Messages.
#include "backend_test_support.hpp"

namespace tritongym::plugins {
namespace {

class AnthropicBackendTest : public BackendTestBase {
 protected:
  Result<std::unique_ptr<ModelBackend>> backend(const std::string& scenario, bool stream, const std::string& extra = "") {
    return BackendTestBase::backend("tritongym.backend.anthropic", "", scenario, stream,
                                    R"(,"usd_per_million_input":3.0,"usd_per_million_cache_read":0.3,)"
                                    R"("usd_per_million_cache_write":3.75,"usd_per_million_output":15.0)" + extra);
  }
};

TEST_F(AnthropicBackendTest, SendsTheWireFormatAndKeepsCacheReadsAndWritesApart) {
  ASSERT_TRUE(server_->running());
  auto model = backend("ok", false);
  ASSERT_TRUE(model) << model.status().to_string();
  auto response = (*model)->chat(conversation());
  ASSERT_TRUE(response) << response.status().to_string();
  EXPECT_EQ(response->message.content, "Here is a kernel.");
  EXPECT_EQ(response->usage.cached_input_tokens, 100);
  EXPECT_EQ(response->usage.cache_write_tokens, 7);
  EXPECT_EQ(response->usage.input_tokens, 127);  // every prompt token: uncached + read + written
  EXPECT_EQ(response->usage.output_tokens, 30);
  EXPECT_NEAR(response->cost_usd, (20 * 3.0 + 100 * 0.3 + 7 * 3.75 + 30 * 15.0) / 1e6, 1e-12);

  auto sent = requests();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].at("x_api_key").as_string(), kKey);
  EXPECT_EQ(sent[0].at("anthropic_version"), "2023-06-01");
  EXPECT_EQ(sent[0].at("path"), "/v1/messages");
  const auto& body = sent[0].at("body").as_object();
  EXPECT_EQ(body.at("system"), "You write kernels.");
  EXPECT_EQ(body.at("max_tokens"), 512);
  EXPECT_EQ(body.at("tools").at(0).at("input_schema").at("type"), "object");
  EXPECT_EQ(body.at("tool_choice").at("type"), "auto");
  const auto& messages = body.at("messages").as_array();
  ASSERT_EQ(messages.size(), 3u);  // user, assistant (tool_use), user (tool_result)
  EXPECT_EQ(messages[1].at("content").at(0).at("type"), "tool_use");
  EXPECT_EQ(messages[1].at("content").at(0).at("input").at("code"), "x");
  EXPECT_EQ(messages[2].at("role"), "user");
  EXPECT_EQ(messages[2].at("content").at(0).at("type"), "tool_result");
  EXPECT_EQ(messages[2].at("content").at(0).at("tool_use_id"), "call_0");
}

TEST_F(AnthropicBackendTest, ReadsToolUseBlocks) {
  auto model = backend("tools", false);
  ASSERT_TRUE(model);
  auto response = (*model)->chat(conversation());
  ASSERT_TRUE(response) << response.status().to_string();
  EXPECT_EQ(response->message.content, "Testing.");
  ASSERT_EQ(response->message.tool_calls.size(), 1u);
  EXPECT_EQ(response->message.tool_calls[0].id, "toolu_a");
  EXPECT_EQ(response->message.tool_calls[0].arguments_json, R"({"code":"x = 1"})");
  EXPECT_EQ(response->finish_reason, "tool_use");
}

TEST_F(AnthropicBackendTest, StreamingJoinsBlocksAndPartialJson) {
  auto model = backend("stream", true);
  ASSERT_TRUE(model);
  auto response = (*model)->chat(conversation());
  ASSERT_TRUE(response) << response.status().to_string();
  EXPECT_EQ(response->message.content, "Here it is.");
  ASSERT_EQ(response->message.tool_calls.size(), 1u);
  EXPECT_EQ(response->message.tool_calls[0].name, "test");
  EXPECT_EQ(response->message.tool_calls[0].arguments_json, R"({"code": "x = 1"})");
  EXPECT_EQ(response->usage.cached_input_tokens, 100);
  EXPECT_EQ(response->usage.output_tokens, 30);  // from message_delta
  EXPECT_EQ(response->finish_reason, "tool_use");
}

TEST_F(AnthropicBackendTest, AnErrorEventInsideA200StreamIsRetried) {
  auto model = backend("stream-error", true);
  ASSERT_TRUE(model);
  auto response = (*model)->chat(conversation());
  ASSERT_TRUE(response) << response.status().to_string();
  EXPECT_EQ(response->message.content, "Here it is.");
  EXPECT_EQ(requests().size(), 2u);
}

TEST_F(AnthropicBackendTest, RetriesThenGivesUpClearly) {
  auto limited = backend("rate-limited", false);
  ASSERT_TRUE(limited);
  ASSERT_TRUE((*limited)->chat(conversation()));
  EXPECT_EQ(requests().size(), 2u);
  auto broken = backend("always-500", false, R"(,"max_retries":1)");
  ASSERT_TRUE(broken);
  auto response = (*broken)->chat(conversation());
  ASSERT_FALSE(response);
  EXPECT_EQ(response.status().code(), StatusCode::unavailable);
  EXPECT_NE(response.status().message().find("after 2 attempts"), std::string::npos) << response.status().message();
  EXPECT_EQ(response.status().message().find(kKey), std::string::npos);
}

TEST_F(AnthropicBackendTest, ADroppedConnectionIsRetried) {
  auto model = backend("drop", true);
  ASSERT_TRUE(model);
  auto response = (*model)->chat(conversation());
  ASSERT_TRUE(response) << response.status().to_string();
  EXPECT_EQ(requests().size(), 2u);
}

}  // namespace
}  // namespace tritongym::plugins
