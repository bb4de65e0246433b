#include "environment/machine_report_json.hpp"

#include <boost/json.hpp>

#include "plugins/loader.hpp"

namespace tritongym::environment {

boost::json::object machine_report_json(const MachineReport& report) {
  boost::json::array gpus;
  for (const auto& gpu : report.gpus)
    gpus.push_back({{"index", gpu.index},
                    {"name", gpu.name},
                    {"compute_capability", std::to_string(gpu.compute_capability_major) + "." +
                                               std::to_string(gpu.compute_capability_minor)},
                    {"memory_bytes", gpu.memory_bytes}});
  boost::json::array capabilities;
  for (const auto& capability : report.capabilities)
    capabilities.push_back(
        {{"name", capability.name}, {"available", capability.available}, {"missing", capability.missing}});
  const auto& py = report.python;
  return {{"host", report.host},
          {"os", report.os},
          {"gpus", gpus},
          {"driver", {{"library", report.driver_library},
                      {"version", report.driver_version},
                      {"cuda_driver_api_version", report.cuda_driver_api_version},
                      {"error", report.driver_error}}},
          {"cuda_toolkit", {{"root", report.cuda_toolkit_root}, {"version", report.cuda_toolkit_version}}},
          {"cupti_library", report.cupti_library},
          {"landlock_abi", report.landlock_abi},
          {"sandbox", {{"probed", report.sandbox.probed},
                       {"files", report.sandbox.files},
                       {"signals", report.sandbox.signals},
                       {"network", boost::json::value_from(report.sandbox.network)},
                       {"ipc", report.sandbox.ipc},
                       {"missing", boost::json::value_from(report.sandbox.missing)},
                       {"error", report.sandbox.error}}},
          {"python", {{"executable", py.executable},
                      {"source", py.source},
                      {"version", py.version},
                      {"torch", py.torch_version},
                      {"torch_cuda", py.torch_cuda},
                      {"triton", py.triton_version},
                      {"error", py.error}}},
          {"host_fingerprint", plugins::host_fingerprint()},
          {"capabilities", capabilities}};
}

}  // namespace tritongym::environment
