// The one HTTP client of the model backends: libcurl, one easy handle per request (thread-safe),
// optional streaming of the body as it arrives, and the retry policy of the official API clients.
#pragma once

#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "tritongym/sdk/status.hpp"

namespace tritongym::http {

struct HttpRequest {
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  std::string body;                  // sent as POST when not empty, else GET
  double timeout_s = 600;            // the whole exchange
  double connect_timeout_s = 10;
};

struct HttpResponse {
  long status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;                            // empty when streamed to a callback
};

// Called with each piece of the body as it arrives; return false to abort the transfer.
using BodyChunkHandler = std::function<bool(std::string_view chunk)>;

// One exchange. A transport failure (refused, dropped, timed out) is a Status: unavailable or
// deadline_exceeded. Any HTTP status, 4xx and 5xx included, is a response. When `on_chunk` is given
// and the status is 2xx, the body goes to it instead of HttpResponse::body.
Result<HttpResponse> perform(const HttpRequest& request, const BodyChunkHandler& on_chunk = nullptr);

// As the official clients retry: 408, 409, 429 and 5xx, and transport failures; honouring
// Retry-After (seconds or an HTTP date, capped); else exponential backoff with jitter.
struct RetryPolicy {
  int max_retries = 4;
  double initial_delay_s = 0.5;
  double max_delay_s = 8.0;
  double max_retry_after_s = 60.0;

  static bool retryable_status(long status) { return status == 408 || status == 409 || status == 429 || status >= 500; }
  // Delay before retry number `attempt` (1-based), from the response's Retry-After when present.
  double delay_s(int attempt, const std::map<std::string, std::string>& headers, std::mt19937& random) const;
};

// What happened across the attempts, for the backend's error messages and the store.
struct AttemptLog {
  int attempts = 0;
  std::vector<std::string> failures;  // "HTTP 429", "connection dropped: ..."
};

// Performs `make_request()` until it succeeds, fails for a non-retryable reason, or the retries run out.
// `sleep` is injectable so tests need not wait. The final response may still be an HTTP error.
Result<HttpResponse> perform_with_retries(const std::function<Result<HttpResponse>()>& attempt,
                                          const RetryPolicy& policy, AttemptLog& log,
                                          const std::function<void(double)>& sleep);

}  // namespace tritongym::http
