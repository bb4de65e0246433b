#include "triton_executor.hpp"

#include "evaluation.hpp"
#include "verdict.hpp"
#include "worker_count.hpp"
#include "worker_json.hpp"

#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <sstream>
#include <thread>

namespace tritongym::triton_executor {
namespace {

namespace fs = std::filesystem;

std::string dims_text(const std::map<std::string, int64_t>& dims) {
  std::string text;
  for (const auto& [name, size] : dims) text += (text.empty() ? "" : ", ") + name + "=" + std::to_string(size);
  return text;
}

std::string slug(const std::string& text) {
  std::string out;
  for (char c : text) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return out;
}

}  // namespace

TritonExecutor::TritonExecutor(Target target, TritonExecutorConfig config, std::string python,
                               std::string python_path, HostLog* log)
    : target_(target), config_(std::move(config)), python_(std::move(python)),
      python_path_(std::move(python_path)), log_(log),
      process_holds_(target == Target::cuda ? ProcessHolds::cuda() : ProcessHolds::Driver{}) {
  // Whatever process hosts this executor holds secrets (API keys); candidates run as the same user.
  // Non-dumpable, its memory and /proc files are out of their reach.
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  fs::path base = config_.temp_dir.empty() ? fs::temp_directory_path() : fs::path(config_.temp_dir);
  std::random_device random;
  root_ = (base / ("tritongym-" + std::string(target_ == Target::cuda ? "cuda" : "interpreter") + "-" +
                   std::to_string(random()) + std::to_string(random())))
              .string();
  fs::create_directories(root_ + "/reference/inputs");
  fs::create_directories(root_ + "/reference/expected");
  std::mt19937_64 generator((static_cast<uint64_t>(random()) << 32) ^ random());
  for (int64_t i = 0; i < std::max<int64_t>(config_.secret_seeds, 1); ++i)
    secret_seeds_.push_back(static_cast<int64_t>(generator() >> 2));
  pool_.set_capacity(config_.workers > 0 ? config_.workers
                                          : (target_ == Target::interpreter
                                                 ? std::clamp<int64_t>(std::thread::hardware_concurrency(), 1, 4)
                                                 : 1));
  // On the file transport only the reference_cache_tasks most recent tasks keep their files: no more ahead.
  int64_t ahead = config_.prepare_ahead;
  if (target_ == Target::interpreter || config_.data_plane != "gpu")
    ahead = std::min(ahead, std::max<int64_t>(config_.reference_cache_tasks - 1, 0));
  if (ahead > 0) ahead_ = std::make_unique<PrepareAhead>(static_cast<size_t>(ahead));
}

TritonExecutor::~TritonExecutor() {
  if (ahead_) ahead_->stop();  // after the step in progress
  for (auto& thread : starting_candidates_) thread.join();  // each ends within its worker's start timeout
  if (sampler_start_.joinable()) sampler_start_.join();
  pool_.clear();  // kills the idle workers' process groups
  reference_.reset();
  if (!config_.keep_folders) {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
}

std::string TritonExecutor::visible_id(int64_t gpu) const {
  std::vector<std::string> visible = visible_gpus();
  return visible.empty() ? std::to_string(gpu) : visible[static_cast<size_t>(gpu) % visible.size()];
}

DeviceSamplers& TritonExecutor::samplers() const {
  std::lock_guard lock(samplers_mutex_);
  if (samplers_) return *samplers_;
  DeviceSamplerOptions options;
  options.program = config_.report_check_sampler;
  options.environment = minimal_environment(config_.pass_environment);
  options.interval_ns = static_cast<int64_t>(config_.report_check_interval_us * 1000.0);
  options.max_samples = static_cast<int64_t>(config_.report_check_max_window_s * 1e6 / config_.report_check_interval_us);
  options.log_dir = root_ + "/samplers";
  {  // libcupti and its libnvperf_* where the workers find them (the reference worker lists where it looks)
    std::lock_guard reference(reference_mutex_);
    if (reference_)
      if (const auto* paths = reference_->hello().if_contains("cupti_paths"); paths && paths->is_array())
        for (const auto& path : paths->as_array())
          if (path.is_string() && fs::exists(std::string(path.as_string()))) {
            std::string dir = fs::path(std::string(path.as_string())).parent_path().string();
            if (std::find(options.library_dirs.begin(), options.library_dirs.end(), dir) == options.library_dirs.end())
              options.library_dirs.push_back(std::move(dir));
          }
  }
  samplers_ = std::make_unique<DeviceSamplers>(std::move(options));
  return *samplers_;
}

WorkerLaunch TritonExecutor::launch_for(const std::string& role, int64_t slot) const {
  WorkerLaunch launch;
  launch.python = python_;
  launch.role = role;
  launch.device = target_ == Target::cuda ? "cuda" : "cpu";
  launch.root = root_ + "/" + role + (role == "candidate" ? "-" + std::to_string(slot) : std::string());
  // A child writes to the Triton cache of its own code and reads its fork server's (triton_cache.py). The fork
  // servers' cache is the machine's, kept across runs beside the baselines: only fork servers write it, and they
  // only put Triton's warm-up kernel and CUDA helper module there (warmup.py), which a fresh cache made every
  // worker build again at each start (0.73 s of a worker's 2.9 s start on the H200, 2026-12-01). The reference
  // worker, which runs torch.compile's baselines, keeps a cache of its own for this executor, and so does a fork
  // server where the machine's cannot be written.
  launch.triton_cache = launch.root + "/triton-cache";
  if (role == "candidate") {
    const std::string machine = cache_dir() + "/triton-fork-servers";
    std::error_code error;
    fs::create_directories(machine, error);
    if (!error && ::access(machine.c_str(), W_OK) == 0) launch.triton_cache = machine;
  }
  launch.memory_limit_bytes = target_ == Target::interpreter ? config_.memory_limit_mb << 20 : 0;
  launch.start_timeout_s = config_.worker_start_timeout_s;
  launch.environment = minimal_environment(config_.pass_environment);
  launch.environment["PYTHONPATH"] = python_path_;
  launch.environment["HOME"] = launch.root;
  launch.environment["TMPDIR"] = launch.root;
  launch.environment["TRITON_CACHE_DIR"] = launch.triton_cache;
  launch.environment["PYTHONDONTWRITEBYTECODE"] = "1";
  if (target_ == Target::interpreter) {
    launch.environment["TRITON_INTERPRET"] = "1";
    launch.environment["CUDA_VISIBLE_DEVICES"] = "";
  } else {
    // The host's CUDA_VISIBLE_DEVICES (a run pinned to some GPUs) bounds every worker. The reference
    // worker sees all of those GPUs; each candidate worker sees one, round robin over them.
    std::vector<std::string> visible = visible_gpus();
    if (role == "candidate" && (reference_ || gpu_count_ > 0)) {
      launch.gpu = slot % gpu_count_locked();
      launch.environment["CUDA_VISIBLE_DEVICES"] =
          visible.empty() ? std::to_string(launch.gpu) : visible[static_cast<size_t>(launch.gpu) % visible.size()];
    } else if (!visible.empty()) {
      std::string joined;
      for (const auto& id : visible) joined += (joined.empty() ? "" : ",") + id;
      launch.environment["CUDA_VISIBLE_DEVICES"] = joined;
    }
  }
  return launch;
}

std::vector<std::string> TritonExecutor::visible_gpus() {
  std::vector<std::string> ids;
  const char* value = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!value || !*value) return ids;
  std::string text(value);
  for (size_t start = 0; start <= text.size();) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    if (comma > start) ids.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return ids;
}

int64_t TritonExecutor::gpu_count_locked() const {
  if (gpu_count_ > 0) return gpu_count_;
  const auto* devices = reference_ ? reference_->hello().if_contains("cuda_devices") : nullptr;
  return devices && devices->is_int64() ? std::max<int64_t>(devices->as_int64(), 1) : 1;
}

Status TritonExecutor::ensure_reference_worker() const {
  if (availability_ && !availability_->is_ok()) return *availability_;
  if (reference_ && reference_->healthy()) return {};
  if (python_.empty())
    return *(availability_ = Status(StatusCode::unavailable,
                                    "no Python for the workers: run scripts/setup.sh or set TRITONGYM_PYTHON"));
  // The reference worker starts first. On CUDA the driver is asked for the GPUs meanwhile (cuInit: a fraction
  // of a second); told them, the candidate workers start while the reference worker does (each imports torch:
  // seconds). Otherwise they wait for the reference worker's count. The interpreter's need no GPU, and always
  // start beside it. Judging begins once the reference worker is up: an evaluation waits for the first idle
  // candidate worker (acquire_worker), not for the last to start (their threads are joined on destruction).
  std::thread asking;
  if (target_ == Target::interpreter && !gpus_asked_) {
    gpus_asked_ = true;
    starting_candidates_ = prestart_candidates();
  }
  if (target_ == Target::cuda && !gpus_asked_) {
    gpus_asked_ = true;
    asking = std::thread([this] {  // joined below, while this thread still holds reference_mutex_
      std::string why_none;
      std::vector<environment::GpuInfo> gpus = environment::probe_gpus(&why_none);
      if (!gpus.empty()) {
        gpu_count_ = static_cast<int64_t>(gpus.size());
        if (config_.workers == 0) pool_.set_capacity(automatic_workers(gpus, std::thread::hardware_concurrency()));
        starting_candidates_ = prestart_candidates();
      } else if (log_) {
        log_->write(LogLevel::debug, "triton-cuda: " + why_none + "; the reference worker will count the GPUs");
      }
    });
  }
  auto started = Worker::start(launch_for("reference", 0));
  if (asking.joinable()) asking.join();
  if (!started) return *(availability_ = started.status());
  reference_ = std::move(started.value());
  ++reference_generation_;  // the blocks of evaluations the last one held are gone with it
  if (target_ == Target::cuda) {
    const auto* devices = reference_->hello().if_contains("cuda_devices");
    if (!devices || !devices->is_int64() || devices->as_int64() < 1) {
      reference_.reset();
      return *(availability_ = Status(StatusCode::unavailable,
                                      "no GPU: torch in " + python_ + " sees no CUDA device (use triton-interpreter)"));
    }
    if (gpu_count_ > 0 && devices->as_int64() != gpu_count_ && log_)
      log_->write(LogLevel::warn, "triton-cuda: the driver counted " + std::to_string(gpu_count_) +
                                      " GPUs and the reference worker " + std::to_string(devices->as_int64()));
    if (config_.workers == 0 && gpu_count_ == 0)  // automatic, without the driver's word: one per GPU
      pool_.set_capacity(gpu_count_locked());
  }
  // The GPUs' samplers load CUPTI (seconds): started now, beside the first evaluations, not in a timing's turn.
  if (target_ == Target::cuda && config_.report_check && !sampler_start_.joinable()) {
    const int64_t gpus = gpu_count_locked();
    sampler_start_ = std::thread([this, gpus] {
      for (int64_t gpu = 0; gpu < gpus; ++gpu) samplers().start(gpu, visible_id(gpu));
    });
  }
  availability_ = Status();
  return {};
}

Status TritonExecutor::availability() const noexcept {
  try {
    std::lock_guard lock(reference_mutex_);
    return ensure_reference_worker();
  } catch (const std::exception& error) {
    return Status(StatusCode::internal, std::string("availability check failed: ") + error.what());
  }
}

ExecutorInfo TritonExecutor::info() const noexcept {
  ExecutorInfo info;
  info.parallel_slots = pool_.capacity();
  info.reports_performance = target_ == Target::cuda;
  if (target_ == Target::interpreter) {
    info.device = "cpu (Triton interpreter)";
    info.dsls = {"triton"};  // Gluon kernels compile for a GPU only
  } else {
    std::lock_guard lock(reference_mutex_);
    info.device = reference_ ? text_of(reference_->hello(), "device_name") : "cuda";
  }
  return info;
}

std::vector<TritonExecutor::Case> TritonExecutor::plan_cases(const EvaluationRequest& request, int64_t wanted_seeds) const {
  const TaskSpec& task = request.task;
  std::vector<ShapeSpec> shapes;
  bool small = target_ == Target::interpreter && !task.small_shapes.empty();
  if (small) {
    shapes = task.small_shapes;
  } else {
    shapes = task.visible_shapes;
    if (request.shapes == ShapeSet::held_out || request.stage == EvaluationStage::final_score)
      shapes.insert(shapes.end(), task.held_out_shapes.begin(), task.held_out_shapes.end());
  }
  std::vector<std::string> dtypes = task.dtypes.empty() ? std::vector<std::string>{"float32"} : task.dtypes;
  int64_t seeds = request.stage == EvaluationStage::compile
                      ? 1
                      : std::clamp<int64_t>(wanted_seeds, 1, static_cast<int64_t>(secret_seeds_.size()));
  if (request.stage == EvaluationStage::compile) {
    shapes.resize(std::min<size_t>(shapes.size(), 1));
    dtypes.resize(1);
  }
  std::vector<Case> cases;
  for (const auto& shape : shapes) {
    for (const auto& dtype : dtypes) {
      for (int64_t s = 0; s < seeds; ++s) {
        Case c;
        c.shape = dtypes.size() > 1 ? shape.name + "/" + dtype : shape.name;
        c.key = c.shape + "/seed-" + std::to_string(s);
        c.dims = shape.dims;
        c.dtype = dtype;
        c.seed = secret_seeds_[static_cast<size_t>(s)];
        std::string identity = task.id + "|" + task.reference_path + "|" + task.inputs_json + "|" + dims_text(c.dims) +
                               "|" + dtype + "|" + std::to_string(c.seed);
        std::ostringstream name;
        name << slug(task.id) << "-" << std::hex << std::hash<std::string>{}(identity) << ".pt";
        c.inputs = root_ + "/reference/inputs/" + name.str();
        c.expected = root_ + "/reference/expected/" + name.str();
        cases.push_back(std::move(c));
      }
    }
  }
  return cases;
}

std::vector<TritonExecutor::Case> TritonExecutor::cases_to_prepare(const std::vector<Case>& cases,
                                                                   const std::vector<TimingShape>& timing) {
  std::vector<Case> out = cases;
  for (const auto& shape : timing)
    for (const auto& set : shape.sets)
      if (std::none_of(out.begin(), out.end(), [&](const Case& c) { return c.expected == set.expected; }))
        out.push_back(set);
  return out;
}

std::string TritonExecutor::ahead_key(const TaskSpec& task, const std::vector<Case>& cases) {
  std::string key = task.id;
  for (const auto& c : cases) key += "|" + c.expected;
  return key;
}

void TritonExecutor::expect(const EvaluationRequest& request) noexcept {
  try {
    if (!ahead_ || request.task.reference_path.empty()) return;
    const bool timed = is_timing_stage(request.stage) && target_ == Target::cuda;
    std::vector<Case> cases = plan_cases(request, request.seeds_per_shape);
    if (cases.empty()) return;
    cases = cases_to_prepare(cases, timed ? plan_timing(request) : std::vector<TimingShape>{});
    const int64_t number = hints_++;
    std::vector<PrepareAhead::Step> steps;
    for (const auto& c : cases)
      steps.push_back([this, task = request.task, c, number] { return prepare_case_ahead(task, c, number); });
    ahead_->hint(ahead_key(request.task, cases), std::move(steps));
  } catch (const std::exception& error) {  // a hint that cannot be planned is dropped: its evaluation will say why
    if (log_) log_->write(LogLevel::debug, std::string("triton executor: a hint was dropped: ") + error.what());
  }
}
std::vector<std::thread> TritonExecutor::prestart_candidates() const {
  // launch_for runs here, in this thread, which holds reference_mutex_ (or runs while its holder waits for it)
  return pool_.prestart(pool_.capacity(), [this](int64_t slot) { return launch_for("candidate", slot); });
}

GpuLock& TritonExecutor::gpu_mutex(int64_t gpu) {
  std::lock_guard lock(gpu_mutexes_mutex_);
  return gpu_mutexes_[gpu];
}

class TritonExecutor::PlaneRelease {
 public:
  // `share`: the evaluation's share of its GPU, used for the release if it is held then. `lost` is set last
  // thing: whether the blocks went missing while the evaluation still needed them (its release finds that out
  // for a child that failed and left nothing to compare).
  PlaneRelease(TritonExecutor& executor, Plane& plane, std::shared_lock<GpuLock>& share, bool& lost)
      : executor_(executor), plane_(plane), share_(share), lost_(lost) {}
  ~PlaneRelease() {
    if (plane_.on() && plane_.generation >= 0)  // best effort: a reference worker that died took its blocks with it
      (void)executor_.reference_request({{"op", "release"}, {"evaluation", plane_.evaluation}}, "releasing an evaluation",
                                        share_.owns_lock() ? &share_ : nullptr, nullptr, &plane_);
    lost_ = plane_.lost;
  }
  PlaneRelease(const PlaneRelease&) = delete;
  PlaneRelease& operator=(const PlaneRelease&) = delete;

