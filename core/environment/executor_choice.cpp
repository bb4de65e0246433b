#include "environment/executor_choice.hpp"

#include "tritongym/support/machine_probe.hpp"

namespace tritongym::environment {
namespace {

Result<ExecutorChoice> create_checked(const plugins::Registry& registry, const std::string& id, std::string reason,
                                      const std::function<PluginContext(const std::string&)>& make_context) {
  auto created = registry.create<Executor>(id, make_context(id));
  if (!created) return created.status();
  Status available = (*created)->availability();
  if (!available.is_ok())
    return Status(available.code(), id + " cannot run here: " + available.message());
  return ExecutorChoice{id, std::move(reason), std::move(created.value())};
}

}  // namespace

Result<ExecutorChoice> choose_executor(const plugins::Registry& registry, const std::string& id,
                                       const std::function<PluginContext(const std::string&)>& make_context) {
  if (id != "auto") return create_checked(registry, id, "chosen by the config", make_context);
  std::string no_gpu;
  std::vector<GpuInfo> gpus = probe_gpus(&no_gpu);
  std::string fallback_reason = "no GPU: " + no_gpu;
  if (!gpus.empty() && registry.contains(plugins::PluginKind::executor, kCudaExecutor)) {
    auto cuda = create_checked(registry, kCudaExecutor, "a GPU is usable (" + gpus.front().name + ")", make_context);
    if (cuda) return cuda;
    fallback_reason = "a GPU is present but " + cuda.status().message();
  }
  if (!registry.contains(plugins::PluginKind::executor, kInterpreterExecutor))
    return Status(StatusCode::unavailable, "executor: auto found no usable executor (" + fallback_reason +
                                               ", and " + kInterpreterExecutor + " is not loaded)");
  return create_checked(registry, kInterpreterExecutor, fallback_reason + "; using the Triton interpreter on the CPU",
                        make_context);
}

}  // namespace tritongym::environment
