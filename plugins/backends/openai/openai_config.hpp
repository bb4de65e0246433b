// Configuration of tritongym.backend.openai (plugin.yaml documents every key).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "tritongym/sdk/config.hpp"

namespace tritongym::backend_openai {

struct OpenAiConfig {
  std::string model;                                  // required: "gpt-5", "Qwen/Qwen3-32B", ...
  std::string base_url = "https://api.openai.com/v1";  // vLLM, SGLang, llama.cpp, Ollama, LiteLLM: their /v1
  std::string api_key_env = "OPENAI_API_KEY";
  std::string api_key_file;
  bool require_api_key = true;  // false for local servers that need none
  bool stream = true;
  double timeout_s = 600;
  int64_t max_retries = 4;
  double retry_initial_delay_s = 0.5;
  double retry_max_delay_s = 8.0;
  std::optional<double> temperature;
  std::string max_tokens_field = "max_completion_tokens";  // older servers want "max_tokens"
  bool parallel_tool_calls = true;
  std::map<std::string, std::string> extra_headers;
  JsonText extra_body{"{}"};  // merged into every request body (reasoning_effort, top_p, ...)
  std::string price_table;    // a YAML price table (relative: to the project root); explicit prices win
  double usd_per_million_input = 0;
  double usd_per_million_cached_input = 0;
  double usd_per_million_output = 0;

  static constexpr auto fields() {
    return std::make_tuple(
        field("model", &OpenAiConfig::model), field("base_url", &OpenAiConfig::base_url),
        field("api_key_env", &OpenAiConfig::api_key_env), field("api_key_file", &OpenAiConfig::api_key_file),
        field("require_api_key", &OpenAiConfig::require_api_key), field("stream", &OpenAiConfig::stream),
        field("timeout_s", &OpenAiConfig::timeout_s), field("max_retries", &OpenAiConfig::max_retries),
        field("retry_initial_delay_s", &OpenAiConfig::retry_initial_delay_s),
        field("retry_max_delay_s", &OpenAiConfig::retry_max_delay_s), field("temperature", &OpenAiConfig::temperature),
        field("max_tokens_field", &OpenAiConfig::max_tokens_field),
        field("parallel_tool_calls", &OpenAiConfig::parallel_tool_calls),
        field("extra_headers", &OpenAiConfig::extra_headers), field("extra_body", &OpenAiConfig::extra_body),
        field("price_table", &OpenAiConfig::price_table),
        field("usd_per_million_input", &OpenAiConfig::usd_per_million_input),
        field("usd_per_million_cached_input", &OpenAiConfig::usd_per_million_cached_input),
        field("usd_per_million_output", &OpenAiConfig::usd_per_million_output));
  }
};

}  // namespace tritongym::backend_openai