 private:
  TritonExecutor& executor_;
  Plane& plane_;
  std::shared_lock<GpuLock>& share_;
  bool& lost_;
};

Result<EvaluationResult> TritonExecutor::evaluate(const EvaluationRequest& request) noexcept {
  // A reference worker retires when it had to stop a torch.compile, and is replaced when it dies; either takes
  // the blocks of every evaluation it served with it. An evaluation that still needed them (its child maps
  // them; its comparison and baselines read them) would end on the harness's loss: a candidate that could not
  // open its inputs is not a candidate that failed. It is judged again from its prepare, once; the record says so.
  try {
    auto started = std::chrono::steady_clock::now();
    bool lost = false;
    Result<EvaluationResult> first = evaluate_once(request, lost);
    if (!lost) return first;
    const std::string what = first ? std::string(verdict_name(first->verdict)) + ": " + first->message
                                   : "error: " + first.status().message();
    const double first_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (log_)
      log_->write(LogLevel::warn, "triton executor: the reference worker was replaced while " + request.task.id +
                                      " was judged; judging it again (first attempt: " + what.substr(0, 200) + ")");
    Result<EvaluationResult> again = evaluate_once(request, lost);
    if (lost)
      return Status(StatusCode::unavailable, "the reference worker was replaced twice while " + request.task.id +
                                                 " was judged: its cases were lost both times (" + what + ")");
    if (!again) return again;
    boost::json::object record;
    if (auto parsed = boost::json::parse(again->record_json); parsed.is_object()) record = std::move(parsed.as_object());
    record["judged_again"] = {{"why", "the reference worker that held its cases was replaced"},
                              {"first_attempt", what},
                              {"first_attempt_seconds", first_seconds}};
    again->record_json = boost::json::serialize(record);
    return again;
  } catch (const std::exception& error) {
    return Status(StatusCode::internal, std::string("triton executor: ") + error.what());
  }
}
Result<EvaluationResult> TritonExecutor::evaluate_once(const EvaluationRequest& request, bool& cases_lost) {
  try {
    TaskInUse in_use(*this, request.task.id);
    const bool cuda = target_ == Target::cuda;
    const bool timed = is_timing_stage(request.stage) && cuda;
    PhaseClock phases;
    std::vector<Case> cases = plan_cases(request, request.seeds_per_shape);
    if (cases.empty()) return Status(StatusCode::failed_precondition, "task " + request.task.id + " has no shapes");
    std::vector<TimingShape> timing = timed ? plan_timing(request) : std::vector<TimingShape>{};
    std::vector<Case> to_prepare = cases_to_prepare(cases, timing);
    if (ahead_) ahead_->taken(ahead_key(request.task, to_prepare));  // what was not made ahead, it makes now

    // The worker first: its GPU is where the GPU data plane puts this evaluation's cases. The GPU is shared while
    // the cases are prepared and checked, and taken alone only while the child's timed calls run (it pauses for
    // them) and while a baseline not in the cache is timed; the share is never held while the evaluation waits for
    // the reference worker (lock_with_share).
    auto lease = pool_.acquire([this](int64_t slot) {
      std::lock_guard lock(reference_mutex_);  // launch_for reads the reference worker's device count
      return launch_for("candidate", slot);
    });
    if (!lease) return lease.status();
    lease.value()->evaluations += 1;
    phases.lap("worker_wait");  // an idle worker, or the start of a new one
    const int64_t gpu = lease.value()->gpu;
    Evaluation e(request, cuda, timed, std::move(lease.value()), gpu_mutex(gpu), process_holds_,
                 cuda && config_.suspend_checks);
    e.phases = phases;
    e.cases = std::move(cases);
    e.timing = std::move(timing);
    e.to_prepare = std::move(to_prepare);
    plan_plane(e);
    PlaneRelease plane_release(*this, e.plane, e.gpu.share(), cases_lost);

    if (auto decided = static_check_stage(e)) return std::move(*decided);
    if (auto decided = prepare_stage(e)) return std::move(*decided);
    run_candidate_stage(e);
    compare_checks_early_stage(e);
    timed_calls_stage(e);
    if (auto decided = child_outcome_stage(e)) return std::move(*decided);
    auto compared = compare_stage(e);
    if (!compared) return compared.status();

    std::vector<CaseLabel> labels;
    for (const auto& c : e.cases) labels.push_back({c.shape, c.dims});
    ShapesJudged judged = judge_shapes(labels, compared.value());
    e.result.shapes = std::move(judged.shapes);
    e.result.verdict = judged.verdict;
    e.result.message = std::move(judged.message);
    e.record["comparison"] = std::move(judged.comparison);
    timing_outcome_stage(e, judged.recheck);
    return finish(e);
  } catch (const std::exception& error) {
    return Status(StatusCode::internal, std::string("triton executor: ") + error.what());
  }
}

// On the GPU data plane, the blocks the reference worker keeps for this evaluation: a receive block for each
// checked case's output and each timed call's.
void TritonExecutor::plan_plane(Evaluation& e) {
  if (!e.cuda || config_.data_plane != "gpu") return;
  e.plane.evaluation = "evaluation-" + std::to_string(++evaluations_);
  e.plane.gpu = e.worker_gpu;
  if (e.request.stage != EvaluationStage::compile)
    for (size_t i = 0; i < e.cases.size(); ++i) e.plane.wanted.emplace_back("check-" + std::to_string(i), e.cases[i].expected);
  for (size_t s = 0; s < e.timing.size(); ++s)
    for (size_t i = 0; i < e.timing[s].sets.size(); ++i)
      e.plane.wanted.emplace_back("timed-" + std::to_string(s) + "-" + std::to_string(i), e.timing[s].sets[i].expected);
}

// Every verdict leaves through here: processes the candidate left behind fail a candidate that would pass (and are
// said beside any other verdict), the turns' flags join whatever else it says, and the record is written.
EvaluationResult TritonExecutor::finish(Evaluation& e) {
  EvaluationResult& result = e.result;
  if (!e.outlived.empty()) {
    e.record["outlived"] = e.outlived;
    if (result.verdict == Verdict::passed) {
      result.verdict = Verdict::runtime_error;
      result.message = e.outlived;
    } else {
      result.message += "\nalso: " + e.outlived;
    }
  }
  add_flags(result, e.idle.flags());
  result.record_json = boost::json::serialize(e.record);
  return std::move(result);
}

}  // namespace tritongym::triton_executor
