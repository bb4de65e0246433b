#include "serve/evaluation_queue.hpp"

#include <exception>
#include <random>

namespace tritongym::serve {
namespace {

std::string random_id() {
  static thread_local std::random_device device;
  static const char kHex[] = "0123456789abcdef";
  std::string id;
  for (int word = 0; word < 4; ++word) {
    uint32_t bits = device();
    for (int nibble = 0; nibble < 8; ++nibble, bits >>= 4) id += kHex[bits & 0xF];
  }
  return id;
}

}  // namespace

const char* job_status_name(JobStatus status) {
  switch (status) {
    case JobStatus::queued: return "queued";
    case JobStatus::running: return "running";
    case JobStatus::done: return "done";
  }
  return "unknown";
}

EvaluationQueue::EvaluationQueue(Evaluator& evaluator, ServeMetrics& metrics, size_t capacity, Retention retention)
    : evaluator_(evaluator), metrics_(metrics), capacity_(capacity), retention_(retention) {}

EvaluationQueue::~EvaluationQueue() { join(); }

void EvaluationQueue::start(size_t workers) {
  std::lock_guard lock(mutex_);
  if (!threads_.empty()) return;
  for (size_t i = 0; i < std::max<size_t>(workers, 1); ++i) threads_.emplace_back([this] { work(); });
}

Result<std::string> EvaluationQueue::submit(const TaskSpec& task, CandidateRequest request, Done on_done) {
  auto job = std::make_shared<Job>();
  bool waits = false;  // no worker is free for it: the executor may prepare its cases meanwhile
  {
    std::lock_guard lock(mutex_);
    if (closed_) return Status(StatusCode::cancelled, "the server is draining: it takes no new evaluations");
    if (waiting_.size() >= capacity_)
      return Status(StatusCode::resource_exhausted, "the queue is full: " + std::to_string(waiting_.size()) +
                                                        " evaluations wait for a worker (--queue " +
                                                        std::to_string(capacity_) + ")");
    do job->id = random_id();
    while (jobs_.count(job->id));
    job->task = task;
    job->request = std::move(request);
    job->on_done = std::move(on_done);
    job->accepted_at = std::chrono::steady_clock::now();
    jobs_[job->id] = job;
    waiting_.push_back(job);
    waits = running_ + waiting_.size() > threads_.size();
  }
  changed_.notify_one();
  if (waits) evaluator_.expect(job->task, job->request);
  return job->id;
}

std::optional<JobView> EvaluationQueue::find(const std::string& id) {
  std::lock_guard lock(mutex_);
  forget_old_locked(std::chrono::steady_clock::now());
  auto found = jobs_.find(id);
  if (found == jobs_.end()) return std::nullopt;
  return JobView{found->second->id, found->second->status, found->second->outcome};
}

size_t EvaluationQueue::depth() const {
  std::lock_guard lock(mutex_);
  return waiting_.size();
}

size_t EvaluationQueue::running() const {
  std::lock_guard lock(mutex_);
  return running_;
}

void EvaluationQueue::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  changed_.notify_all();
}

bool EvaluationQueue::finished() const {
  std::lock_guard lock(mutex_);
  return closed_ && waiting_.empty() && running_ == 0;
}

void EvaluationQueue::join() {
  close();
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mutex_);
    threads.swap(threads_);
  }
  for (auto& thread : threads) thread.join();
}

void EvaluationQueue::work() {
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return !waiting_.empty() || closed_; });
      if (waiting_.empty()) return;  // closed, and nothing left to judge
      job = waiting_.front();
      waiting_.pop_front();
      job->status = JobStatus::running;
      ++running_;
    }
    const auto started = std::chrono::steady_clock::now();
    Result<JudgedCandidate> outcome = Status(StatusCode::internal, "not judged");
    try {
      outcome = evaluator_.judge(job->task, job->request);
    } catch (const std::exception& error) {
      outcome = Status(StatusCode::internal, "judging a candidate of " + job->task.id + " failed: " + error.what());
    }
    const auto now = std::chrono::steady_clock::now();
    const Timing timing{std::chrono::duration<double>(started - job->accepted_at).count(),
                        std::chrono::duration<double>(now - started).count()};
    metrics_.count_evaluation(outcome ? outcome->verdict : "error", timing.judge_seconds,
                              outcome ? outcome->gpu_seconds : 0.0);
    Done on_done;
    {
      std::lock_guard lock(mutex_);
      job->status = JobStatus::done;
      job->outcome = outcome;
      job->finished_at = now;
      on_done = std::move(job->on_done);
      finished_.push_back(job->id);
      forget_old_locked(now);
    }
    // Answered before it counts as finished: a drain that sees nothing running has every answer on its way.
    if (on_done) {
      try {
        on_done(job->id, outcome, timing);
      } catch (const std::exception&) {  // the answer could not be handed over; the result stays collectable
      }
    }
    {
      std::lock_guard lock(mutex_);
      --running_;
    }
    changed_.notify_all();
  }
}

void EvaluationQueue::forget_old_locked(std::chrono::steady_clock::time_point now) {
  const auto max_age = std::chrono::duration<double>(retention_.max_age_s);
  while (!finished_.empty()) {
    auto found = jobs_.find(finished_.front());
    bool too_many = finished_.size() > retention_.max_results;
    if (found != jobs_.end() && !too_many && now - found->second->finished_at <= max_age) break;
    if (found != jobs_.end()) jobs_.erase(found);
    finished_.pop_front();
  }
}

}  // namespace tritongym::serve
