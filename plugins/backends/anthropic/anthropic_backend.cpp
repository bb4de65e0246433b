#include "anthropic_backend.hpp"

#include "anthropic_wire.hpp"

namespace tritongym::backend_anthropic {
namespace {

class AnthropicReader final : public http::ResponseReader {
 public:
  Result<ChatResponse> parse_whole(const std::string& body) override {
    boost::system::error_code error;
    auto value = boost::json::parse(body, error);
    if (error) return Status(StatusCode::unavailable, "the response is not JSON: " + body.substr(0, 200));
    return parse_response(value);
  }
  Status add_event(const http::ServerSentEvent& event) override { return accumulator_.add(event.event, event.data); }
  Result<ChatResponse> finish_stream() override {
    if (!accumulator_.complete())
      return Status(StatusCode::unavailable, "the stream ended before message_stop");
    return accumulator_.finish();
  }

 private:
  StreamAccumulator accumulator_;
};

}  // namespace

AnthropicBackend::AnthropicBackend(AnthropicConfig config, const std::string& api_key)
    : config_(std::move(config)),
      endpoint_(http::make_endpoint(config_.base_url, "/v1/messages", config_.stream, config_.timeout_s,
                                    config_.max_retries, config_.retry_initial_delay_s, config_.retry_max_delay_s,
                                    config_.extra_headers)) {
  endpoint_.headers.push_back("anthropic-version: " + config_.anthropic_version);
  if (!api_key.empty()) endpoint_.headers.push_back("x-api-key: " + api_key);
}

double AnthropicBackend::cost_usd(const TokenUsage& usage) const {
  double uncached = static_cast<double>(usage.input_tokens - usage.cached_input_tokens - usage.cache_write_tokens);
  return (uncached * config_.usd_per_million_input +
          static_cast<double>(usage.cached_input_tokens) * config_.usd_per_million_cache_read +
          static_cast<double>(usage.cache_write_tokens) * config_.usd_per_million_cache_write +
          static_cast<double>(usage.output_tokens) * config_.usd_per_million_output) /
         1e6;
}

Result<ChatResponse> AnthropicBackend::chat(const ChatRequest& request) noexcept {
  try {
    std::string body = boost::json::serialize(request_body(request, config_));
    auto response = http::exchange(endpoint_, body, [] { return std::make_unique<AnthropicReader>(); });
    if (!response) return response;
    if (response->model.empty()) response->model = config_.model;
    response->cost_usd = cost_usd(response->usage);
    return response;
  } catch (const std::exception& error) {
    return Status(StatusCode::internal, std::string("anthropic backend: ") + error.what());
  }
}

}  // namespace tritongym::backend_anthropic
