// Holds on other processes' CUDA calls, counted per process: the idle hold (a timed child compiling) and a
// timing that suspends the children checking beside it (gpu_lock.hpp) may both hold one child at once, and the
// driver's lock, which a process takes only once, is let go when the last of them lets go. Thread-safe.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "tritongym/sdk/status.hpp"

namespace tritongym::triton_executor {

class ProcessHolds {
 public:
  // What holds a process: the CUDA driver's checkpoint lock (cuda_process_lock.hpp), or a stand-in in tests.
  struct Driver {
    std::function<Status(int pid, double timeout_s, double* seconds)> lock;
    std::function<Status(int pid)> unlock;
    std::string unavailable;  // why processes cannot be held here; "" if they can
  };
  static Driver cuda();

  explicit ProcessHolds(Driver driver) : driver_(std::move(driver)) {}
  ProcessHolds(const ProcessHolds&) = delete;
  ProcessHolds& operator=(const ProcessHolds&) = delete;

  // "" when processes can be held; otherwise why not.
  std::string unavailable() const;

  // Holds `pid`: the first holder waits up to `timeout_s` for its queued GPU work (deadline_exceeded when it
  // was still running: not held then) and `seconds` says how long; a process held already gains a holder at
  // once (0 s). A holder that comes while another's lock is under way waits for that lock's outcome.
  Status hold(int pid, double timeout_s, double* seconds);
  // One holder lets go; the process's CUDA calls go on when none is left.
  Status release(int pid);
  int holders(int pid) const;

 private:
  struct Entry {
    int holders = 0;
    bool locking = false;  // the driver's lock is under way, outside the mutex
  };
  Driver driver_;
  mutable std::mutex mutex_;
  std::condition_variable locked_;
  std::map<int, Entry> entries_;
};

}  // namespace tritongym::triton_executor
