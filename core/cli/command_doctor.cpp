// `tritongym doctor`: what this machine has, and what is missing for what.
#include <boost/json.hpp>

#include <iostream>

#include "cli/arguments.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "environment/machine_probe.hpp"
#include "plugins/loader.hpp"

namespace tritongym::cli {

namespace po = boost::program_options;

namespace {

boost::json::object to_json(const environment::MachineReport& report) {
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

std::string or_missing(const std::string& value, const std::string& missing = "not found") {
  return value.empty() ? missing : value;
}

void print_text(const environment::MachineReport& report) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"host", report.host + " (" + report.os + ")"});
  if (report.gpus.empty()) {
    rows.push_back({"GPU", "none: " + report.driver_error});
  } else {
    for (const auto& gpu : report.gpus)
      rows.push_back({"GPU " + std::to_string(gpu.index),
                      gpu.name + ", sm_" + std::to_string(gpu.compute_capability_major) +
                          std::to_string(gpu.compute_capability_minor) + ", " +
                          std::to_string(gpu.memory_bytes >> 30) + " GiB"});
  }
  std::string driver = report.driver_library.empty() ? "not loaded" : report.driver_library;
  if (!report.driver_version.empty()) driver = report.driver_version + " (" + driver + ")";
  if (report.cuda_driver_api_version)
    driver += ", CUDA driver API " + std::to_string(report.cuda_driver_api_version / 1000) + "." +
              std::to_string(report.cuda_driver_api_version % 1000 / 10);
  rows.push_back({"driver", driver});
  rows.push_back({"CUDA toolkit", report.cuda_toolkit_root.empty()
                                      ? "not found"
                                      : report.cuda_toolkit_version + " at " + report.cuda_toolkit_root});
  rows.push_back({"CUPTI", or_missing(report.cupti_library)});
  const auto& py = report.python;
  rows.push_back({"Python", py.executable.empty() ? "not found"
                                                  : py.version + " at " + py.executable + " (" + py.source + ")"});
  rows.push_back({"torch", or_missing(py.torch_version) + (py.torch_version.empty() ? "" : py.torch_cuda ? " (CUDA usable)" : " (no CUDA)")});
  rows.push_back({"triton", or_missing(py.triton_version)});
  if (!py.error.empty()) rows.push_back({"Python problems", py.error});
  print_table(std::cout, {"what", "found"}, rows);

  std::cout << "\n";
  std::vector<std::vector<std::string>> capability_rows;
  for (const auto& capability : report.capabilities)
    capability_rows.push_back({capability.available ? "yes" : "NO", capability.name, capability.missing});
  print_table(std::cout, {"ok", "capability", "missing"}, capability_rows);
}

}  // namespace

int command_doctor(const CliContext& context, const Arguments& arguments) {
  po::options_description options("doctor options");
  options.add_options()("json", "print the report as JSON");
  int exit_code = kExitOk;
  auto values = parse_arguments("tritongym doctor [--json]", options, {}, arguments, exit_code);
  if (!values) return exit_code;
  environment::MachineReport report = environment::probe_machine(context.project_root);
  if (values->count("json")) print_json(std::cout, to_json(report));
  else print_text(report);
  return kExitOk;
}

}  // namespace tritongym::cli
