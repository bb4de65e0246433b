// One evaluation as it passes through the executor's stages (evaluate_once in triton_executor.cpp): what it
// planned, the candidate worker it leased, its turn on the GPU, where its time went, and what it has found.
// Each stage reads and adds to it; the stages are members of TritonExecutor, one file each:
//   static check (candidate_stage.cpp) → prepare cases (reference_requests.cpp) → run candidate
//   (candidate_stage.cpp) → compare (compare_stage.cpp) → time (timed_calls.cpp) → baselines
//   (timed_calls.cpp) → verdict (verdict.cpp).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "check_suspension.hpp"
#include "child_turns.hpp"
#include "gpu_turn.hpp"
#include "idle_hold.hpp"
#include "phase_clock.hpp"
#include "triton_executor.hpp"
#include "worker_json.hpp"
#include "worker_pool.hpp"

namespace tritongym::triton_executor {

// How much longer than the candidate's own limit the host waits for the fork server to answer.
inline constexpr double kHostGraceSeconds = 60.0;

struct TritonExecutor::Evaluation {
  Evaluation(const EvaluationRequest& request_, bool cuda_, bool timed_, WorkerLease lease, GpuLock& gpu_lock,
             ProcessHolds& holds, bool suspend_checks)
      : request(request_), cuda(cuda_), timed(timed_), worker_gpu(lease->gpu), worker(std::move(lease)), gpu(gpu_lock), idle(holds),
        checking(gpu_lock, holds, suspend_checks) {}

  // Sends the run to the candidate's fork server: its child's first word (a turn it asks for, or the run's reply),
  // each word waited for within the candidate's limit and the host's grace.
  void start_child(const boost::json::object& run) {
    child.emplace(*worker, timed, request.timeout_s + kHostGraceSeconds);
    reply = child->start(run);
  }
  // Answers the child's last turn (`go`: go on, or be timed) and takes its next word.
  void answer_child(bool go) { reply = child->answer(go); }
  // The event of the child's last reply ("" when there is none).
  std::string event() const { return reply ? text_of(*reply, "event") : std::string(); }
  // Ends an autotuner's turn alone, which the record counts, back to a share of the GPU.
  void end_tuning_turn() {
    if (!gpu.alone()) return;
    gpu.alone_to_share();
    tuning_alone_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - tuning_since).count();
  }

  const EvaluationRequest& request;
  const bool cuda;   // on triton-cuda
  const bool timed;  // a timing stage on a GPU
  std::vector<Case> cases;          // the correctness cases
  std::vector<TimingShape> timing;  // the timed shapes and their input sets
  std::vector<Case> to_prepare;     // the cases, then the timed sets not among them
  PhaseClock phases;
  const int64_t worker_gpu;  // the leased worker's GPU, as the reference worker numbers them
  WorkerLease worker;
  GpuTurn gpu;
  IdleHold idle;              // the child held through the driver while it said it is idle
  CheckSuspension checking;   // its share suspendable while it checks
  Plane plane;
  std::vector<std::string> warnings;  // the static checks' findings
  boost::json::array prepared;        // the reference worker's description of each prepared case

  std::optional<ChildTurns> child;  // its run: the child's turns and its reply
  Result<boost::json::object> reply = Status(StatusCode::unavailable, "the candidate has not run");  // its last word
  double share_wait = 0.0;    // the child's waits for its share (and for the GPU alone)
  int64_t tunings_alone = 0;  // its autotuner's turns alone, and their seconds
  double tuning_alone_s = 0.0;
  std::chrono::steady_clock::time_point tuning_since = std::chrono::steady_clock::now();

  std::string not_timed;  // why a candidate that ran was not timed (decided before timing)
  std::optional<Result<boost::json::object>> checked;  // its checks, compared before timing
  DeviceSampling device;  // what the GPU's sampler saw in its turn alone
  boost::json::object timing_report;  // the child's report of its timed calls
  bool timing_ran = false;            // timed, and the timed calls ran to the end

  boost::json::object record;
  EvaluationResult result;
  std::string outlived;  // processes the candidate left behind (the fork server killed them)
};

// Marks a task as being evaluated, so that its reference files are not evicted under it.
class TritonExecutor::TaskInUse {
 public:
  TaskInUse(TritonExecutor& executor, std::string task) : executor_(executor), task_(std::move(task)) {
    std::lock_guard lock(executor_.reference_mutex_);
    ++executor_.tasks_in_use_[task_];
  }
  ~TaskInUse() {
    std::lock_guard lock(executor_.reference_mutex_);
    --executor_.tasks_in_use_[task_];
  }
  TaskInUse(const TaskInUse&) = delete;
  TaskInUse& operator=(const TaskInUse&) = delete;

 private:
  TritonExecutor& executor_;
  std::string task_;
};

}  // namespace tritongym::triton_executor
