// tritongym.backend.openai: Chat Completions with tools, for OpenAI and every server that speaks it.
#pragma once

#include <optional>

#include "http_client.hpp"
#include "openai_config.hpp"
#include "tritongym/sdk/backend.hpp"

namespace tritongym::backend_openai {

class OpenAiBackend final : public ModelBackend {
 public:
  // `api_key` may be empty (local servers); it is sent, never logged or put in a message.
  OpenAiBackend(OpenAiConfig config, std::string api_key);

  Result<ChatResponse> chat(const ChatRequest& request) noexcept override;
  std::string model_name() const noexcept override { return config_.model; }

 private:
  // One exchange: the HTTP response (any status), or a Status for a transport failure or a broken
  // stream (both retried). On a 2xx it also fills `parsed`.
  Result<http::HttpResponse> attempt(const std::string& body, std::optional<ChatResponse>& parsed) const;
  double cost_usd(const TokenUsage& usage) const;

  OpenAiConfig config_;
  std::string api_key_;
  http::RetryPolicy retry_;
};

}  // namespace tritongym::backend_openai
