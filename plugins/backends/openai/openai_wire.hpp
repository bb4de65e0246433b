// The Chat Completions wire format: requests from ChatRequest, responses (whole or streamed) to
// ChatResponse. No I/O here.
#pragma once

#include <boost/json.hpp>

#include <map>
#include <string>

#include "openai_config.hpp"
#include "tritongym/sdk/status.hpp"
#include "tritongym/sdk/types.hpp"

namespace tritongym::backend_openai {

boost::json::object request_body(const ChatRequest& request, const OpenAiConfig& config);

// A whole (non-streamed) response.
Result<ChatResponse> parse_response(const boost::json::value& body);

// Joins streamed chunks: text deltas, tool-call fragments by index, the finish reason, the usage of
// the last chunk. An error object inside the stream becomes a Status.
class StreamAccumulator {
 public:
  // One `data:` payload. Error: the stream carried an error or unreadable JSON.
  Status add(const std::string& data);
  bool done() const { return done_; }
  ChatResponse finish() const;

 private:
  std::string content_;
  std::map<int64_t, ToolCall> calls_;
  std::string finish_reason_;
  std::string model_;
  TokenUsage usage_;
  bool done_ = false;
};

// Tokens from an OpenAI "usage" object (cached and reasoning tokens included where reported).
TokenUsage parse_usage(const boost::json::value& usage);

}  // namespace tritongym::backend_openai
