#include "idle_hold.hpp"

#include <signal.h>

#include <algorithm>
#include <cstdio>

namespace tritongym::triton_executor {

bool IdleHold::hold(int pid, double timeout_s) {
  if (pid <= 0) {
    if (error_.empty()) error_ = "the worker did not say which process is the child";
    return true;
  }
  if (std::string why = holds_.unavailable(); !why.empty()) {
    if (error_.empty()) error_ = why;
    return true;
  }
  release();  // one hold at a time: a second "idle" without "wanted" in between is out of turn anyway
  double seconds = 0.0;
  // A child a timing holds already (gpu_lock.hpp) gains this hold at once: its work had finished.
  Status locked = holds_.hold(pid, timeout_s, &seconds);
  longest_s_ = std::max(longest_s_, seconds);
  const bool still_running = locked.code() == StatusCode::deadline_exceeded;
  // A refusal, however long it took, says nothing of the child's work.
  if (still_running || (locked.is_ok() && seconds >= kBusySeconds)) {
    char waited[64];
    std::snprintf(waited, sizeof waited, "%.0f ms", seconds * 1000.0);
    flags_.push_back(std::string("turns: the candidate said it was idle with GPU work still running (") +
                     (still_running ? "more than " : "") + waited +
                     " of it); that work would have run during another evaluation's timing, so its share of the GPU " +
                     (still_running ? "was kept" : "was released only when the work had finished"));
  }
  if (still_running) return false;
  if (!locked) {
    if (error_.empty()) error_ = locked.message();
    return true;
  }
  held_ = pid;
  ++count_;
  return true;
}

void IdleHold::release() {
  if (held_ == 0) return;
  Status unlocked = holds_.release(held_);
  // A child that has ended cannot be let go, and need not be.
  if (!unlocked && error_.empty() && ::kill(held_, 0) == 0) error_ = unlocked.message();
  held_ = 0;
}

boost::json::object IdleHold::record() const {
  boost::json::object out{{"holds", count_}, {"longest_hold_s", longest_s_}, {"enforced", error_.empty()}};
  if (!error_.empty()) out["error"] = error_;
  return out;
}

}  // namespace tritongym::triton_executor
