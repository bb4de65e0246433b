// What this machine has (GPU, driver, CUDA, CUPTI, Python, torch, triton) and what that rules out.
// Never links libcuda or libpython: the driver is opened with dlopen, Python runs as a subprocess.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tritongym::environment {

struct GpuInfo {
  int index = 0;
  std::string name;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int64_t memory_bytes = 0;
};

struct PythonInfo {
  std::string executable;   // "" when none was found
  std::string source;       // why this one: "TRITONGYM_PYTHON", "project venv", "PATH"
  std::string version;      // "3.11.7"
  std::string torch_version;   // "" when torch does not import
  std::string triton_version;  // "" when triton does not import
  bool torch_cuda = false;     // torch.cuda.is_available()
  std::string error;           // why the probe failed, if it did
};

// What a candidate's child gets on this machine (the worker's own probe, `python -m tritongym_worker.sandbox`, run
// as a child would be: a forked process enters the namespaces and installs the seccomp filter). An executor with
// `sandbox: required` refuses to judge where `missing` is not empty.
struct SandboxInfo {
  bool probed = false;               // false: `error` says why the probe did not run
  std::string files;                 // "landlock v7", or "not confined (...)"
  std::string signals;               // "landlock v7", or why not
  std::vector<std::string> network;  // the network blocks in force: "namespace", "seccomp", "landlock v7 (TCP)"
  std::string ipc;                   // "namespace" or "shared"
  std::vector<std::string> missing;  // what a confined child has and this machine's lacks
  std::string error;
};

struct MachineReport {
  std::string host;
  std::string os;
  std::string driver_library;     // path of libcuda that loaded, "" when none
  std::string driver_version;     // "580.159" from /proc/driver/nvidia/version, "" when unknown
  int cuda_driver_api_version = 0;  // cuDriverGetVersion, e.g. 13000
  std::string driver_error;       // why no GPU could be queried
  std::vector<GpuInfo> gpus;
  std::string cuda_toolkit_root;  // "/usr/local/cuda", "" when absent
  std::string cuda_toolkit_version;
  std::string cupti_library;      // path of libcupti, "" when absent
  // The kernel's Landlock ABI (0: none), which confines a candidate's process (sandbox.py): files from 1,
  // signals to processes outside it from 6.
  int landlock_abi = 0;
  PythonInfo python;
  SandboxInfo sandbox;

  struct Capability {
    std::string name;    // "CUDA executor (triton-cuda)"
    bool available = false;
    std::string missing;  // what is missing for it; "" when available
  };
  std::vector<Capability> capabilities;
};

// Probes the machine. `project_root` locates the project's venv. Takes a few seconds (imports torch).
// `worker_python_path`: the folder holding the tritongym_worker package, whose probe fills `sandbox` (and the
// capability "candidates confined"); unset, the sandbox is not probed ("" says the package was not found).
MachineReport probe_machine(const std::string& project_root,
                            const std::optional<std::string>& worker_python_path = std::nullopt);

// Only the GPUs the driver sees (dlopen of libcuda; no Python). `error` says why there are none.
std::vector<GpuInfo> probe_gpus(std::string* error);

// The Python the workers use: TRITONGYM_PYTHON, else <project_root>/.venv/bin/python, else python3.
PythonInfo locate_python(const std::string& project_root);

}  // namespace tritongym::environment
