// A stand-in for the CUDA driver's checkpoint lock (ProcessHolds::Driver), for the tests of the idle hold, the
// per-process holds and the suspension of checks: it answers as told and notes each call,
// "lock PID within TIMEOUT" and "unlock PID". Thread-safe: a timing's thread and an evaluation's both call it.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "process_holds.hpp"

namespace tritongym::triton_executor {

struct StandInDriver {
  double lock_seconds = 0.0002;             // what a lock says it took (an idle child: well under 0.1 s)
  std::chrono::milliseconds lock_takes{0};  // how long a lock really takes, added to lock_seconds
  Status lock_status;                       // what a lock answers

  ProcessHolds::Driver driver() {
    ProcessHolds::Driver out;
    out.lock = [this](int pid, double timeout_s, double* seconds) {
      std::this_thread::sleep_for(lock_takes);
      *seconds = lock_seconds + std::chrono::duration<double>(lock_takes).count();
      note("lock " + std::to_string(pid) + " within " + std::to_string(static_cast<int>(timeout_s)));
      return lock_status;
    };
    out.unlock = [this](int pid) {
      note("unlock " + std::to_string(pid));
      return Status();
    };
    return out;
  }
  std::vector<std::string> calls() {
    std::lock_guard guard(mutex_);
    return calls_;
  }

 private:
  void note(std::string call) {
    std::lock_guard guard(mutex_);
    calls_.push_back(std::move(call));
  }
  std::mutex mutex_;
  std::vector<std::string> calls_;
};

}  // namespace tritongym::triton_executor
