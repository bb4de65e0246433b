// How long the host has kept one candidate's child waiting, as its fork server reads it (docs/worker-protocol.md):
// the file holds/<pid> in the candidate worker's folder, one line "<seconds before> <since>" (`since`: the steady
// clock's second, CLOCK_MONOTONIC, when the wait in force began; 0 when none is), written whole through a rename.
// Two things keep a child waiting, and they may overlap: a timing beside it that holds it through the driver
// (check_suspension.hpp), and the host's answer to one of its turns (child_turns.hpp). Each begins and ends its
// own wait; the time at least one is in force counts once. The fork server adds it to the child's limit and takes
// it out of its wall time. Thread-safe; shared by its users (a timing may let the child go after the evaluation).
#pragma once

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <mutex>
#include <string>

namespace tritongym::triton_executor {

class HeldClock {
 public:
  explicit HeldClock(std::string file) : file_(std::move(file)) {}
  HeldClock(const HeldClock&) = delete;
  HeldClock& operator=(const HeldClock&) = delete;

  // A wait begins (at `now`); the first in force starts the clock.
  void begin(std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now()) {
    std::lock_guard guard(mutex_);
    if (active_++ == 0) {
      since_ = now;
      tell();
    }
  }
  // A wait ends (at `now`); the last in force stops the clock.
  void end(std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now()) {
    std::lock_guard guard(mutex_);
    if (active_ == 0) return;
    if (--active_ == 0) {
      seconds_ += std::chrono::duration<double>(now - since_).count();
      tell();
    }
  }
  // The child has ended: nothing more is written (that pid may be another process's by then).
  void forget() {
    std::lock_guard guard(mutex_);
    file_.clear();
  }
  // The seconds of the waits that have ended.
  double seconds() const {
    std::lock_guard guard(mutex_);
    return seconds_;
  }

 private:
  // A whole file or none; a failed write loses the child only the extension of its limit, never a verdict.
  void tell() const {
    if (file_.empty()) return;
    const double started = active_ > 0 ? std::chrono::duration<double>(since_.time_since_epoch()).count() : 0.0;
    std::error_code ignored;
    std::filesystem::create_directories(std::filesystem::path(file_).parent_path(), ignored);
    const std::string part = file_ + ".part";
    {
      std::ofstream out(part, std::ios::trunc);
      out << std::fixed << std::setprecision(6) << seconds_ << " " << started << "\n";
      if (!out) return;
    }
    std::filesystem::rename(part, file_, ignored);
  }

  mutable std::mutex mutex_;
  std::string file_;
  int active_ = 0;
  double seconds_ = 0.0;
  std::chrono::steady_clock::time_point since_;
};

}  // namespace tritongym::triton_executor
