// A checking child's share of the GPU, made suspendable (gpu_lock.hpp): while it is marked, a timing that
// wants the GPU alone holds the child through the driver (ProcessHolds) instead of waiting for its checks to
// end, and lets it go when the timing ends. Counts what the timings did to it, for the evaluation's record,
// and tells the child's fork server through its HeldClock (held_clock.hpp), so that the time held counts neither
// against the child's limit nor in its wall time.
#pragma once

#include <boost/json.hpp>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "gpu_lock.hpp"
#include "held_clock.hpp"
#include "process_holds.hpp"

namespace tritongym::triton_executor {

class CheckSuspension {
 public:
  // A child whose queued GPU work takes longer than this to finish is waited for instead, as before.
  static constexpr double kTimeoutSeconds = 1.0;

  CheckSuspension(GpuLock& gpu, ProcessHolds& holds, bool enabled)
      : gpu_(gpu), holds_(holds), enabled_(enabled && holds.unavailable().empty()),
        tally_(std::make_shared<Tally>()) {}
  ~CheckSuspension() {
    unmark();
    std::lock_guard guard(tally_->mutex);
    if (tally_->clock) tally_->clock->forget();  // the child has ended: a timing that resumes it later tells no one
  }
  CheckSuspension(const CheckSuspension&) = delete;
  CheckSuspension& operator=(const CheckSuspension&) = delete;

  // The share is held, by the child `pid` that checks: a timing may suspend it from now on. `clock` (null: none)
  // counts each suspension as a wait of the child's (held_clock.hpp).
  void mark(int pid, std::shared_ptr<HeldClock> clock = nullptr) {
    unmark();
    if (!enabled_ || pid <= 0) return;
    ProcessHolds* holds = &holds_;
    auto tally = tally_;  // the timing may resume the child after this evaluation has ended
    if (clock) {
      std::lock_guard guard(tally->mutex);
      tally->clock = std::move(clock);
    }
    GpuLock::Suspendable how;
    how.suspend = [holds, tally, pid] {
      double seconds = 0.0;
      Status held = holds->hold(pid, kTimeoutSeconds, &seconds);
      std::lock_guard guard(tally->mutex);
      if (!held) {
        ++tally->refused;
        if (tally->error.empty()) tally->error = held.message();
        return false;
      }
      ++tally->suspensions;
      const auto now = std::chrono::steady_clock::now();
      if (tally->active++ == 0) tally->since = now;
      if (tally->clock) tally->clock->begin(now);
      return true;
    };
    how.resume = [holds, tally, pid] {
      (void)holds->release(pid);  // a child that has ended cannot be let go, and need not be
      std::lock_guard guard(tally->mutex);
      // Two timings' holds can overlap (one lets go as the next takes it): the time held counts once.
      const auto now = std::chrono::steady_clock::now();
      if (--tally->active == 0) tally->seconds += std::chrono::duration<double>(now - tally->since).count();
      if (tally->clock) tally->clock->end(now);
    };
    token_ = gpu_.mark_suspendable(std::move(how));
  }
  // Before the share is released (or becomes the GPU alone): no timing suspends it any more. One that did
  // still resumes it when it ends.
  void unmark() {
    if (token_ == 0) return;
    gpu_.unmark_suspendable(token_);
    token_ = 0;
  }

  // {"suspensions", "suspended_s", "refused", "error"}: how often a timing held the child while it checked,
  // for how long in all, and how often the driver would not (CUPTI attached, or work past the timeout).
  boost::json::object record() const {
    std::lock_guard guard(tally_->mutex);
    boost::json::object out{{"suspensions", tally_->suspensions}, {"suspended_s", tally_->seconds},
                            {"refused", tally_->refused}};
    if (!tally_->error.empty()) out["error"] = tally_->error;
    return out;
  }

 private:
  struct Tally {
    std::mutex mutex;
    int64_t suspensions = 0, refused = 0;
    int active = 0;  // timings holding the child now
    double seconds = 0.0;
    std::string error;
    std::chrono::steady_clock::time_point since;
    std::shared_ptr<HeldClock> clock;  // the child's waits, for its fork server
  };
  GpuLock& gpu_;
  ProcessHolds& holds_;
  const bool enabled_;
  std::shared_ptr<Tally> tally_;
  int token_ = 0;
};

}  // namespace tritongym::triton_executor
