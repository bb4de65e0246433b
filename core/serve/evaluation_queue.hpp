// The evaluations a server has accepted: a bounded queue of those that wait, one thread per executor slot that
// judges them in the order they came, and the finished ones, kept for a while so that a client can collect them
// by id (docs/serve.md, "Results kept"). Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "serve/evaluator.hpp"
#include "serve/serve_metrics.hpp"

namespace tritongym::serve {

enum class JobStatus { queued, running, done };
const char* job_status_name(JobStatus status);

// How long finished evaluations stay collectable: the newest `max_results`, each for at most `max_age_s`.
struct Retention {
  size_t max_results = 1024;
  double max_age_s = 3600.0;
};

// An evaluation as `GET /v1/evaluations/{id}` shows it.
struct JobView {
  std::string id;
  JobStatus status = JobStatus::queued;
  std::optional<Result<JudgedCandidate>> outcome;  // when done
};

class EvaluationQueue {
 public:
  // Where an evaluation's time went, in seconds: waiting for a worker, then being judged.
  struct Timing {
    double queue_seconds = 0.0;
    double judge_seconds = 0.0;
  };
  // Called once, on the worker thread that judged it, when an evaluation is done.
  using Done = std::function<void(const std::string& id, const Result<JudgedCandidate>& outcome, Timing timing)>;

  // `capacity`: how many evaluations may wait for a worker (those running are not counted).
  EvaluationQueue(Evaluator& evaluator, ServeMetrics& metrics, size_t capacity, Retention retention);
  // Closes the queue and waits for what it accepted.
  ~EvaluationQueue();
  EvaluationQueue(const EvaluationQueue&) = delete;
  EvaluationQueue& operator=(const EvaluationQueue&) = delete;

  // Starts `workers` judging threads (the executor's slots). Once.
  void start(size_t workers);

  // Accepts a candidate of `task` and returns its id (32 hex digits, random). resource_exhausted when `capacity`
  // evaluations wait already; cancelled once closed. `on_done` may be empty.
  Result<std::string> submit(const TaskSpec& task, CandidateRequest request, Done on_done);
  // An evaluation accepted and not yet forgotten; nullopt for an unknown id.
  std::optional<JobView> find(const std::string& id);

  size_t depth() const;  // waiting
  size_t capacity() const { return capacity_; }
  size_t running() const;

  // No more submissions; those accepted are still judged.
  void close();
  // Closed, with nothing waiting or running.
  bool finished() const;
  // Closes the queue and waits for the judging threads to end.
  void join();

 private:
  struct Job {
    std::string id;
    TaskSpec task;
    CandidateRequest request;
    Done on_done;
    JobStatus status = JobStatus::queued;
    std::optional<Result<JudgedCandidate>> outcome;
    std::chrono::steady_clock::time_point accepted_at, finished_at;
  };

  void work();
  void forget_old_locked(std::chrono::steady_clock::time_point now);

  Evaluator& evaluator_;
  ServeMetrics& metrics_;
  const size_t capacity_;
  const Retention retention_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool closed_ = false;
  size_t running_ = 0;
  std::deque<std::shared_ptr<Job>> waiting_;
  std::map<std::string, std::shared_ptr<Job>> jobs_;  // waiting, running and kept
  std::deque<std::string> finished_;                   // kept ids, oldest first
  std::vector<std::thread> threads_;
};

}  // namespace tritongym::serve
