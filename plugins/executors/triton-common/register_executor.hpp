// The factory both Triton executor plugins share; each plugin passes its target and id.
#pragma once

#include <algorithm>
#include <filesystem>

#include "triton_executor.hpp"
#include "tritongym/sdk/did_you_mean.hpp"
#include "tritongym/sdk/plugin.hpp"

namespace tritongym::triton_executor {

inline Result<std::unique_ptr<Executor>> create_executor(Target target, const PluginContext& context) {
  auto config = parse_config<TritonExecutorConfig>(context.config_json);
  if (!config) return config.status();
  if (config->recycle_after < 1) return Status(StatusCode::invalid_config, "recycle_after must be at least 1", "/recycle_after");
  if (config->workers < 0) return Status(StatusCode::invalid_config, "workers must be 0 (automatic) or more", "/workers");
  if (config->prepare_ahead < 0)
    return Status(StatusCode::invalid_config, "prepare_ahead must be 0 (off) or more", "/prepare_ahead");
  if (config->data_plane != "gpu" && config->data_plane != "files")
    return Status(StatusCode::invalid_config, "data_plane must be gpu or files, not '" + config->data_plane + "'",
                  "/data_plane");
  if (config->sandbox != "required" && config->sandbox != "best_effort")
    return Status(StatusCode::invalid_config,
                  "sandbox must be required or best_effort, not '" + config->sandbox + "'" +
                      did_you_mean(config->sandbox, {"required", "best_effort"}),
                  "/sandbox");
  for (size_t i = 0; i < config->baselines.size(); ++i) {
    const std::string& name = config->baselines[i];
    if (std::find(std::begin(kBaselineNames), std::end(kBaselineNames), name) == std::end(kBaselineNames))
      return Status(StatusCode::invalid_config,
                    "baselines: '" + name + "' is not a baseline (eager, compile, oracle or triton)" +
                        did_you_mean(name, {std::begin(kBaselineNames), std::end(kBaselineNames)}),
                    "/baselines/" + std::to_string(i));
  }
  if (!(config->compile_seconds > 0))
    return Status(StatusCode::invalid_config, "compile_seconds must be more than 0", "/compile_seconds");
  if (!(config->reference_memory_fraction > 0 && config->reference_memory_fraction < 1))
    return Status(StatusCode::invalid_config, "reference_memory_fraction must lie between 0 and 1",
                  "/reference_memory_fraction");
  std::string python = config->python.empty() ? context.python_executable : config->python;
  // The worker package sits in <plugins>/python, beside the plugin folders (built and installed there).
  std::string python_path = (std::filesystem::path(context.plugin_dir).parent_path() / "python").string();
  return std::unique_ptr<Executor>(
      std::make_unique<TritonExecutor>(target, std::move(config.value()), python, python_path, context.log));
}

}  // namespace tritongym::triton_executor
