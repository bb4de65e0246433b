// Configuration of tritongym.backend.anthropic (plugin.yaml documents every key).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "tritongym/sdk/config.hpp"

namespace tritongym::backend_anthropic {

struct AnthropicConfig {
  std::string model;  // required: "claude-sonnet-4-5", ...
  std::string base_url = "https://api.anthropic.com";
  std::string api_key_env = "ANTHROPIC_API_KEY";
  std::string api_key_file;
  bool require_api_key = true;
  std::string anthropic_version = "2023-06-01";
  bool stream = true;
  double timeout_s = 600;
  int64_t max_retries = 4;
  double retry_initial_delay_s = 0.5;
  double retry_max_delay_s = 8.0;
  int64_t max_tokens = 16384;  // Messages requires a cap; a workflow's max_output_tokens wins
  std::optional<double> temperature;
  std::map<std::string, std::string> extra_headers;
  JsonText extra_body{"{}"};
  std::string price_table;  // a YAML price table (relative: to the project root); explicit prices win
  double usd_per_million_input = 0;
  double usd_per_million_cache_read = 0;
  double usd_per_million_cache_write = 0;
  double usd_per_million_output = 0;

  static constexpr auto fields() {
    return std::make_tuple(
        field("model", &AnthropicConfig::model), field("base_url", &AnthropicConfig::base_url),
        field("api_key_env", &AnthropicConfig::api_key_env), field("api_key_file", &AnthropicConfig::api_key_file),
        field("require_api_key", &AnthropicConfig::require_api_key),
        field("anthropic_version", &AnthropicConfig::anthropic_version), field("stream", &AnthropicConfig::stream),
        field("timeout_s", &AnthropicConfig::timeout_s), field("max_retries", &AnthropicConfig::max_retries),
        field("retry_initial_delay_s", &AnthropicConfig::retry_initial_delay_s),
        field("retry_max_delay_s", &AnthropicConfig::retry_max_delay_s), field("max_tokens", &AnthropicConfig::max_tokens),
        field("temperature", &AnthropicConfig::temperature), field("extra_headers", &AnthropicConfig::extra_headers),
        field("extra_body", &AnthropicConfig::extra_body), field("price_table", &AnthropicConfig::price_table),
        field("usd_per_million_input", &AnthropicConfig::usd_per_million_input),
        field("usd_per_million_cache_read", &AnthropicConfig::usd_per_million_cache_read),
        field("usd_per_million_cache_write", &AnthropicConfig::usd_per_million_cache_write),
        field("usd_per_million_output", &AnthropicConfig::usd_per_million_output));
  }
};

}  // namespace tritongym::backend_anthropic
