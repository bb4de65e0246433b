#include "openai_backend.hpp"

#include <thread>

#include "openai_wire.hpp"
#include "sse.hpp"

namespace tritongym::backend_openai {

OpenAiBackend::OpenAiBackend(OpenAiConfig config, std::string api_key)
    : config_(std::move(config)), api_key_(std::move(api_key)) {
  retry_.max_retries = static_cast<int>(config_.max_retries);
  retry_.initial_delay_s = config_.retry_initial_delay_s;
  retry_.max_delay_s = config_.retry_max_delay_s;
}

double OpenAiBackend::cost_usd(const TokenUsage& usage) const {
  double uncached = static_cast<double>(usage.input_tokens - usage.cached_input_tokens);
  return (uncached * config_.usd_per_million_input +
          static_cast<double>(usage.cached_input_tokens) * config_.usd_per_million_cached_input +
          static_cast<double>(usage.output_tokens) * config_.usd_per_million_output) /
         1e6;
}

Result<http::HttpResponse> OpenAiBackend::attempt(const std::string& body,
                                                  std::optional<ChatResponse>& parsed) const {
  http::HttpRequest request;
  std::string base = config_.base_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  request.url = base + "/chat/completions";
  request.body = body;
  request.timeout_s = config_.timeout_s;
  request.headers = {"Content-Type: application/json",
                     "Accept: " + std::string(config_.stream ? "text/event-stream" : "application/json")};
  if (!api_key_.empty()) request.headers.push_back("Authorization: Bearer " + api_key_);
  for (const auto& [name, value] : config_.extra_headers) request.headers.push_back(name + ": " + value);

  if (!config_.stream) {
    auto response = http::perform(request);
    if (!response || response->status < 200 || response->status >= 300) return response;
    boost::system::error_code error;
    auto value = boost::json::parse(response->body, error);
    if (error) return Status(StatusCode::unavailable, "the response is not JSON: " + response->body.substr(0, 200));
    auto chat = parse_response(value);
    if (!chat) return Status(StatusCode::unavailable, chat.status().message());
    parsed = std::move(chat.value());
    return response;
  }
  // Streaming: a fresh accumulator per attempt, so a retried stream never mixes with a dropped one.
  http::SseParser parser;
  StreamAccumulator accumulator;
  Status stream_error;
  auto response = http::perform(request, [&](std::string_view chunk) {
    for (const auto& event : parser.feed(chunk)) {
      if (event.data.empty()) continue;
      if (Status added = accumulator.add(event.data); !added.is_ok()) {
        stream_error = added;  // an error event inside an HTTP 200 stream
        return false;
      }
    }
    return true;
  });
  if (!stream_error.is_ok()) return stream_error;
  if (!response || response->status < 200 || response->status >= 300) return response;
  if (!accumulator.done() && accumulator.finish().finish_reason.empty())
    return Status(StatusCode::unavailable, "the stream ended before the response was complete");
  parsed = accumulator.finish();
  return response;
}

Result<ChatResponse> OpenAiBackend::chat(const ChatRequest& request) noexcept {
  try {
    std::string body = boost::json::serialize(request_body(request, config_));
    std::optional<ChatResponse> parsed;
    http::AttemptLog log;
    auto outcome = http::perform_with_retries(
        [&]() -> Result<http::HttpResponse> {
          parsed.reset();
          return attempt(body, parsed);
        },
        retry_, log, [](double seconds) { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); });

    std::string attempts = " (after " + std::to_string(log.attempts) + " attempt" + (log.attempts == 1 ? "" : "s") + ")";
    if (!outcome) return Status(outcome.status().code(), outcome.status().message() + attempts);
    long status = outcome->status;
    if (status >= 200 && status < 300 && parsed) {
      ChatResponse response = std::move(*parsed);
      if (response.model.empty()) response.model = config_.model;
      response.cost_usd = cost_usd(response.usage);
      return response;
    }
    std::string message = "HTTP " + std::to_string(status) + " from " + config_.base_url + ": " +
                          error_message(outcome->body) + attempts;
    if (status == 401 || status == 403) return Status(StatusCode::failed_precondition, "authentication failed: " + message);
    if (status == 404) return Status(StatusCode::not_found, message);
    if (status == 429) return Status(StatusCode::resource_exhausted, "rate limited: " + message);
    if (status >= 500 || status == 408 || status == 409) return Status(StatusCode::unavailable, message);
    return Status(StatusCode::invalid_argument, message);
  } catch (const std::exception& error) {
    return Status(StatusCode::internal, std::string("openai backend: ") + error.what());
  }
}

}  // namespace tritongym::backend_openai
