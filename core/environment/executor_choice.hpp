// `executor: auto`: triton-cuda where a GPU is usable, else triton-interpreter, and why.
#pragma once

#include <memory>
#include <string>

#include "plugins/default_plugins.hpp"
#include "plugins/registry.hpp"
#include "tritongym/sdk/executor.hpp"

namespace tritongym::environment {

inline constexpr const char* kCudaExecutor = plugins::kCudaExecutor;
inline constexpr const char* kInterpreterExecutor = plugins::kInterpreterExecutor;

struct ExecutorChoice {
  std::string id;
  std::string reason;  // "a GPU is usable (NVIDIA H200)", "no GPU: libcuda.so.1 cannot be loaded"
  std::unique_ptr<Executor> executor;
};

// Creates the executor `id` (or chooses one for "auto") and checks that it can run here.
// `make_context` builds the PluginContext for an id (config, paths, python).
Result<ExecutorChoice> choose_executor(const plugins::Registry& registry, const std::string& id,
                                       const std::function<PluginContext(const std::string&)>& make_context);

}  // namespace tritongym::environment
