// Cases prepared ahead of their evaluation (Executor::expect): a batch says which candidates come next, and
// the reference worker makes their cases (inputs drawn, the reference run) while no evaluation wants it, so
// that the evaluation finds them made. One thread works through the hints in the order given, one step (one
// case) at a time, and before each step waits until no evaluation wants the reference worker: a hint never
// keeps an evaluation waiting for longer than the step in progress.
//
// The scheduling only; the executor says what a step does (triton_executor.cpp, TritonExecutor::expect).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace tritongym::triton_executor {

class PrepareAhead {
 public:
  // A step returns false when it failed: the hint's other steps are dropped (its evaluation, when it comes,
  // prepares them itself and reports what failed).
  using Step = std::function<bool()>;

  struct Counts {
    int64_t hinted = 0;   // hints taken into the queue
    int64_t ignored = 0;  // hints already known, or beyond the queue's room
    int64_t steps = 0;    // steps run
    int64_t failed = 0;   // steps that failed
    int64_t taken = 0;    // hints whose evaluation came before all their steps had run
  };

  // At most `room` hints wait at once; more are ignored (the nearest ones are the ones to prepare).
  explicit PrepareAhead(size_t room) : room_(room) {}
  ~PrepareAhead() { stop(); }
  PrepareAhead(const PrepareAhead&) = delete;
  PrepareAhead& operator=(const PrepareAhead&) = delete;

  // Queues the steps of the hint `key`; false when it is known already (waiting, in progress or done) or the
  // queue is full. Starts the thread on the first hint.
  bool hint(const std::string& key, std::vector<Step> steps) {
    std::lock_guard guard(mutex_);
    if (stopping_ || known_.count(key) || waiting_.size() >= room_) {
      ++counts_.ignored;
      return false;
    }
    known_.insert(key);
    waiting_.push_back({key, ++hints_, std::move(steps)});
    ++counts_.hinted;
    if (!thread_.joinable()) thread_ = std::thread([this] { work(); });
    changed_.notify_all();
    return true;
  }

  // The evaluation of `key` begins: its steps not run yet are dropped (it prepares what is missing itself). A
  // later hint of the same key is taken again.
  void taken(const std::string& key) {
    std::lock_guard guard(mutex_);
    if (!known_.erase(key)) return;
    for (auto it = waiting_.begin(); it != waiting_.end(); ++it)
      if (it->key == key) {
        ++counts_.taken;
        waiting_.erase(it);
        return;
      }
  }

  // An evaluation wants the reference worker (`wanted`), or has it no more: no step starts while one does.
  void want() {
    std::lock_guard guard(mutex_);
    ++wanting_;
  }
  void wanted() {
    {
      std::lock_guard guard(mutex_);
      --wanting_;
    }
    changed_.notify_all();
  }

  // Returns once no hint is waiting or in progress (tests; and a caller that must not race the steps).
  void wait_idle() {
    std::unique_lock guard(mutex_);
    changed_.wait(guard, [&] { return stopping_ || (waiting_.empty() && running_ == 0); });
  }

  Counts counts() const {
    std::lock_guard guard(mutex_);
    return counts_;
  }

  // Ends the thread after the step in progress; later hints are ignored.
  void stop() {
    {
      std::lock_guard guard(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  struct Hint {
    std::string key;
    uint64_t id = 0;  // tells a hint from a later one of the same key
    std::vector<Step> steps;
  };

  void work() {
    std::unique_lock guard(mutex_);
    for (;;) {
      changed_.wait(guard, [&] { return stopping_ || (!waiting_.empty() && wanting_ == 0); });
      if (stopping_) return;
      Hint& front = waiting_.front();
      Step step = std::move(front.steps.front());
      front.steps.erase(front.steps.begin());
      running_ = front.id;
      if (front.steps.empty()) waiting_.pop_front();  // the key stays known: done
      guard.unlock();
      const bool ok = step();
      guard.lock();
      ++counts_.steps;
      if (!ok) {  // the rest of this hint goes, if it is still waiting (its evaluation may have taken it)
        ++counts_.failed;
        if (!waiting_.empty() && waiting_.front().id == running_) waiting_.pop_front();
      }
      running_ = 0;
      changed_.notify_all();
    }
  }

  const size_t room_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Hint> waiting_;    // in the order hinted; the front one's steps run first
  std::set<std::string> known_; // waiting, in progress or done (until its evaluation takes it)
  uint64_t hints_ = 0;          // hints taken so far: the last one's id
  uint64_t running_ = 0;        // the id of the hint whose step is in progress; 0: none
  int64_t wanting_ = 0;
  bool stopping_ = false;
  Counts counts_;
  std::thread thread_;
};

}  // namespace tritongym::triton_executor
