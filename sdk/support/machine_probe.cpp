#include "tritongym/support/machine_probe.hpp"

#include <dlfcn.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <boost/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "tritongym/support/subprocess.hpp"

namespace tritongym::environment {
namespace {

namespace fs = std::filesystem;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// The CUDA Driver API, opened at run time. The host never links libcuda.
void probe_driver(MachineReport& report) {
  using CUresult = int;
  using CUdevice = int;
  void* handle = nullptr;
  for (const char* name : {"libcuda.so.1", "libcuda.so"}) {
    handle = ::dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle) break;
  }
  if (!handle) {
    report.driver_error = "no NVIDIA driver: libcuda.so.1 cannot be loaded";
    return;
  }
  Dl_info info{};
  auto init = reinterpret_cast<CUresult (*)(unsigned)>(::dlsym(handle, "cuInit"));
  if (init && ::dladdr(reinterpret_cast<void*>(init), &info) && info.dli_fname) report.driver_library = info.dli_fname;
  auto driver_version = reinterpret_cast<CUresult (*)(int*)>(::dlsym(handle, "cuDriverGetVersion"));
  auto device_count = reinterpret_cast<CUresult (*)(int*)>(::dlsym(handle, "cuDeviceGetCount"));
  auto device_get = reinterpret_cast<CUresult (*)(CUdevice*, int)>(::dlsym(handle, "cuDeviceGet"));
  auto device_name = reinterpret_cast<CUresult (*)(char*, int, CUdevice)>(::dlsym(handle, "cuDeviceGetName"));
  auto device_memory = reinterpret_cast<CUresult (*)(size_t*, CUdevice)>(::dlsym(handle, "cuDeviceTotalMem_v2"));
  auto device_attribute = reinterpret_cast<CUresult (*)(int*, int, CUdevice)>(::dlsym(handle, "cuDeviceGetAttribute"));
  if (!init || !driver_version || !device_count || !device_get || !device_name || !device_memory || !device_attribute) {
    report.driver_error = "libcuda loaded but lacks the expected driver API entry points";
    return;
  }
  driver_version(&report.cuda_driver_api_version);
  if (CUresult error = init(0); error != 0) {
    report.driver_error = "cuInit failed with CUresult " + std::to_string(error) +
                          (error == 100 ? " (CUDA_ERROR_NO_DEVICE)" : "");
    return;
  }
  int count = 0;
  device_count(&count);
  constexpr int kComputeCapabilityMajor = 75, kComputeCapabilityMinor = 76;
  for (int i = 0; i < count; ++i) {
    CUdevice device = 0;
    if (device_get(&device, i) != 0) continue;
    GpuInfo gpu;
    gpu.index = i;
    char name[256] = {};
    device_name(name, sizeof name, device);
    gpu.name = name;
    size_t bytes = 0;
    device_memory(&bytes, device);
    gpu.memory_bytes = static_cast<int64_t>(bytes);
    device_attribute(&gpu.compute_capability_major, kComputeCapabilityMajor, device);
    device_attribute(&gpu.compute_capability_minor, kComputeCapabilityMinor, device);
    report.gpus.push_back(gpu);
  }
  // The driver stays loaded: dlclose of libcuda is not safe after cuInit.
}

void probe_driver_version(MachineReport& report) {
  std::string text = read_file("/proc/driver/nvidia/version");
  std::smatch match;
  static const std::regex version(R"(Kernel Module\s+(?:for \S+\s+)?([0-9]+\.[0-9]+(?:\.[0-9]+)?))");
  if (std::regex_search(text, match, version)) report.driver_version = match[1];
}

void probe_toolkit(MachineReport& report) {
  std::vector<std::string> roots;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* value = std::getenv(var)) roots.push_back(value);
  roots.push_back("/usr/local/cuda");
  for (const auto& root : roots) {
    if (!fs::exists(fs::path(root) / "include" / "cuda.h")) continue;
    report.cuda_toolkit_root = root;
    std::string json = read_file(root + "/version.json");
    std::smatch match;
    static const std::regex cuda_version(R"re("cuda"\s*:\s*\{[^}]*"version"\s*:\s*"([^"]+)")re");
    if (std::regex_search(json, match, cuda_version)) {
      report.cuda_toolkit_version = match[1];
    } else {
      // Toolkits installed from wheels have no version.json; cuda.h always says its version.
      std::string header = read_file(root + "/include/cuda.h");
      static const std::regex define(R"(#define CUDA_VERSION (\d+))");
      if (std::regex_search(header, match, define)) {
        int version = std::stoi(match[1]);
        report.cuda_toolkit_version = std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
      }
    }
    break;
  }
  std::vector<std::string> cupti_candidates;
  if (!report.cuda_toolkit_root.empty()) {
    cupti_candidates.push_back(report.cuda_toolkit_root + "/extras/CUPTI/lib64");
    cupti_candidates.push_back(report.cuda_toolkit_root + "/lib64");
    cupti_candidates.push_back(report.cuda_toolkit_root + "/targets/x86_64-linux/lib");
  }
  for (const auto& folder : cupti_candidates) {
    std::error_code error;
    for (const auto& file : fs::directory_iterator(folder, error)) {
      if (file.path().filename().string().rfind("libcupti.so", 0) == 0) {
        report.cupti_library = file.path().string();
        return;
      }
    }
  }
}

constexpr const char* kPythonProbe = R"(
import json, sys
out = {"version": sys.version.split()[0]}
try:
    import torch
    out["torch"] = torch.__version__
    out["torch_cuda"] = bool(torch.cuda.is_available())
except Exception as e:
    out["torch_error"] = f"{type(e).__name__}: {e}"
try:
    import triton
    out["triton"] = triton.__version__
except Exception as e:
    out["triton_error"] = f"{type(e).__name__}: {e}"
print(json.dumps(out))
)";

void probe_python(PythonInfo& python) {
  if (python.executable.empty()) return;
  process::ProcessOptions options;
  options.argv = {python.executable, "-c", kPythonProbe};
  options.timeout_s = 120;
  auto ran = process::run_process(options);
  if (!ran) {
    python.error = ran.status().message();
    return;
  }
  if (!ran->succeeded()) {
    python.error = "the probe " + ran->describe_end() + ": " + ran->stderr_text.substr(0, 500);
    return;
  }
  boost::system::error_code error;
  auto value = boost::json::parse(ran->stdout_text, error);
  if (error || !value.is_object()) {
    python.error = "unreadable probe output: " + ran->stdout_text.substr(0, 200);
    return;
  }
  const auto& object = value.as_object();
  auto text = [&](const char* key) {
    auto found = object.find(key);
    return found != object.end() && found->value().is_string() ? std::string(found->value().as_string()) : std::string();
  };
  python.version = text("version");
  python.torch_version = text("torch");
  python.triton_version = text("triton");
  if (auto found = object.find("torch_cuda"); found != object.end() && found->value().is_bool())
    python.torch_cuda = found->value().as_bool();
  std::string problems = text("torch_error");
  if (!text("triton_error").empty()) problems += (problems.empty() ? "" : "; ") + text("triton_error");
  python.error = problems;
}

// `package`: the folder that holds tritongym_worker.
void probe_sandbox(MachineReport& report, const std::string& package) {
  SandboxInfo& sandbox = report.sandbox;
  if (report.python.executable.empty() || package.empty()) {
    sandbox.error = report.python.executable.empty() ? "no Python" : "the worker package (tritongym_worker) was not found";
    return;
  }
  process::ProcessOptions options;
  options.argv = {report.python.executable, "-m", "tritongym_worker.sandbox"};
  options.environment = std::map<std::string, std::string>{{"PYTHONPATH", package}, {"PATH", "/usr/local/bin:/usr/bin:/bin"}};
  options.timeout_s = 60;
  auto ran = process::run_process(options);
  if (!ran || !ran->succeeded()) {
    sandbox.error = !ran ? ran.status().message() : "the probe " + ran->describe_end() + ": " + ran->stderr_text.substr(0, 500);
    return;
  }
  boost::system::error_code error;
  auto value = boost::json::parse(ran->stdout_text, error);
  if (error || !value.is_object()) {
    sandbox.error = "unreadable probe output: " + ran->stdout_text.substr(0, 200);
    return;
  }
  const auto& object = value.as_object();
  auto text = [&](const char* key) {
    const auto* found = object.if_contains(key);
    return found && found->is_string() ? std::string(found->as_string()) : std::string();
  };
  auto texts = [&](const char* key) {
    std::vector<std::string> items;
    if (const auto* found = object.if_contains(key); found && found->is_array())
      for (const auto& item : found->as_array())
        if (item.is_string()) items.emplace_back(item.as_string());
    return items;
  };
  sandbox.probed = true;
  sandbox.files = text("files");
  sandbox.signals = text("signals");
  sandbox.ipc = text("ipc");
  sandbox.network = texts("network");
  sandbox.missing = texts("missing");
}

void derive_capabilities(MachineReport& report) {
  const PythonInfo& py = report.python;
  bool python_stack = !py.executable.empty() && !py.torch_version.empty() && !py.triton_version.empty();
  std::string python_missing;
  if (py.executable.empty()) python_missing = "no Python found (run scripts/setup.sh, or set TRITONGYM_PYTHON)";
  else if (py.torch_version.empty() || py.triton_version.empty())
    python_missing = py.executable + " lacks torch and/or triton (" + py.error + ")";
  bool gpu = !report.gpus.empty();
  std::string gpu_missing = gpu ? "" : (report.driver_error.empty() ? "no GPU visible to the driver" : report.driver_error);

  auto add = [&](std::string name, std::vector<std::string> missing) {
    std::string joined;
    for (const auto& item : missing)
      if (!item.empty()) joined += (joined.empty() ? "" : "; ") + item;
    report.capabilities.push_back({std::move(name), joined.empty(), joined});
  };
  add("plugins, task listing, config checks", {});
  add("Triton interpreter executor (correctness on CPU)", {python_stack ? "" : python_missing});
  add("CUDA executor (compile, test on GPU)",
      {gpu_missing, python_stack ? "" : python_missing,
       gpu && python_stack && !py.torch_cuda ? "torch in " + py.executable + " cannot use CUDA" : ""});
  add("performance: benchmark, profile, Perf@k (CUPTI timing)",
      {gpu_missing, report.cupti_library.empty() ? "libcupti not found (CUDA toolkit extras/CUPTI)" : ""});
  // An executor's default `sandbox: required` judges no candidate where this is missing (best_effort does, marked).
  if (report.sandbox.probed || !report.sandbox.error.empty()) {
    std::vector<std::string> unconfined = report.sandbox.missing;
    if (!report.sandbox.probed) unconfined.push_back("the sandbox could not be probed: " + report.sandbox.error);
    add("candidates confined (executor sandbox: required)", unconfined);
  }
}

int probe_landlock_abi() {
#ifdef __NR_landlock_create_ruleset
  constexpr unsigned kCreateRulesetVersion = 1;  // LANDLOCK_CREATE_RULESET_VERSION
  long abi = ::syscall(__NR_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
  return abi > 0 ? static_cast<int>(abi) : 0;
#else
  return 0;
#endif
}

}  // namespace

std::vector<GpuInfo> probe_gpus(std::string* error) {
  MachineReport report;
  probe_driver(report);
  if (error) *error = report.driver_error.empty() && report.gpus.empty() ? "no GPU visible to the driver" : report.driver_error;
  return report.gpus;
}

PythonInfo locate_python(const std::string& project_root) {
  PythonInfo python;
  if (const char* configured = std::getenv("TRITONGYM_PYTHON"); configured && *configured) {
    python.executable = configured;
    python.source = "TRITONGYM_PYTHON";
    return python;
  }
  fs::path venv = fs::path(project_root) / ".venv" / "bin" / "python";
  if (!project_root.empty() && fs::exists(venv)) {
    python.executable = venv.string();
    python.source = "project venv";
    return python;
  }
  python.executable = process::find_executable("python3");
  python.source = "PATH";
  return python;
}

MachineReport probe_machine(const std::string& project_root, const std::optional<std::string>& worker_python_path) {
  MachineReport report;
  utsname names{};
  if (::uname(&names) == 0) {
    report.host = names.nodename;
    report.os = std::string(names.sysname) + " " + names.release + " " + names.machine;
  }
  probe_driver(report);
  probe_driver_version(report);
  probe_toolkit(report);
  report.landlock_abi = probe_landlock_abi();
  report.python = locate_python(project_root);
  probe_python(report.python);
  if (worker_python_path) probe_sandbox(report, *worker_python_path);
  derive_capabilities(report);
  return report;
}

}  // namespace tritongym::environment
