#include "chat_exchange.hpp"

#include <boost/json.hpp>

#include <optional>
#include <thread>

namespace tritongym::http {
namespace {

// One exchange: the HTTP response (any status), or a Status for a transport failure or a broken
// stream (both retried). On a 2xx it also fills `parsed`.
Result<HttpResponse> attempt(const ChatEndpoint& endpoint, const std::string& body, ResponseReader& reader,
                             std::optional<ChatResponse>& parsed) {
  HttpRequest request;
  request.url = endpoint.url;
  request.body = body;
  request.timeout_s = endpoint.timeout_s;
  request.headers = endpoint.headers;
  request.headers.push_back("Content-Type: application/json");
  request.headers.push_back(std::string("Accept: ") + (endpoint.stream ? "text/event-stream" : "application/json"));
  if (!endpoint.stream) {
    auto response = perform(request);
    if (!response || response->status < 200 || response->status >= 300) return response;
    auto chat = reader.parse_whole(response->body);
    if (!chat) return Status(StatusCode::unavailable, chat.status().message());
    parsed = std::move(chat.value());
    return response;
  }
  SseParser parser;
  Status stream_error;
  auto response = perform(request, [&](std::string_view chunk) {
    for (const auto& event : parser.feed(chunk)) {
      if (Status added = reader.add_event(event); !added.is_ok()) {
        stream_error = added;
        return false;
      }
    }
    return true;
  });
  if (!stream_error.is_ok()) return Status(StatusCode::unavailable, stream_error.message());
  if (!response || response->status < 200 || response->status >= 300) return response;
  auto chat = reader.finish_stream();
  if (!chat) return Status(StatusCode::unavailable, chat.status().message());
  parsed = std::move(chat.value());
  return response;
}

}  // namespace

ChatEndpoint make_endpoint(std::string base_url, const std::string& path, bool stream, double timeout_s,
                           int64_t max_retries, double retry_initial_delay_s, double retry_max_delay_s,
                           const std::map<std::string, std::string>& extra_headers) {
  ChatEndpoint endpoint;
  endpoint.provider = base_url;
  while (!base_url.empty() && base_url.back() == '/') base_url.pop_back();
  endpoint.url = base_url + path;
  endpoint.stream = stream;
  endpoint.timeout_s = timeout_s;
  endpoint.retry.max_retries = static_cast<int>(max_retries);
  endpoint.retry.initial_delay_s = retry_initial_delay_s;
  endpoint.retry.max_delay_s = retry_max_delay_s;
  for (const auto& [name, value] : extra_headers) endpoint.headers.push_back(name + ": " + value);
  return endpoint;
}

std::string error_message_of(const std::string& body) {
  boost::system::error_code error;
  boost::json::value value = boost::json::parse(body, error);
  if (!error && value.is_object())
    if (const auto* inner = value.as_object().if_contains("error"); inner && inner->is_object())
      if (const auto* message = inner->as_object().if_contains("message"); message && message->is_string())
        return std::string(message->as_string());
  return body.substr(0, 300);
}

Result<ChatResponse> exchange(const ChatEndpoint& endpoint, const std::string& body,
                              const std::function<std::unique_ptr<ResponseReader>()>& make_reader) {
  std::optional<ChatResponse> parsed;
  AttemptLog log;
  auto outcome = perform_with_retries(
      [&]() -> Result<HttpResponse> {
        parsed.reset();
        auto reader = make_reader();  // a fresh reader: a retried stream never mixes with a dropped one
        return attempt(endpoint, body, *reader, parsed);
      },
      endpoint.retry, log, [](double seconds) { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); });
  std::string attempts = " (after " + std::to_string(log.attempts) + " attempt" + (log.attempts == 1 ? "" : "s") + ")";
  if (!outcome) return Status(outcome.status().code(), outcome.status().message() + attempts);
  long status = outcome->status;
  if (status >= 200 && status < 300 && parsed) return std::move(*parsed);
  std::string message = "HTTP " + std::to_string(status) + " from " + endpoint.provider + ": " +
                        error_message_of(outcome->body) + attempts;
  if (status == 401 || status == 403) return Status(StatusCode::failed_precondition, "authentication failed: " + message);
  if (status == 404) return Status(StatusCode::not_found, message);
  if (status == 429) return Status(StatusCode::resource_exhausted, "rate limited: " + message);
  if (RetryPolicy::retryable_status(status)) return Status(StatusCode::unavailable, message);
  return Status(StatusCode::invalid_argument, message);
}

}  // namespace tritongym::http
