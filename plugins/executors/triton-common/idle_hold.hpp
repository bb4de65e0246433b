// A timed child's word "idle" (gpu_turns.py: it hands its share of the GPU back while Triton compiles), enforced
// rather than trusted. Before the share is released the child is held through the driver (ProcessHolds): that
// waits for whatever GPU work it left running, and blocks its CUDA calls until it has its share again. A child
// that said "idle" with its kernels still running is flagged: that work would have run during another
// evaluation's timing and slowed it (docs/anti-cheat.md, "Turns on the GPU").
#pragma once

#include <boost/json.hpp>

#include <string>
#include <vector>

#include "process_holds.hpp"

namespace tritongym::triton_executor {

class IdleHold {
 public:
  // A hold that waited this long found GPU work the child had left running: an honest child synchronises its
  // device before it says "idle", and then locks in well under a millisecond.
  static constexpr double kBusySeconds = 0.1;

  explicit IdleHold(ProcessHolds& holds) : holds_(holds) {}
  ~IdleHold() { release(); }
  IdleHold(const IdleHold&) = delete;
  IdleHold& operator=(const IdleHold&) = delete;

  // The child `pid` said "idle": hold it before its share is released. False when its work was still running
  // after `timeout_s`: it keeps its share (and is flagged). True otherwise, also when the hold itself failed (the
  // child's word is then trusted, as without a driver, and the record says so).
  bool hold(int pid, double timeout_s);
  // The child has its share again, or the GPU alone, or has ended: its CUDA calls go on.
  void release();

  const std::vector<std::string>& flags() const { return flags_; }
  // For the evaluation's record: {"holds", "longest_hold_s", "enforced", "error"}.
  boost::json::object record() const;

 private:
  ProcessHolds& holds_;
  int held_ = 0;  // the pid held now, 0 if none
  int count_ = 0;
  double longest_s_ = 0.0;
  std::string error_;
  std::vector<std::string> flags_;
};

}  // namespace tritongym::triton_executor
