// A checking child's share of the GPU, made suspendable (gpu_lock.hpp): while it is marked, a timing that
// wants the GPU alone holds the child through the driver (ProcessHolds) instead of waiting for its checks to
// end, and lets it go when the timing ends. Counts what the timings did to it, for the evaluation's record,
// and tells the child's fork server through `held_file` (docs/worker-protocol.md), so that the time held
// counts neither against the child's limit nor in its wall time.
#pragma once

#include <boost/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <memory>
#include <mutex>
#include <string>

#include "gpu_lock.hpp"
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
    tally_->held_file.clear();  // the child has ended: a timing that resumes it later tells no one
  }
  CheckSuspension(const CheckSuspension&) = delete;
  CheckSuspension& operator=(const CheckSuspension&) = delete;

  // The share is held, by the child `pid` that checks: a timing may suspend it from now on. `held_file`
  // (empty: none) is rewritten at each hold and release with "<seconds held before> <since>", `since` the
  // steady clock's seconds (CLOCK_MONOTONIC) when the hold now in force began, or 0 when none is.
  void mark(int pid, const std::string& held_file = "") {
    unmark();
    if (!enabled_ || pid <= 0) return;
    ProcessHolds* holds = &holds_;
    auto tally = tally_;  // the timing may resume the child after this evaluation has ended
    if (!held_file.empty()) tally->held_file = held_file;
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
      if (tally->active++ == 0) {
        tally->since = std::chrono::steady_clock::now();
        tally->tell();
      }
      return true;
    };
    how.resume = [holds, tally, pid] {
      (void)holds->release(pid);  // a child that has ended cannot be let go, and need not be
      std::lock_guard guard(tally->mutex);
      // Two timings' holds can overlap (one lets go as the next takes it): the time held counts once.
      if (--tally->active == 0) {
        tally->seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - tally->since).count();
        tally->tell();
      }
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
    std::string held_file;
    // Writes held_file (mutex held): a whole file or none, through a rename. A failed write loses the
    // child only the extension of its limit, never a verdict.
    void tell() const {
      if (held_file.empty()) return;
      const double started =
          active > 0 ? std::chrono::duration<double>(since.time_since_epoch()).count() : 0.0;
      std::error_code ignored;
      std::filesystem::create_directories(std::filesystem::path(held_file).parent_path(), ignored);
      const std::string part = held_file + ".part";
      {
        std::ofstream out(part, std::ios::trunc);
        out << std::fixed << std::setprecision(6) << seconds << " " << started << "\n";
        if (!out) return;
      }
      std::filesystem::rename(part, held_file, ignored);
    }
  };
  GpuLock& gpu_;
  ProcessHolds& holds_;
  const bool enabled_;
  std::shared_ptr<Tally> tally_;
  int token_ = 0;
};

}  // namespace tritongym::triton_executor
