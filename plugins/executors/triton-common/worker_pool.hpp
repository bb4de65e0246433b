// The candidate workers of one executor: at most `capacity` fork servers, idle ones kept for the next
// evaluation, and a lease that returns its worker on every path out of an evaluation.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "tritongym/sdk/status.hpp"
#include "worker.hpp"

namespace tritongym::triton_executor {

class WorkerPool;

// One evaluation's hold on a candidate worker. give_back(keep) returns it when the evaluation knows what became
// of it; a lease that ends without that (an early return, an exception) kills the worker, whose state is then
// unknown, and frees its slot.
class WorkerLease {
 public:
  WorkerLease(WorkerPool& pool, std::unique_ptr<Worker> worker) : pool_(&pool), worker_(std::move(worker)) {}
  WorkerLease(WorkerLease&& other) noexcept : pool_(other.pool_), worker_(std::move(other.worker_)) {}
  WorkerLease& operator=(WorkerLease&&) = delete;
  WorkerLease(const WorkerLease&) = delete;
  WorkerLease& operator=(const WorkerLease&) = delete;
  ~WorkerLease() { give_back(false); }

  // `keep`: it may serve again (if it is healthy and not due for recycling); otherwise it is killed.
  void give_back(bool keep);
  bool held() const { return worker_ != nullptr; }
  Worker& operator*() const { return *worker_; }
  Worker* operator->() const { return worker_.get(); }

 private:
  WorkerPool* pool_;
  std::unique_ptr<Worker> worker_;
};

class WorkerPool {
 public:
  // How to start the worker of a slot (slots count up from 0; the slot picks the GPU).
  using Launch = std::function<WorkerLaunch(int64_t slot)>;

  WorkerPool(int64_t capacity, int64_t recycle_after) : capacity_(capacity), recycle_after_(recycle_after) {}
  ~WorkerPool() { clear(); }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int64_t capacity() const;
  void set_capacity(int64_t capacity);
  // Starts up to `count` workers (within the capacity), each in a thread the caller joins; `launch` is called here,
  // in the caller's thread. A worker that starts joins the idle ones; one that cannot gives its slot back.
  std::vector<std::thread> prestart(int64_t count, const Launch& launch);
  // An idle worker, or a new one started with `launch` (called without the pool's lock) while there is room;
  // otherwise waits for one to come back. Error: why a new worker could not start.
  Result<WorkerLease> acquire(const Launch& launch);
  void clear();  // kills the idle workers
  int64_t running() const;  // started and not yet killed

 private:
  friend class WorkerLease;
  void give_back(std::unique_ptr<Worker> worker, bool keep);

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::unique_ptr<Worker>> idle_;
  int64_t running_ = 0;
  int64_t next_slot_ = 0;
  int64_t capacity_;
  int64_t recycle_after_;
};

}  // namespace tritongym::triton_executor
