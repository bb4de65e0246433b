// One model call over HTTP, shared by the API backends: the request goes out with retries, the answer
// is read whole or as a stream by a provider-specific reader, and HTTP errors become Statuses with
// the provider's own message. The API key is in the headers only: never in a message or a log.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "http_client.hpp"
#include "sse.hpp"
#include "tritongym/sdk/types.hpp"

namespace tritongym::http {

// Reads one provider's answer. A fresh reader is made for every attempt.
class ResponseReader {
 public:
  virtual ~ResponseReader() = default;
  virtual Result<ChatResponse> parse_whole(const std::string& body) = 0;
  // One server-sent event; an error event inside an HTTP 200 stream is an error Status (retried).
  virtual Status add_event(const ServerSentEvent& event) = 0;
  // The streamed answer, or an error if the stream ended before it was complete.
  virtual Result<ChatResponse> finish_stream() = 0;
};

struct ChatEndpoint {
  std::string url;
  std::vector<std::string> headers;  // including the key header
  bool stream = true;
  double timeout_s = 600;
  RetryPolicy retry;
  std::string provider;  // for messages: "https://api.openai.com/v1"
};

// The provider's error text in an error body ({"error": {"message": ...}} for both formats).
std::string error_message_of(const std::string& body);

Result<ChatResponse> exchange(const ChatEndpoint& endpoint, const std::string& body,
                              const std::function<std::unique_ptr<ResponseReader>()>& make_reader);

}  // namespace tritongym::http
