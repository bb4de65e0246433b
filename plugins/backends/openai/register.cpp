// Registers tritongym.backend.openai.
#include "api_key.hpp"
#include "price_table.hpp"
#include "openai_backend.hpp"
#include "tritongym/sdk/plugin.hpp"

namespace {

using namespace tritongym;

Result<std::unique_ptr<ModelBackend>> create(const PluginContext& context) {
  auto config = parse_config<backend_openai::OpenAiConfig>(context.config_json);
  if (!config) return config.status();
  if (config->model.empty()) return Status(StatusCode::invalid_config, "`model` is required", "/model");
  if (config->base_url.rfind("http://", 0) != 0 && config->base_url.rfind("https://", 0) != 0)
    return Status(StatusCode::invalid_config, "base_url must start with http:// or https://", "/base_url");
  if (config->max_retries < 0) return Status(StatusCode::invalid_config, "max_retries must be 0 or more", "/max_retries");
  if (!config->price_table.empty()) {
    auto price = http::load_model_price(config->price_table, context.project_root, config->model);
    if (!price) return price.status();
    if (config->usd_per_million_input == 0) config->usd_per_million_input = price->input;
    if (config->usd_per_million_cached_input == 0) config->usd_per_million_cached_input = price->cache_read;
    if (config->usd_per_million_output == 0) config->usd_per_million_output = price->output;
  }
  auto key = http::load_api_key(config->api_key_env, config->api_key_file, config->require_api_key);
  if (!key) return key.status();
  return std::unique_ptr<ModelBackend>(
      std::make_unique<backend_openai::OpenAiBackend>(std::move(config.value()), key.value()));
}

void register_all(Registrar& registrar) { registrar.add_backend("tritongym.backend.openai", create); }

}  // namespace

TRITONGYM_PLUGIN(register_all)
