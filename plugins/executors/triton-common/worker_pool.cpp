#include "worker_pool.hpp"

namespace tritongym::triton_executor {

void WorkerLease::give_back(bool keep) {
  if (worker_) pool_->give_back(std::move(worker_), keep);
}

int64_t WorkerPool::capacity() const {
  std::lock_guard lock(mutex_);
  return capacity_;
}

void WorkerPool::set_capacity(int64_t capacity) {
  std::lock_guard lock(mutex_);
  capacity_ = capacity;
  changed_.notify_all();
}

int64_t WorkerPool::running() const {
  std::lock_guard lock(mutex_);
  return running_;
}

std::vector<std::thread> WorkerPool::prestart(int64_t count, const Launch& launch) {
  std::vector<std::thread> starting;
  for (int64_t i = 0; i < count; ++i) {
    int64_t slot = 0;
    {
      std::lock_guard lock(mutex_);
      if (running_ >= capacity_) break;
      ++running_;
      slot = next_slot_++;
    }
    starting.emplace_back([this, how = launch(slot)] {
      auto started = Worker::start(how);
      std::lock_guard lock(mutex_);
      if (started) idle_.push_back(std::move(started.value()));
      else --running_;  // an evaluation starts one itself, and reports why it cannot
      changed_.notify_one();
    });
  }
  return starting;
}

Result<WorkerLease> WorkerPool::acquire(const Launch& launch) {
  int64_t slot = 0;
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !idle_.empty() || running_ < capacity_; });
    if (!idle_.empty()) {
      auto worker = std::move(idle_.back());
      idle_.pop_back();
      return WorkerLease(*this, std::move(worker));
    }
    ++running_;
    slot = next_slot_++;
  }
  auto started = Worker::start(launch(slot));
  if (!started) {
    give_back(nullptr, false);
    return started.status();
  }
  return WorkerLease(*this, std::move(started.value()));
}

void WorkerPool::give_back(std::unique_ptr<Worker> worker, bool keep) {
  std::lock_guard lock(mutex_);
  if (worker && keep && worker->healthy() && worker->evaluations < recycle_after_) {
    idle_.push_back(std::move(worker));
  } else {
    if (worker) worker->kill();
    --running_;
  }
  changed_.notify_one();
}

void WorkerPool::clear() {
  std::lock_guard lock(mutex_);
  idle_.clear();  // kills the idle workers' process groups
}

}  // namespace tritongym::triton_executor
