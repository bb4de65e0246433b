// Registers tritongym.suite.directory.
#include <filesystem>

#include "directory_suite.hpp"
#include "tritongym/sdk/plugin.hpp"

namespace {

using namespace tritongym;

Result<std::unique_ptr<Suite>> create(const PluginContext& context) {
  auto config = parse_config<suite_directory::DirectorySuiteConfig>(context.config_json);
  if (!config) return config.status();
  std::filesystem::path root(config->root);
  if (root.is_relative()) root = std::filesystem::path(context.project_root) / root;
  return std::unique_ptr<Suite>(
      std::make_unique<suite_directory::DirectorySuite>(*config, root.lexically_normal().string(), context.log));
}

void register_all(Registrar& registrar) { registrar.add_suite("tritongym.suite.directory", create); }

}  // namespace

TRITONGYM_PLUGIN(register_all)
