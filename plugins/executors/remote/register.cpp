// Registers tritongym.executor.remote.
#include "remote_executor.hpp"
#include "tritongym/sdk/plugin.hpp"

namespace {

tritongym::Result<std::unique_ptr<tritongym::Executor>> create(const tritongym::PluginContext& context) {
  auto config = tritongym::remote::read_config(context);
  if (!config) return config.status();
  auto token = tritongym::remote::read_token(*config);
  if (!token) return token.status();
  return std::unique_ptr<tritongym::Executor>(
      std::make_unique<tritongym::remote::RemoteExecutor>(std::move(config.value()), std::move(token.value()), context.log));
}

void register_all(tritongym::Registrar& registrar) { registrar.add_executor("tritongym.executor.remote", create); }

}  // namespace

TRITONGYM_PLUGIN(register_all)
