// The Anthropic Messages wire format: requests from ChatRequest (system prompt apart, tool results
// as user turns, roles alternating), responses whole or streamed. No I/O here.
#pragma once

#include <boost/json.hpp>

#include <map>
#include <string>

#include "anthropic_config.hpp"
#include "tritongym/sdk/status.hpp"
#include "tritongym/sdk/types.hpp"

namespace tritongym::backend_anthropic {

boost::json::object request_body(const ChatRequest& request, const AnthropicConfig& config);

Result<ChatResponse> parse_response(const boost::json::value& body);

// Usage with cache reads and writes kept apart; input_tokens counts every prompt token.
TokenUsage parse_usage(const boost::json::object& usage, TokenUsage base = {});

// Joins a streamed message: text and tool_use blocks by index, partial JSON of tool inputs, the stop
// reason and the usage of message_start and message_delta. An `error` event is an error Status.
class StreamAccumulator {
 public:
  Status add(const std::string& event, const std::string& data);
  bool complete() const { return stopped_; }
  ChatResponse finish() const;

 private:
  struct Block {
    std::string type;  // "text" or "tool_use"
    std::string text;
    std::string id, name, input_json;
  };
  std::map<int64_t, Block> blocks_;
  std::string model_, stop_reason_;
  TokenUsage usage_;
  bool stopped_ = false;
};

}  // namespace tritongym::backend_anthropic
