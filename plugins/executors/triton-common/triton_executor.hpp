// The Triton executors: the same machinery runs kernels on a GPU (triton-cuda) or on the CPU
// through Triton's interpreter (triton-interpreter).
//
// Per evaluation: a trusted reference worker makes (and caches) inputs and expected outputs for each
// shape, dtype and secret seed; a candidate worker (a fork server) runs the candidate on those inputs
// in a sandboxed child and saves its outputs; the reference worker compares them. Candidate code never
// shares a process with the reference, the comparison, or the reference's files.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "device_sampler.hpp"
#include "executor_config.hpp"
#include "gpu_lock.hpp"
#include "prepare_ahead.hpp"
#include "process_holds.hpp"
#include "tritongym/sdk/context.hpp"
#include "tritongym/sdk/executor.hpp"
#include "worker.hpp"
#include "worker_pool.hpp"

namespace tritongym::triton_executor {

enum class Target { cuda, interpreter };

class TritonExecutor final : public Executor {
 public:
  // `python_path` is the folder holding the tritongym_worker package (and the native module).
  TritonExecutor(Target target, TritonExecutorConfig config, std::string python, std::string python_path,
                 HostLog* log);
  ~TritonExecutor() override;

  Status availability() const noexcept override;
  ExecutorInfo info() const noexcept override;
  // Judges the request; one whose cases the reference worker lost while they were still needed is judged
  // again, once (evaluate_once says so in `cases_lost`).
  Result<EvaluationResult> evaluate(const EvaluationRequest& request) noexcept override;
  // Queues the request's cases to be made while the reference worker has nothing else to do (prepare_ahead.hpp).
  void expect(const EvaluationRequest& request) noexcept override;

 private:
  struct Case {
    std::string key;        // "visible-0/float32/seed-1"
    std::string shape;      // ShapeSpec::name (with the dtype when the task has several)
    std::map<std::string, int64_t> dims;
    std::string dtype;
    int64_t seed = 0;
    std::string inputs;     // path under the reference cache's inputs folder
    std::string expected;   // path under the reference cache's expected folder (the candidate cannot read it)
  };

  // A shape the timing stages time: the input sets its timed calls rotate over.
  struct TimingShape {
    std::string shape;  // Case::shape
    std::map<std::string, int64_t> dims;
    std::string dtype;
    std::vector<Case> sets;
  };
  // A candidate's outputs to compare with a case's expected outputs.
  struct Produced {
    Case source;
    std::string output;           // files: absolute path of the .pt the candidate's child wrote
    std::string received;         // GPU data plane: the id of the receive block the child wrote to
    boost::json::object told;     // GPU data plane: what the child said (changed_inputs, output_problem)
  };

  // One evaluation on the GPU data plane (docs/worker-protocol.md): the reference worker's blocks for it,
  // on the candidate's GPU. Empty `evaluation`: the file transport.
  struct Plane {
    std::string evaluation;
    int64_t gpu = 0;
    std::vector<std::pair<std::string, std::string>> wanted;  // receive blocks: id, Case::expected
    std::map<std::string, boost::json::value> inputs;   // Case::expected -> descriptor of its exported inputs
    std::map<std::string, boost::json::value> receive;  // id -> descriptor of its receive block
    bool on() const { return !evaluation.empty(); }
    // The blocks live in one reference worker's memory; another worker (after a retirement or a death)
    // has none of them. reference_request keeps count (it holds reference_mutex_ while it does):
    int64_t generation = -1;    // the reference worker that made the blocks (reference_generation_), once made
    bool child_ended = false;   // the candidate's child no longer reads or writes them
    bool verified = false;      // a request after the child ended found the blocks' worker still there
    bool lost = false;          // they were gone while still needed: the evaluation is judged again
  };
  // Frees an evaluation's blocks in the reference worker when it ends, however it ends.
  class PlaneRelease;

