// One model call over HTTP, shared by the API backends: the request goes out with retries, the answer
// is read whole or as a stream by a provider-specific reader, and HTTP errors become Statuses with
// the provider's own message. The API key is in the headers only: never in a message or a log.
#pragma once

#include <functional>
#include <map>
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

// An endpoint at <base_url without trailing '/'><path>, with the retry settings and extra headers of a
// backend's config. The caller adds its key header.
ChatEndpoint make_endpoint(std::string base_url, const std::string& path, bool stream, double timeout_s,
                           int64_t max_retries, double retry_initial_delay_s, double retry_max_delay_s,
                           const std::map<std::string, std::string>& extra_headers);

// The provider's error text in an error body ({"error": {"message": ...}} for both formats).
std::string error_message_of(const std::string& body);

Result<ChatResponse> exchange(const ChatEndpoint& endpoint, const std::string& body,
                              const std::function<std::unique_ptr<ResponseReader>()>& make_reader);

}  // namespace tritongym::http
