// Registers tritongym.backend.anthropic.
#include "anthropic_backend.hpp"
#include "api_key.hpp"
#include "tritongym/sdk/plugin.hpp"

namespace {

using namespace tritongym;

Result<std::unique_ptr<ModelBackend>> create(const PluginContext& context) {
  auto config = parse_config<backend_anthropic::AnthropicConfig>(context.config_json);
  if (!config) return config.status();
  if (config->model.empty()) return Status(StatusCode::invalid_config, "`model` is required", "/model");
  if (config->base_url.rfind("http://", 0) != 0 && config->base_url.rfind("https://", 0) != 0)
    return Status(StatusCode::invalid_config, "base_url must start with http:// or https://", "/base_url");
  if (config->max_tokens < 1) return Status(StatusCode::invalid_config, "max_tokens must be positive", "/max_tokens");
  if (config->max_retries < 0) return Status(StatusCode::invalid_config, "max_retries must be 0 or more", "/max_retries");
  auto key = http::load_api_key(config->api_key_env, config->api_key_file, config->require_api_key);
  if (!key) return key.status();
  return std::unique_ptr<ModelBackend>(
      std::make_unique<backend_anthropic::AnthropicBackend>(std::move(config.value()), key.value()));
}

void register_all(Registrar& registrar) { registrar.add_backend("tritongym.backend.anthropic", create); }

}  // namespace

TRITONGYM_PLUGIN(register_all)
