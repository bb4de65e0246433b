// Where an evaluation's time goes, in its record's phase_seconds: each phase, beside the time it waited for its
// GPU or the reference worker (<phase>_wait).
#pragma once

#include <boost/json.hpp>

#include <chrono>

namespace tritongym::triton_executor {

class PhaseClock {
 public:
  // The time since the last lap (or the start) is `phase`'s.
  void lap(const char* phase) {
    auto now = std::chrono::steady_clock::now();
    seconds_[phase] = std::chrono::duration<double>(now - since_).count();
    since_ = now;
  }
  // Starts the next lap now: what passed since the last one belongs to no phase.
  void skip() { since_ = std::chrono::steady_clock::now(); }
  // Moves `waited` seconds of `phase` to `wait_phase`.
  void set_apart(const char* phase, const char* wait_phase, double waited) {
    seconds_[phase] = value(phase) - waited;
    seconds_[wait_phase] = value(wait_phase) + waited;
  }
  void set(const char* phase, double seconds) { seconds_[phase] = seconds; }
  const boost::json::object& seconds() const { return seconds_; }

 private:
  double value(const char* phase) const {
    const auto* found = seconds_.if_contains(phase);
    return found && found->is_number() ? found->to_number<double>() : 0.0;
  }
  boost::json::object seconds_;
  std::chrono::steady_clock::time_point since_ = std::chrono::steady_clock::now();
};

}  // namespace tritongym::triton_executor
