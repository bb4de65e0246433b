// tritongym.backend.anthropic: the Messages API with tool_use and tool_result blocks.
#pragma once

#include "anthropic_config.hpp"
#include "chat_exchange.hpp"
#include "tritongym/sdk/backend.hpp"

namespace tritongym::backend_anthropic {

class AnthropicBackend final : public ModelBackend {
 public:
  AnthropicBackend(AnthropicConfig config, const std::string& api_key);

  Result<ChatResponse> chat(const ChatRequest& request) noexcept override;
  std::string model_name() const noexcept override { return config_.model; }

 private:
  double cost_usd(const TokenUsage& usage) const;

  AnthropicConfig config_;
  http::ChatEndpoint endpoint_;
};

}  // namespace tritongym::backend_anthropic
