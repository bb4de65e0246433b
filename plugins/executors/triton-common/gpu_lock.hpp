// A GPU's lock: evaluations share it while they prepare and check, and timing takes it alone, so that
// nothing else runs on the GPU while a candidate or a baseline is timed (and only then). A waiting timing goes
// first: evaluations that arrive after it wait, so a steady stream of checks cannot starve it
// (std::shared_mutex promises no order). Meets the SharedMutex requirements (std::shared_lock, std::unique_lock).
//
// A timing need not wait for every check to end: a share marked suspendable (a checking child, whose process
// the driver can hold: process_holds.hpp) is suspended instead. Its holder is held (the GPU work it queued
// has finished, its next CUDA call waits) and counts no more against the timing, which resumes it when it
// lets the GPU go. A share that cannot be suspended (the reference worker's, a child CUPTI is attached to,
// one whose work outlasts the hold's timeout) is waited for as before.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <utility>
#include <vector>

namespace tritongym::triton_executor {

class GpuLock {
 public:
  // How a timing suspends a share's holder: `suspend` returns true when the holder is held; `resume`, called
  // once for each true, lets it go (also after the share has been released meanwhile).
  struct Suspendable {
    std::function<bool()> suspend;
    std::function<void()> resume;
  };

  void lock() {
    std::unique_lock guard(mutex_);
    ++writers_waiting_;
    changed_.wait(guard, [&] { return !writing_ && !claimed_; });
    claimed_ = true;  // the next timing: it alone suspends shares, once each
    const uint64_t round = ++round_;
    while (readers_ - suspended_ > 0) {
      std::vector<int> untried;
      for (auto& [token, entry] : suspendable_)
        if (!entry.suspended && entry.tried != round) {
          entry.tried = round;
          untried.push_back(token);
        }
      if (untried.empty()) {
        changed_.wait(guard);  // a share released, or one marked suspendable
        continue;
      }
      for (int token : untried) {
        auto found = suspendable_.find(token);
        if (found == suspendable_.end()) continue;  // released meanwhile
        Suspendable how = found->second.how;
        guard.unlock();
        const bool held = how.suspend();
        guard.lock();
        if (!held) continue;  // waited for, as an unmarked share
        resumes_.push_back(std::move(how.resume));
        found = suspendable_.find(token);
        if (found != suspendable_.end()) {
          found->second.suspended = true;
          ++suspended_;
        }
      }
    }
    --writers_waiting_;
    claimed_ = false;
    writing_ = true;
  }
  void unlock() { end_alone(false); }
  // From alone to shared in one step, so that a timing waiting meanwhile cannot come in between (the
  // caller's timed calls are done, and what it does next needs only a share). Other evaluations' shares
  // come in unless a timing waits.
  void unlock_and_lock_shared() { end_alone(true); }
  void lock_shared() {
    std::unique_lock guard(mutex_);
    changed_.wait(guard, [&] { return !writing_ && writers_waiting_ == 0; });
    ++readers_;
  }
  void unlock_shared() {
    {
      std::lock_guard guard(mutex_);
      --readers_;
    }
    changed_.notify_all();
  }

  // The holder of a share says a timing may suspend it (and until when: unmark_suspendable, before the share
  // is released). Returns the token to unmark it with.
  int mark_suspendable(Suspendable how) {
    int token;
    {
      std::lock_guard guard(mutex_);
      token = ++tokens_;
      suspendable_[token].how = std::move(how);
    }
    changed_.notify_all();  // a waiting timing may suspend it
    return token;
  }
  void unmark_suspendable(int token) {
    std::lock_guard guard(mutex_);
    auto found = suspendable_.find(token);
    if (found == suspendable_.end()) return;
    if (found->second.suspended) --suspended_;  // the timing still resumes it when it ends
    suspendable_.erase(found);
  }

 private:
  struct Entry {
    Suspendable how;
    bool suspended = false;
    uint64_t tried = 0;  // the round (timing) that tried to suspend it
  };

  void end_alone(bool keep_share) {
    std::vector<std::function<void()>> resumes;
    {
      std::lock_guard guard(mutex_);
      writing_ = false;
      if (keep_share) ++readers_;
      resumes.swap(resumes_);
      for (auto& [token, entry] : suspendable_) entry.suspended = false;
      suspended_ = 0;
    }
    for (auto& resume : resumes) resume();
    changed_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  int readers_ = 0;
  int writers_waiting_ = 0;
  bool writing_ = false;
  bool claimed_ = false;
  uint64_t round_ = 0;
  int tokens_ = 0;
  int suspended_ = 0;
  std::map<int, Entry> suspendable_;
  std::vector<std::function<void()>> resumes_;  // the shares this timing suspended, to resume when it ends
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
