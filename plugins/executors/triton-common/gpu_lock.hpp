// A GPU's lock: evaluations share it while they prepare and check, and timing takes it alone, so that
// nothing else runs on the GPU while a candidate or a baseline is timed (and only then). A waiting timing goes
// first: evaluations that arrive after it wait, so a steady stream of checks cannot starve it
// (std::shared_mutex promises no order). Meets the SharedMutex requirements (std::shared_lock, std::unique_lock).
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <shared_mutex>

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

// Takes `share` (a GPU's share) and `other` (the reference worker's mutex) together, never holding the share
// while it waits for `other`: an evaluation that waits for the reference worker does not keep a timing off
// the GPU meanwhile. Whoever holds `other` must never wait for a GPU lock (no deadlock then). Returns
// `other` held, with `share` held too, and adds the seconds it waited to `waited`.
template <class Mutex>
std::unique_lock<Mutex> lock_with_share(std::shared_lock<GpuLock>& share, Mutex& other, double& waited) {
  auto started = std::chrono::steady_clock::now();
  std::unique_lock held(other, std::defer_lock);
  for (;;) {
    if (!share.owns_lock()) share.lock();
    if (held.try_lock()) break;
    share.unlock();
    held.lock();  // until `other` is free, then both again
    held.unlock();
  }
  waited += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return held;
}

}  // namespace tritongym::triton_executor