  std::vector<Case> plan_cases(const EvaluationRequest& request, int64_t seeds) const;
  // What an evaluation prepares: its cases, then each timed shape's input sets not among them.
  static std::vector<Case> cases_to_prepare(const std::vector<Case>& cases, const std::vector<TimingShape>& timing);
  static std::string ahead_key(const TaskSpec& task, const std::vector<Case>& cases);  // a hint's, in PrepareAhead
  // One case of a hinted evaluation, made ahead: on GPU `number` modulo the GPUs (the GPU data plane), or
  // as files. False when the reference worker could not make it.
  bool prepare_case_ahead(const TaskSpec& task, const Case& c, int64_t number);
  // Error, or the reference worker's description of the expected outputs, one entry per case. With a
  // plane, also fills its descriptors.
  // A request that runs on an evaluation's GPU takes its `share` with the reference worker, and never holds the
  // share while it waits for the reference worker (lock_with_share); `waited` gets the seconds it waited for
  // both. Without a share (the interpreter; the GPU held alone; no GPU work) it just waits for the worker.
  Result<boost::json::array> prepare_references(const TaskSpec& task, const std::vector<Case>& cases, Plane& plane,
                                                std::shared_lock<GpuLock>* share, double& waited);
  Result<boost::json::array> prepare_on_gpu(const TaskSpec& task, const std::vector<Case>& cases, Plane& plane,
                                            std::shared_lock<GpuLock>* share, double& waited);
  Result<boost::json::object> compare(const std::vector<Produced>& produced, const TaskSpec& task, Plane& plane,
                                      std::shared_lock<GpuLock>* share, double& waited);
  // With `plane`, a request about that evaluation's blocks: the first (its prepare) records which reference
  // worker made them; a later one that finds another worker there is not sent, and says so
  // (StatusCode::unavailable), marking the blocks lost where the evaluation still needed them.
  Result<boost::json::object> reference_request(boost::json::object request, const std::string& what,
                                                std::shared_lock<GpuLock>* share = nullptr, double* waited = nullptr,
                                                Plane* plane = nullptr);
  std::unique_lock<std::mutex> lock_reference(std::shared_lock<GpuLock>* share, double* waited);
  Status ensure_reference_worker() const;  // caller holds reference_mutex_

  // One evaluation, as a pipeline of stages over its state (evaluation.hpp, which names each stage's file). A stage
  // that decides the verdict early returns it (or the harness's error); std::nullopt lets the next one run.
  struct Evaluation;
  using Decided = std::optional<Result<EvaluationResult>>;
  Result<EvaluationResult> evaluate_once(const EvaluationRequest& request, bool& cases_lost);
  void plan_plane(Evaluation& e);
  Decided static_check_stage(Evaluation& e);
  Decided prepare_stage(Evaluation& e);
  void run_candidate_stage(Evaluation& e);
  void answer_gpu_turns(Evaluation& e);  // the child's requests for its share, or the GPU alone, while it runs
  void compare_checks_early_stage(Evaluation& e);
  void timed_calls_stage(Evaluation& e);
  Decided child_outcome_stage(Evaluation& e);
  Result<boost::json::array> compare_stage(Evaluation& e);
  void timing_outcome_stage(Evaluation& e, const boost::json::array& recheck);
  boost::json::array baselines_stage(Evaluation& e);
  EvaluationResult finish(Evaluation& e);
  boost::json::object record_start(const Evaluation& e) const;  // what every record of an evaluation starts with
  static std::vector<Produced> checks_produced(const Evaluation& e, const std::string& folder,
                                               const boost::json::array& told);
  Result<boost::json::object> compare_as(Evaluation& e, const std::vector<Produced>& produced, const char* wait_phase,
                                         const char* phase);

  // The timing stages (timing_stage.cpp).
  static bool is_timing_stage(EvaluationStage stage);
  std::vector<TimingShape> plan_timing(const EvaluationRequest& request) const;
  boost::json::object timing_plan_json(const TaskSpec& task, const std::vector<TimingShape>& shapes,
                                       const Plane& plane) const;
  Result<boost::json::object> machine_ceilings(int64_t gpu);
  bool have_ceilings();  // measured already in this process: machine_ceilings() times nothing
  // With `cached_only`, times none: a shape missing from the cache gives StatusCode::not_found.
  Result<boost::json::array> baselines(const TaskSpec& task, const std::vector<TimingShape>& shapes,
                                       const boost::json::object& ceilings, Plane& plane, bool cached_only,
                                       std::shared_lock<GpuLock>* share = nullptr, double* waited = nullptr);
  // What the GPU's sampler saw in a candidate's turn alone (device_sampler.hpp), or why nothing.
  struct DeviceSampling {
    std::optional<boost::json::object> sampled;  // tritongym-gpu-sampler's reply to "stop"
    std::string problem = "the report check is off (report_check: false)";
    std::string restarted_after;  // the sampler was started again in this turn, after this failure
    bool lost = false;  // the sampler, which had run, failed in this turn: the turn is flagged (device_sampler.hpp)
  };
  // Folds the child's timing report, the re-check and the baselines into `result` (timing per shape,
  // kernels, flags), with the report held against itself and against `device` (report_check.hpp). `recheck`
  // holds the comparison entries of the timed outputs, in plan order.
  void apply_timing(const std::vector<TimingShape>& shapes,
                    const boost::json::object& report, const boost::json::array& recheck,
                    const boost::json::array& baselines, const DeviceSampling& device, EvaluationResult& result,
                    boost::json::object& record) const;
  // The GPUs' samplers (reference_mutex_ not held). Started ahead, once the reference worker says where libcupti
  // is (sampler_start_), or else with the first timed candidate on each GPU.
  DeviceSamplers& samplers() const;
  std::string visible_id(int64_t gpu) const;  // what CUDA_VISIBLE_DEVICES names GPU `gpu` by
  // What the static checks say of a source, from the evaluation's own candidate worker (they compile the source,
  // never run it, so they need neither the reference worker nor a GPU): their findings, and the message of a
  // source that does not compile (empty when it does), the very one the import of candidate.py would give.
  struct StaticCheck {
    std::vector<std::string> warnings;
    std::string syntax_error;
  };
  // Error: that worker failed on the source.
  Result<StaticCheck> static_check(const EvaluationRequest& request, Worker& worker);
  std::string cache_dir() const;

