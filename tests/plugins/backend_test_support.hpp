// What the API backend tests share: the loopback LLM server, the loaded plugins, a backend per
// scenario (the server reads the scenario from the model name) in its own request group.
#pragma once

#include <boost/json.hpp>
#include <gtest/gtest.h>
#include <stdlib.h>

#include "plugins/loader.hpp"
#include "support/test_support.hpp"

namespace tritongym::plugins {

class BackendTestBase : public ::testing::Test {
 protected:
  static constexpr const char* kKey = "sk-loopback-test-key-123";

  static void SetUpTestSuite() {
    server_ = new testing::LoopbackLlmServer;
    registry_ = new Registry;
    load_plugins({testing::builtin_plugin_dir()}, *registry_);
    ::setenv("TRITONGYM_TEST_API_KEY", kKey, 1);
  }
  static void TearDownTestSuite() {
    delete registry_;
    delete server_;
  }

  // `base_path` is appended to the server's URL ("/v1" for OpenAI, "" for Anthropic).
  Result<std::unique_ptr<ModelBackend>> backend(const std::string& plugin_id, const std::string& base_path,
                                                const std::string& scenario, bool stream, const std::string& extra = "") {
    group_ = ::testing::UnitTest::GetInstance()->current_test_info()->name() + std::string("-") + scenario;
    std::string config = R"({"model":")" + scenario + R"(","base_url":")" + server_->base_url() + base_path +
                         R"(","api_key_env":"TRITONGYM_TEST_API_KEY","stream":)" + (stream ? "true" : "false") +
                         R"(,"retry_initial_delay_s":0.05,"extra_headers":{"X-Test-Group":")" + group_ + R"("})" +
                         extra + "}";
    PluginContext context;
    context.config_json = config;
    return registry_->create<ModelBackend>(plugin_id, context);
  }

  boost::json::array requests() const { return boost::json::parse(server_->requests(group_)).at("requests").as_array(); }

  static ChatRequest conversation() {
    ChatRequest request;
    request.messages = {{Role::system, "You write kernels.", {}, {}, {}},
                        {Role::user, "Add two vectors.", {}, {}, {}},
                        {Role::assistant, "", {{"call_0", "test", R"({"code":"x"})"}}, {}, {}},
                        {Role::tool, "passed", {}, "call_0", "test"}};
    request.tools = {{"test", "Test the code", R"({"type":"object","properties":{"code":{"type":"string"}}})"}};
    request.tool_choice = "auto";
    request.max_output_tokens = 512;
    request.temperature = 0.2;
    return request;
  }

  inline static testing::LoopbackLlmServer* server_ = nullptr;
  inline static Registry* registry_ = nullptr;
  std::string group_;
};

}  // namespace tritongym::plugins
