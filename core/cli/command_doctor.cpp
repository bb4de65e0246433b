// `tritongym doctor`: what this machine has, and what is missing for what.
#include <boost/json.hpp>

#include <filesystem>
#include <iostream>

#include "cli/arguments.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "tritongym/support/machine_probe.hpp"
#include "environment/machine_report_json.hpp"
#include "plugins/loader.hpp"

namespace tritongym::cli {

namespace po = boost::program_options;

namespace {

std::string or_missing(const std::string& value, const std::string& missing = "not found") {
  return value.empty() ? missing : value;
}

// What confines a candidate's child here: files, signals, network, IPC, and what is missing.
std::string sandbox_text(const environment::MachineReport& report) {
  const auto& sandbox = report.sandbox;
  if (!sandbox.probed)
    return "Landlock ABI " + std::to_string(report.landlock_abi) + "; the rest unknown (" + sandbox.error + ")";
  std::string network;
  for (const auto& mechanism : sandbox.network) network += (network.empty() ? "" : " + ") + mechanism;
  std::string text = "files: " + sandbox.files + "; signals: " + sandbox.signals +
                     "; network: " + (network.empty() ? "open" : network) + "; IPC: " + sandbox.ipc;
  for (const auto& missing : sandbox.missing) text += "; MISSING " + missing;
  return text;
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
  rows.push_back({"sandbox", sandbox_text(report)});
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
  // The worker package sits in <plugins>/python beside the built-in plugins (built and installed there).
  std::string worker;
  for (const auto& folder : plugins::plugin_search_paths(context.plugin_paths))
    if (std::filesystem::exists(std::filesystem::path(folder) / "python" / "tritongym_worker" / "sandbox.py")) {
      worker = (std::filesystem::path(folder) / "python").string();
      break;
    }
  environment::MachineReport report = environment::probe_machine(context.project_root, worker);
  if (values->count("json")) print_json(std::cout, environment::machine_report_json(report));
  else print_text(report);
  return kExitOk;
}

}  // namespace tritongym::cli