  WorkerLaunch launch_for(const std::string& role, int64_t slot) const;  // reference_mutex_ held
  static std::vector<std::string> visible_gpus();  // the host's CUDA_VISIBLE_DEVICES, split
  int64_t gpu_count_locked() const;  // GPUs the driver or the reference worker sees (reference_mutex_ held)
  // Starts the pool's candidate workers in threads and returns them, to be joined on destruction (reference_mutex_
  // held).
  std::vector<std::thread> prestart_candidates() const;

  Target target_;
  TritonExecutorConfig config_;
  std::string python_;
  std::string python_path_;
  HostLog* log_;
  std::string root_;                  // this executor's temporary folder
  std::vector<int64_t> secret_seeds_;
  std::atomic<int64_t> evaluations_{0};  // names each evaluation on the GPU data plane

  mutable std::mutex reference_mutex_;  // one request at a time to the reference worker
  mutable std::unique_ptr<Worker> reference_;
  mutable int64_t reference_generation_ = 0;  // reference workers started so far (the current one's number)
  mutable std::optional<Status> availability_;
  // The candidate workers' start decided, once: on CUDA, after asking the driver for the GPUs
  // (environment::probe_gpus); on the interpreter, at once.
  mutable bool gpus_asked_ = false;
  mutable int64_t gpu_count_ = 0;    // what it said; 0: ask the reference worker
  std::map<std::string, boost::json::value> prepared_;  // expected-output path -> its description
  std::optional<boost::json::object> ceilings_;         // measured once (guarded by reference_mutex_)
  // The reference cache's files per task, least recently used first, and the tasks being evaluated now
  // (never evicted). Inputs and expected outputs of large shapes take gigabytes: only the most recent
  // `reference_cache_tasks` tasks keep theirs. Guarded by reference_mutex_.
  std::list<std::string> task_order_;
  std::map<std::string, std::set<std::string>> task_files_;
  std::map<std::string, int64_t> tasks_in_use_;
  void evict_reference_files();  // caller holds reference_mutex_
  class TaskInUse;

  // Timing needs its GPU to itself: evaluations share their GPU while they prepare and check, and take it
  // alone for a candidate's timed calls and for baselines not in the cache. One lock per device (created
  // under gpu_mutexes_mutex_; map nodes never move). On the file transport the baselines run on the reference
  // worker's device 0.
  std::map<int64_t, GpuLock> gpu_mutexes_;
  std::mutex gpu_mutexes_mutex_;
  // Cases made ahead of their evaluations (expect; null with prepare_ahead: 0). Stopped first thing in the
  // destructor: its steps use the reference worker.
  std::unique_ptr<PrepareAhead> ahead_;
  std::atomic<int64_t> hints_{0};
  // Marks the reference worker wanted by an evaluation while it waits for it and uses it: no step ahead starts.
  struct ReferenceWanted {
    explicit ReferenceWanted(PrepareAhead* ahead) : ahead_(ahead) {
      if (ahead_) ahead_->want();
    }
    ~ReferenceWanted() {
      if (ahead_) ahead_->wanted();
    }
    ReferenceWanted(const ReferenceWanted&) = delete;
    ReferenceWanted& operator=(const ReferenceWanted&) = delete;
    PrepareAhead* ahead_;
  };
  GpuLock& gpu_mutex(int64_t gpu);
  // Holds on the children's CUDA calls (triton-cuda): the idle hold's and the suspensions' (gpu_lock.hpp).
  ProcessHolds process_holds_;
  mutable std::mutex samplers_mutex_;
  mutable std::unique_ptr<DeviceSamplers> samplers_;
  mutable std::thread sampler_start_;  // starts every GPU's sampler beside the first evaluations

  // The candidate workers. Mutable: availability() starts them alongside the reference worker. Its capacity:
  // `workers`, where 0 becomes automatic_workers() once the GPUs are known.
  mutable WorkerPool pool_{1, config_.recycle_after};
  mutable std::vector<std::thread> starting_candidates_;  // the first workers' starts (prestart_candidates)
};

}  // namespace tritongym::triton_executor
