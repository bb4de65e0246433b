// tritongym.backend.openai: Chat Completions with tools, for OpenAI and every server that speaks it.
#pragma once

#include "chat_exchange.hpp"
#include "openai_config.hpp"
#include "tritongym/sdk/backend.hpp"

namespace tritongym::backend_openai {

class OpenAiBackend final : public ModelBackend {
 public:
  // `api_key` may be empty (local servers); it is sent, never logged or put in a message.
  OpenAiBackend(OpenAiConfig config, const std::string& api_key);

  Result<ChatResponse> chat(const ChatRequest& request) noexcept override;
  std::string model_name() const noexcept override { return config_.model; }

 private:
  double cost_usd(const TokenUsage& usage) const;

  OpenAiConfig config_;
  http::ChatEndpoint endpoint_;
};

}  // namespace tritongym::backend_openai
