#include "cuda_process_lock.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace tritongym::triton_executor {
namespace {

// cuda.h's CUcheckpointLockArgs (CUDA 12.8 and later), declared here: the host does not include cuda.h.
struct LockArgs {
  unsigned int timeout_ms = 0;  // 0: no timeout
  unsigned int reserved0 = 0;
  uint64_t reserved1[7] = {};
};

constexpr int kTimeout = 909;  // CUDA_ERROR_TIMEOUT

std::string said(const char* what, int pid, int code) {
  return std::string(what) + " of process " + std::to_string(pid) + " failed with CUresult " + std::to_string(code) +
         (code == 801 ? " (CUDA_ERROR_NOT_SUPPORTED)" : code == 800 ? " (CUDA_ERROR_NOT_PERMITTED)"
          : code == 401 ? " (CUDA_ERROR_ILLEGAL_STATE)" : "");
}

}  // namespace

const CudaProcessLock& CudaProcessLock::driver() {
  static const CudaProcessLock instance({"libcuda.so.1", "libcuda.so"});
  return instance;
}

CudaProcessLock::CudaProcessLock(const std::vector<std::string>& libraries) {
  void* handle = nullptr;
  for (const auto& name : libraries)
    if ((handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL))) break;
  if (!handle) {
    why_ = (libraries.empty() ? std::string("no driver library") : libraries.front()) + " cannot be loaded";
    return;
  }
  // Never closed: dlclose of libcuda is not safe once any part of the process has used it.
  lock_ = reinterpret_cast<LockFn>(::dlsym(handle, "cuCheckpointProcessLock"));
  unlock_ = reinterpret_cast<LockFn>(::dlsym(handle, "cuCheckpointProcessUnlock"));
  if (!available()) why_ = "the driver has no cuCheckpointProcessLock (it needs a CUDA 12.8 or later driver)";
}

Status CudaProcessLock::lock(int pid, double timeout_s, double* seconds) const {
  if (!available()) return Status(StatusCode::unavailable, why_);
  LockArgs args;
  args.timeout_ms = static_cast<unsigned int>(std::ceil(std::max(timeout_s, 0.001) * 1000.0));
  auto started = std::chrono::steady_clock::now();
  int code = lock_(pid, &args);
  if (seconds) *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (code == kTimeout) {
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", timeout_s);
    return Status(StatusCode::deadline_exceeded,
                  "process " + std::to_string(pid) + "'s GPU work did not finish within " + limit + " s");
  }
  if (code != 0) return Status(StatusCode::internal, said("cuCheckpointProcessLock", pid, code));
  return {};
}

Status CudaProcessLock::unlock(int pid) const {
  if (!available()) return Status(StatusCode::unavailable, why_);
  if (int code = unlock_(pid, nullptr); code != 0)
    return Status(StatusCode::internal, said("cuCheckpointProcessUnlock", pid, code));
  return {};
}

}  // namespace tritongym::triton_executor
