// Holds another process's CUDA calls through the driver's checkpoint lock (cuCheckpointProcessLock, CUDA 12.8
// and later drivers): when lock() returns, every GPU operation the process had queued has finished, and its next
// CUDA call waits until unlock(). The executor locks a timed child while it has handed its share of the GPU back
// (gpu_turns.py), so that the child's word "idle" is enforced rather than trusted: another evaluation's timing
// cannot overlap work the child left running, and the child cannot start more until it has its share again.
//
// Opened with dlopen (the host never links libcuda); the caller needs no CUDA context of its own. On the
// H200 (driver 13000, 2026-11-30) an idle process locked in 0.15 ms and unlocked in 0.13 ms (medians of 50); a
// process with 1.5 s of work queued locked in 1.5 s, and its next CUDA call returned only after the unlock.
#pragma once

#include <string>
#include <vector>

#include "tritongym/sdk/status.hpp"

namespace tritongym::triton_executor {

class CudaProcessLock {
 public:
  // The driver's entry points, looked up once per process.
  static const CudaProcessLock& driver();
  // The first of `libraries` that loads (tests name a stand-in for the driver).
  explicit CudaProcessLock(const std::vector<std::string>& libraries);

  bool available() const { return lock_ != nullptr && unlock_ != nullptr; }
  const std::string& why_unavailable() const { return why_; }

  // Waits up to `timeout_s` (rounded up to a millisecond) for `pid`'s queued GPU work to finish and then holds
  // its CUDA calls. `seconds` is how long that took. A timeout leaves the process running (deadline_exceeded).
  Status lock(int pid, double timeout_s, double* seconds) const;
  Status unlock(int pid) const;

 private:
  using LockFn = int (*)(int, void*);
  LockFn lock_ = nullptr;
  LockFn unlock_ = nullptr;
  std::string why_;
};

}  // namespace tritongym::triton_executor
