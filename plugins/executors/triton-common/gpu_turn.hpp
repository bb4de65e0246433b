// One evaluation's turn on its GPU's lock (gpu_lock.hpp): a share while it prepares and checks, the GPU alone
// while its timed calls, its autotuner's benchmarks or a baseline run. Each step says how long it waited.
#pragma once

#include <chrono>
#include <mutex>
#include <shared_mutex>

#include "gpu_lock.hpp"

namespace tritongym::triton_executor {

class GpuTurn {
 public:
  explicit GpuTurn(GpuLock& lock) : lock_(lock), shared_(lock, std::defer_lock), alone_(lock, std::defer_lock) {}
  GpuTurn(const GpuTurn&) = delete;
  GpuTurn& operator=(const GpuTurn&) = delete;

  bool shared() const { return shared_.owns_lock(); }
  bool alone() const { return alone_.owns_lock(); }
  // The share itself, for requests that take it with the reference worker's lock (lock_with_share).
  std::shared_lock<GpuLock>& share() { return shared_; }
  // The share a request to the reference worker takes: none off the GPU, or while the GPU is this evaluation's
  // alone.
  std::shared_lock<GpuLock>* share_for_requests(bool on_gpu) { return on_gpu && !alone() ? &shared_ : nullptr; }

  // A share, unless a share or the GPU alone is held already. The seconds it waited.
  double take_share() {
    if (shared() || alone()) return 0.0;
    return timed([&] { shared_.lock(); });
  }
  void drop_share() {
    if (shared()) shared_.unlock();
  }
  // The GPU alone, from a share (given up first) or from nothing. The seconds it waited.
  double take_alone() {
    if (alone()) return 0.0;
    drop_share();
    return timed([&] { alone_.lock(); });
  }
  // From the GPU alone back to a share, without letting go of the GPU in between.
  void alone_to_share() {
    if (!alone()) return;
    alone_.release();  // leaves it without its mutex: given back as a share below
    lock_.unlock_and_lock_shared();
    alone_ = std::unique_lock(lock_, std::defer_lock);
    shared_ = std::shared_lock(lock_, std::adopt_lock);
  }

 private:
  template <class Step>
  static double timed(Step step) {
    auto asked = std::chrono::steady_clock::now();
    step();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
  }

  GpuLock& lock_;
  std::shared_lock<GpuLock> shared_;
  std::unique_lock<GpuLock> alone_;
};

}  // namespace tritongym::triton_executor
