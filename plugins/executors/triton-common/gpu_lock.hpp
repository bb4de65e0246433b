// A GPU's lock: evaluations share it while they prepare and check, and timing takes it alone, so that
// nothing else runs on the GPU while a candidate or a baseline is timed (and only then). A waiting timing goes
// first: evaluations that arrive after it wait, so a steady stream of checks cannot starve it
// (std::shared_mutex promises no order). Meets the SharedMutex requirements (std::shared_lock, std::unique_lock).
#pragma once

#include <condition_variable>
#include <mutex>

namespace tritongym::triton_executor {

class GpuLock {
 public:
  void lock() {
    std::unique_lock guard(mutex_);
    ++writers_waiting_;
    changed_.wait(guard, [&] { return !writing_ && readers_ == 0; });
    --writers_waiting_;
    writing_ = true;
  }
  void unlock() {
    {
      std::lock_guard guard(mutex_);
      writing_ = false;
    }
    changed_.notify_all();
  }
  // From alone to shared in one step, so that a timing waiting meanwhile cannot come in between (the
  // caller's timed calls are done, and what it does next needs only a share). Other evaluations' shares
  // come in unless a timing waits.
  void unlock_and_lock_shared() {
    {
      std::lock_guard guard(mutex_);
      writing_ = false;
      ++readers_;
    }
    changed_.notify_all();
  }
  void lock_shared() {
    std::unique_lock guard(mutex_);
    changed_.wait(guard, [&] { return !writing_ && writers_waiting_ == 0; });
    ++readers_;
  }
  void unlock_shared() {
    bool last = false;
    {
      std::lock_guard guard(mutex_);
      last = --readers_ == 0;
    }
    if (last) changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int readers_ = 0;
  int writers_waiting_ = 0;
  bool writing_ = false;
};

}  // namespace tritongym::triton_executor
