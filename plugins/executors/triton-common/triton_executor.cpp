#include "triton_executor.hpp"

#include "check_suspension.hpp"
#include "idle_hold.hpp"
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

// How much longer than the candidate's own limit the host waits for the fork server to answer.
constexpr double kHostGraceSeconds = 60.0;
constexpr double kReferenceTimeoutSeconds = 900.0;
constexpr double kStaticCheckSeconds = 60.0;  // parsing one source; far more means something is wrong

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


// A verdict that the candidate's own process reported (the child's reply, its timing report): only a failure it
// can see for itself. `passed` comes from the reference worker's compare alone, and `not_judged` from the
// interpreter alone, so a candidate that writes its own report gains nothing by it.
Verdict reported_failure(const std::string& name, bool interpreter) {
  auto verdict = verdict_from_name(name);
  if (!verdict || *verdict == Verdict::passed || (*verdict == Verdict::not_judged && !interpreter))
    return Verdict::runtime_error;
  return *verdict;
}

// What a child judged with `sandbox: best_effort` lacked, as a warning of its result ("" when it was confined).
std::string unconfined_warning(const boost::json::object& reply) {
  const auto* record = reply.if_contains("sandbox");
  const auto* confined = record && record->is_object() ? record->as_object().if_contains("confined") : nullptr;
  if (!confined || !confined->is_bool() || confined->as_bool()) return "";
  std::string missing;
  if (const auto* items = record->as_object().if_contains("missing"); items && items->is_array())
    for (const auto& item : items->as_array())
      if (item.is_string()) missing += (missing.empty() ? "" : "; ") + std::string(item.as_string());
  return "[unconfined] the candidate ran without the sandbox's full confinement (sandbox: best_effort): " + missing;
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
  capacity_ = config_.workers > 0 ? config_.workers
                                  : (target_ == Target::interpreter
                                         ? std::clamp<int64_t>(std::thread::hardware_concurrency(), 1, 4)
                                         : 1);
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
  {
    std::lock_guard lock(pool_mutex_);
    idle_.clear();  // kills the idle workers' process groups
  }
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

std::vector<std::thread> TritonExecutor::prestart_candidates(int64_t count) const {
  std::vector<std::thread> starting;
  for (int64_t i = 0; i < count; ++i) {
    int64_t slot = 0;
    {
      std::lock_guard pool(pool_mutex_);
      if (running_workers_ >= capacity_) break;
      ++running_workers_;
      slot = next_slot_++;
    }
    starting.emplace_back([this, launch = launch_for("candidate", slot)] {
      auto started = Worker::start(launch);
      std::lock_guard pool(pool_mutex_);
      if (started) idle_.push_back(std::move(started.value()));
      else --running_workers_;  // an evaluation starts one itself, and reports why it cannot
      pool_changed_.notify_one();
    });
  }
  return starting;
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
    starting_candidates_ = prestart_candidates(capacity_);
  }
  if (target_ == Target::cuda && !gpus_asked_) {
    gpus_asked_ = true;
    asking = std::thread([this] {  // joined below, while this thread still holds reference_mutex_
      std::string why_none;
      std::vector<environment::GpuInfo> gpus = environment::probe_gpus(&why_none);
      if (!gpus.empty()) {
        gpu_count_ = static_cast<int64_t>(gpus.size());
        {
          std::lock_guard pool(pool_mutex_);
          if (config_.workers == 0) capacity_ = automatic_workers(gpus, std::thread::hardware_concurrency());
        }
        starting_candidates_ = prestart_candidates(capacity_);
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
    if (config_.workers == 0 && gpu_count_ == 0) {  // automatic, without the driver's word: one per GPU
      std::lock_guard pool(pool_mutex_);
      capacity_ = gpu_count_locked();
    }
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
  {
    std::lock_guard pool(pool_mutex_);
    info.parallel_slots = capacity_;
  }
  info.reports_performance = target_ == Target::cuda;
  if (target_ == Target::interpreter) {
    info.device = "cpu (Triton interpreter)";
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

bool TritonExecutor::prepare_case_ahead(const TaskSpec& task, const Case& c, int64_t number) {
  const bool cuda = target_ == Target::cuda;
  const bool gpu_plane = cuda && config_.data_plane == "gpu";
  int64_t gpu = 0;  // on the file transport the reference worker makes cases on GPU 0
  if (gpu_plane) {
    std::lock_guard lock(reference_mutex_);
    gpu = number % std::max<int64_t>(gpu_count_locked(), 1);
  }
  // Its share of the GPU, as an evaluation's prepare takes it: never while a timing runs or waits.
  std::shared_lock share(gpu_mutex(gpu), std::defer_lock);
  double waited = 0.0;
  if (gpu_plane) {
    boost::json::array one{{{"key", c.key}, {"dims", dims_json(c.dims)}, {"dtype", c.dtype}, {"seed", c.seed},
                            {"reference", c.expected}}};
    return static_cast<bool>(reference_request({{"op", "prepare"}, {"ahead", true}, {"task", task_json(task)},
                                                {"cases", one}, {"gpu", gpu},
                                                {"memory_fraction", config_.reference_memory_fraction}},
                                               "preparing a case of " + task.id + " ahead", &share, &waited));
  }
  Plane none;
  return static_cast<bool>(prepare_references(task, {c}, none, cuda ? &share : nullptr, waited));
}

Result<boost::json::array> TritonExecutor::prepare_on_gpu(const TaskSpec& task, const std::vector<Case>& cases,
                                                          Plane& plane, std::shared_lock<GpuLock>* share,
                                                          double& waited) {
  // Every case every time: the reference worker keeps them on the GPU and only exports copies here.
  boost::json::array requested, receive;
  for (const auto& c : cases)
    requested.push_back({{"key", c.key}, {"dims", dims_json(c.dims)}, {"dtype", c.dtype}, {"seed", c.seed},
                         {"reference", c.expected}});
  for (const auto& [id, expected] : plane.wanted) receive.push_back({{"id", id}, {"reference", expected}});
  auto reply = reference_request({{"op", "prepare"}, {"task", task_json(task)}, {"cases", requested},
                                  {"gpu", plane.gpu}, {"evaluation", plane.evaluation}, {"receive", receive},
                                  {"memory_fraction", config_.reference_memory_fraction}},
                                 "preparing the cases of " + task.id, share, &waited, &plane);
  if (!reply) return reply.status();
  const auto& replies = reply->at("cases").as_array();
  if (replies.size() != cases.size())
    return Status(StatusCode::internal, "the reference worker prepared " + std::to_string(replies.size()) + " of " +
                                            std::to_string(cases.size()) + " cases of " + task.id);
  boost::json::array described;
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& entry = replies[i].as_object();
    plane.inputs[cases[i].expected] = entry.at("inputs");
    const auto* made = entry.if_contains("made");
    described.push_back({{"case", cases[i].key}, {"dims", dims_json(cases[i].dims)}, {"outputs", entry.at("outputs")},
                         {"made", made && made->is_bool() && made->as_bool()}});
  }
  for (const auto& [id, descriptor] : reply->at("receive").as_object()) plane.receive[std::string(id)] = descriptor;
  return described;
}

Result<boost::json::array> TritonExecutor::prepare_references(const TaskSpec& task, const std::vector<Case>& cases,
                                                              Plane& plane, std::shared_lock<GpuLock>* share,
                                                              double& waited) {
  if (task.reference_path.empty())
    return Status(StatusCode::failed_precondition, "task " + task.id + " has no reference.py");
  if (plane.on()) return prepare_on_gpu(task, cases, plane, share, waited);
  ReferenceWanted wanted(ahead_.get());
  auto lock = lock_reference(share, &waited);
  if (Status status = ensure_reference_worker(); !status.is_ok()) return status;
  std::set<std::string> made;
  auto described = [&] {
    boost::json::array out;
    for (const auto& c : cases)
      out.push_back({{"case", c.key}, {"dims", dims_json(c.dims)}, {"outputs", prepared_[c.expected]},
                     {"made", made.count(c.expected) > 0}});
    return out;
  };
  boost::json::array missing;
  for (const auto& c : cases) {
    if (prepared_.count(c.expected)) continue;
    made.insert(c.expected);
    missing.push_back({{"key", c.key}, {"dims", dims_json(c.dims)}, {"dtype", c.dtype}, {"seed", c.seed},
                       {"inputs", c.inputs}, {"reference", c.expected}});
  }
  if (missing.empty()) return described();
  auto reply = reference_->request({{"op", "prepare"}, {"task", task_json(task)}, {"cases", missing}},
                                   kReferenceTimeoutSeconds);
  if (!reply) {
    reference_.reset();
    return Status(StatusCode::internal, "the reference worker failed on task " + task.id + ": " + reply.status().message());
  }
  if (!reply->at("ok").as_bool())
    return Status(StatusCode::internal, "the reference of task " + task.id + " failed: " + text_of(*reply, "error"));
  const auto& replies = reply->at("cases").as_array();
  size_t next = 0;
  auto& files = task_files_[task.id];
  for (const auto& c : cases) {
    if (prepared_.count(c.expected)) continue;
    const auto* outputs = next < replies.size() ? replies[next].as_object().if_contains("outputs") : nullptr;
    prepared_[c.expected] = outputs ? *outputs : boost::json::value(boost::json::array());
    files.insert(c.inputs);
    files.insert(c.expected);
    ++next;
  }
  task_order_.remove(task.id);
  task_order_.push_back(task.id);
  evict_reference_files();
  return described();
}

void TritonExecutor::evict_reference_files() {
  for (auto it = task_order_.begin();
       task_order_.size() > static_cast<size_t>(std::max<int64_t>(config_.reference_cache_tasks, 1)) &&
       it != task_order_.end();) {
    if (tasks_in_use_[*it] > 0) {
      ++it;
      continue;
    }
    for (const auto& path : task_files_[*it]) {
      std::error_code ignored;
      fs::remove(path, ignored);
      prepared_.erase(path);
    }
    task_files_.erase(*it);
    it = task_order_.erase(it);
  }
}

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

namespace {

// The entry parameters task.yaml gives as Python numbers (an input with a `value:`), which the static checks must
// not take for tensors: `1 - beta1 ** step` on two of them is host arithmetic, not a PyTorch kernel.
boost::json::array scalar_parameters(const TaskSpec& task) {
  boost::json::array names;
  const boost::json::value inputs = task_json(task).at("inputs");  // [] when unreadable
  if (!inputs.is_array()) return names;
  for (const auto& input : inputs.as_array()) {
    if (!input.is_object()) continue;
    const auto* name = input.as_object().if_contains("name");
    if (name && name->is_string() && input.as_object().contains("value")) names.push_back(*name);
  }
  return names;
}

}  // namespace

Result<TritonExecutor::StaticCheck> TritonExecutor::static_check(const EvaluationRequest& request, Worker& worker) {
  auto reply = worker.request({{"op", "static_check"}, {"code", request.source_code},
                               {"entry", request.task.entry_function},
                               {"dtypes", boost::json::value_from(request.task.dtypes)},
                               {"scalars", scalar_parameters(request.task)}},
                              kStaticCheckSeconds);
  // The worker gone or stuck on this source: it is replaced, and the evaluation says why.
  if (!reply) return Status(reply.status().code(), "the static checks of this source failed: " + reply.status().message());
  StaticCheck out;
  if (!reply->at("ok").as_bool()) return out;  // a static check is advice: its failure never blocks an evaluation
  out.syntax_error = text_of(*reply, "syntax_error");
  for (const auto& item : reply->at("findings").as_array()) {
    const auto& finding = item.as_object();
    out.warnings.push_back("line " + std::to_string(static_cast<int64_t>(number_of(finding, "line"))) + " [" +
                           text_of(finding, "code") + "] " + text_of(finding, "message"));
  }
  return out;
}

Result<boost::json::object> TritonExecutor::compare(const std::vector<Produced>& produced, const TaskSpec& task,
                                                    Plane& plane, std::shared_lock<GpuLock>* share,
                                                    double& waited) {
  boost::json::array requested;
  for (const auto& [c, output, received, told] : produced) {
    boost::json::object entry{{"key", c.key}, {"inputs", c.inputs}, {"reference", c.expected},
                              {"output", output}, {"dtype", c.dtype}};
    if (plane.on()) {
      entry["evaluation"] = plane.evaluation;
      entry["received"] = received;
      if (const auto* changed = told.if_contains("changed_inputs")) entry["changed_inputs"] = *changed;
      if (const auto* problem = told.if_contains("output_problem")) entry["child_problem"] = *problem;
    }
    if (auto tolerance = task.tolerance.find(c.dtype); tolerance != task.tolerance.end()) {
      entry["atol"] = tolerance->second.atol;
      entry["rtol"] = tolerance->second.rtol;
    }
    requested.push_back(std::move(entry));
  }
  return reference_request({{"op", "compare"}, {"cases", requested}}, "comparing", share, &waited,
                           plane.on() ? &plane : nullptr);
}

std::unique_lock<std::mutex> TritonExecutor::lock_reference(std::shared_lock<GpuLock>* share, double* waited) {
  if (!share) return std::unique_lock(reference_mutex_);
  double ignored = 0.0;
  return lock_with_share(*share, reference_mutex_, waited ? *waited : ignored);
}

Result<boost::json::object> TritonExecutor::reference_request(boost::json::object request, const std::string& what,
                                                              std::shared_lock<GpuLock>* share, double* waited,
                                                              Plane* plane) {
  ReferenceWanted wanted(ahead_.get());
  auto lock = lock_reference(share, waited);
  if (Status status = ensure_reference_worker(); !status.is_ok()) return status;
  if (plane && plane->generation >= 0 && plane->generation != reference_generation_) {
    // Its worker retired (another evaluation's torch.compile stopped) or died since it made the blocks. They
    // were still needed unless the child had ended and a request since found them (a release never needs them).
    const bool releasing = text_of(request, "op") == "release";
    if (!releasing || !plane->verified) plane->lost = true;
    return Status(StatusCode::unavailable, "the reference worker that held the cases of " + plane->evaluation +
                                           " was replaced before " + what);
  }
  auto reply = reference_->request(request, kReferenceTimeoutSeconds);
  if (!reply) {
    reference_.reset();
    if (plane && plane->generation >= 0) plane->lost = true;  // the blocks it had made went with it
    return Status(StatusCode::internal, "the reference worker failed while " + what + ": " + reply.status().message());
  }
  if (plane) {
    if (plane->generation < 0) plane->generation = reference_generation_;
    if (plane->child_ended) plane->verified = true;
  }
  // A worker whose state can no longer be trusted (a torch.compile it had to stop) answers, then exits.
  if (const auto* retire = reply->if_contains("retire"); retire && retire->is_bool() && retire->as_bool())
    reference_.reset();
  if (!reply->at("ok").as_bool())
    return Status(StatusCode::internal, "the reference worker failed while " + what + ": " + text_of(*reply, "error"));
  return reply;
}

Result<std::unique_ptr<Worker>> TritonExecutor::acquire_worker() {
  int64_t slot = 0;
  {
    std::unique_lock lock(pool_mutex_);
    pool_changed_.wait(lock, [&] { return !idle_.empty() || running_workers_ < capacity_; });
    if (!idle_.empty()) {
      auto worker = std::move(idle_.back());
      idle_.pop_back();
      return worker;
    }
    ++running_workers_;
    slot = next_slot_++;
  }
  WorkerLaunch launch;
  {
    std::lock_guard lock(reference_mutex_);  // launch_for reads the reference worker's device count
    launch = launch_for("candidate", slot);
  }
  auto started = Worker::start(launch);
  if (!started) release_worker(nullptr, false);
  return started;
}

GpuLock& TritonExecutor::gpu_mutex(int64_t gpu) {
  std::lock_guard lock(pool_mutex_);
  return gpu_mutexes_[gpu];
}

void TritonExecutor::release_worker(std::unique_ptr<Worker> worker, bool keep) {
  std::lock_guard lock(pool_mutex_);
  if (worker && keep && worker->healthy() && worker->evaluations < config_.recycle_after) {
    idle_.push_back(std::move(worker));
  } else {
    if (worker) worker->kill();
    --running_workers_;
  }
  pool_changed_.notify_one();
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
    const bool timed = is_timing_stage(request.stage) && target_ == Target::cuda;
    TaskInUse in_use(*this, request.task.id);
    std::vector<Case> cases = plan_cases(request, request.seeds_per_shape);
    if (cases.empty()) return Status(StatusCode::failed_precondition, "task " + request.task.id + " has no shapes");
    std::vector<TimingShape> timing = timed ? plan_timing(request) : std::vector<TimingShape>{};
    std::vector<Case> to_prepare = cases_to_prepare(cases, timing);
    if (ahead_) ahead_->taken(ahead_key(request.task, to_prepare));  // what was not made ahead, it makes now
    // Where an evaluation's time goes, in its record: phase_seconds {static_check, prepare, candidate, timing
    // (the timed calls), after_timing, compare, baselines}, each beside the time it waited for its GPU or the
    // reference worker (<phase>_wait), and worker_wait (for a candidate worker, or its start).
    boost::json::object phases;
    auto clock = std::chrono::steady_clock::now();
    auto lap = [&phases, &clock](const char* phase) {
      auto now = std::chrono::steady_clock::now();
      phases[phase] = std::chrono::duration<double>(now - clock).count();
      clock = now;
    };

    // The worker first: its GPU is where the GPU data plane puts this evaluation's cases.
    auto acquired = acquire_worker();
    if (!acquired) return acquired.status();
    std::unique_ptr<Worker> worker = std::move(acquired.value());
    worker->evaluations += 1;
    lap("worker_wait");  // an idle worker, or the start of a new one
    // The GPU is shared while the cases are prepared and checked, and taken alone only while the child's timed
    // calls run (it pauses for it) and while a baseline not in the cache is timed. The share is never held while
    // the evaluation waits for the reference worker (lock_with_share): a timing need not wait for an evaluation
    // that is itself waiting. On the file transport the reference worker computes, compares and times
    // baselines on GPU 0, which it locks as well when the worker's GPU is another.
    const int64_t gpu = worker->gpu;
    const bool cuda = target_ == Target::cuda;
    std::shared_lock gpu_shared(gpu_mutex(gpu), std::defer_lock);
    std::unique_lock gpu_exclusive(gpu_mutex(gpu), std::defer_lock);
    // The share a reference request takes: none off the GPU, or while the GPU is this evaluation's alone.
    auto sharing = [&]() -> std::shared_lock<GpuLock>* { return cuda && !gpu_exclusive.owns_lock() ? &gpu_shared : nullptr; };
    // Moves `waited` seconds of `phase` to `wait_phase`.
    auto set_apart = [&phases](const char* phase, const char* wait_phase, double waited) {
      phases[phase] = phases[phase].as_double() - waited;
      const auto* before = phases.if_contains(wait_phase);
      phases[wait_phase] = (before ? before->as_double() : 0.0) + waited;
    };
    Plane plane;
    if (cuda && config_.data_plane == "gpu") {
      plane.evaluation = "evaluation-" + std::to_string(++evaluations_);
      plane.gpu = gpu;
      if (request.stage != EvaluationStage::compile)
        for (size_t i = 0; i < cases.size(); ++i) plane.wanted.emplace_back("check-" + std::to_string(i), cases[i].expected);
      for (size_t s = 0; s < timing.size(); ++s)
        for (size_t i = 0; i < timing[s].sets.size(); ++i)
          plane.wanted.emplace_back("timed-" + std::to_string(s) + "-" + std::to_string(i), timing[s].sets[i].expected);
    }
    PlaneRelease plane_release(*this, plane, gpu_shared, cases_lost);
    // The static checks read the source only: no GPU, and no reference worker. A source that does not compile
    // is judged here, as the child's import would judge it, before any case is made or any child forked.
    std::vector<std::string> warnings;
    auto checked_source = static_check(request, *worker);
    if (!checked_source) {
      release_worker(std::move(worker), false);
      return checked_source.status();
    }
    if (request.stage != EvaluationStage::compile) warnings = std::move(checked_source->warnings);
    lap("static_check");
    // What every record of this evaluation starts with.
    auto record_start = [&] {
      boost::json::object record{{"executor", cuda ? "triton-cuda" : "triton-interpreter"},
                                 {"stage", stage_name(request.stage)}, {"worker", worker->hello()}};
      if (cuda) record["data_plane"] = plane.on() ? "gpu" : "files";
      return record;
    };
    if (!checked_source->syntax_error.empty()) {
      boost::json::object record = record_start();
      record["phase_seconds"] = phases;
      record["not_run"] = "the source does not compile: judged by the static checks' compile";
      release_worker(std::move(worker), true);
      EvaluationResult result;
      result.verdict = Verdict::compile_error;
      result.message = checked_source->syntax_error;
      result.record_json = boost::json::serialize(record);
      return result;
    }
    std::shared_lock reference_gpu(gpu_mutex(0), std::defer_lock);
    if (cuda && !plane.on() && gpu != 0) reference_gpu.lock();
    lap("prepare_wait");
    double waited = 0.0;
    auto prepared = prepare_references(request.task, to_prepare, plane, sharing(), waited);
    lap("prepare");
    set_apart("prepare", "prepare_wait", waited);
    if (reference_gpu.owns_lock()) reference_gpu.unlock();
    if (!prepared) {
      release_worker(std::move(worker), true);
      return prepared.status();
    }
    // The child starts with the share prepare_references took (on a GPU).

    boost::json::array run_cases;
    for (size_t i = 0; i < cases.size(); ++i) {
      boost::json::object entry{{"key", cases[i].key}};
      entry["inputs"] = plane.on() ? plane.inputs.at(cases[i].expected) : boost::json::value(cases[i].inputs);
      if (request.stage != EvaluationStage::compile)
        entry["output"] = plane.on() ? plane.receive.at("check-" + std::to_string(i))
                                     : boost::json::value("out-" + std::to_string(i) + ".pt");
      run_cases.push_back(std::move(entry));
    }
    boost::json::object run{{"op", "run"},           {"stage", stage_name(request.stage)},
                            {"code", request.source_code}, {"entry", request.task.entry_function},
                            {"cases", run_cases},    {"timeout_s", request.timeout_s},
                            {"keep_folder", config_.keep_folders}, {"sandbox", config_.sandbox}};
    if (!request.required_kernel_frontend.empty())  // the DSL rule, checked on the kernels that ran (kernel_frontends.py)
      run["kernel_frontend"] = request.required_kernel_frontend;
    if (timed) {
      run["timing"] = timing_plan_json(request.task, timing, plane);
      run["pause_before_timing"] = true;
    }
    if (cuda)  // how the candidate's autotuners benchmark (autotune_bench.py); alone only in a timed run
      run["autotune"] = {{"warmup_ms", config_.autotune_warmup_ms}, {"rep_ms", config_.autotune_rep_ms},
                         {"alone", config_.autotune_alone}};
    auto reply = worker->request(run, request.timeout_s + kHostGraceSeconds);
    // A timed child hands its share of the GPU back while Triton compiles, and asks for it again after
    // (gpu_turns.py): another evaluation's timing need not wait for a compile. The child's word is not
    // trusted to keep count: a share is released only if held, and taken only if not. Nor is its word "idle"
    // trusted: the child is held through the driver before its share is released (IdleHold), until it has
    // its share again. Once the child is known (it names itself in these events), its share is suspendable:
    // another evaluation's timing holds it rather than waits for its checks to end (CheckSuspension).
    // While its autotuner benchmarks a new key it has the GPU alone, as a timing does (autotune_bench.py).
    double share_wait = 0.0;
    IdleHold idle(process_holds_);
    CheckSuspension checking(gpu_mutex(gpu), process_holds_, cuda && config_.suspend_checks);
    int64_t tunings_alone = 0;
    double tuning_alone_s = 0.0;
    auto tuning_since = std::chrono::steady_clock::now();
    // From the GPU alone back to a share, without letting go of it in between.
    auto alone_to_share = [&] {
      gpu_exclusive.release();  // leaves it without its mutex: given back below
      gpu_mutex(gpu).unlock_and_lock_shared();
      gpu_exclusive = std::unique_lock(gpu_mutex(gpu), std::defer_lock);
      gpu_shared = std::shared_lock(gpu_mutex(gpu), std::adopt_lock);
    };
    // The same at the end of an autotuner's turn alone, which the record counts.
    auto to_share = [&] {
      if (!gpu_exclusive.owns_lock()) return;
      alone_to_share();
      tuning_alone_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - tuning_since).count();
    };
    for (std::string event = reply ? text_of(*reply, "event") : "";
         event == "gpu_idle" || event == "gpu_wanted" || event == "gpu_alone_wanted" || event == "gpu_alone_done";
         event = reply ? text_of(*reply, "event") : "") {
      const int pid = static_cast<int>(number_of(*reply, "pid"));
      const std::string held_file = worker->root + "/holds/" + std::to_string(pid);
      if (event == "gpu_idle" && gpu_shared.owns_lock()) {
        checking.unmark();
        if (idle.hold(pid, request.timeout_s)) gpu_shared.unlock();
      }
      if (event == "gpu_wanted" && !gpu_exclusive.owns_lock()) {
        if (!gpu_shared.owns_lock()) {
          auto asked = std::chrono::steady_clock::now();
          gpu_shared.lock();
          share_wait += std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
        }
        idle.release();
        checking.mark(pid, held_file);
      }
      if (event == "gpu_alone_wanted" && cuda && !gpu_exclusive.owns_lock()) {
        checking.unmark();  // alone, it is never suspended
        if (gpu_shared.owns_lock()) gpu_shared.unlock();
        auto asked = std::chrono::steady_clock::now();
        gpu_exclusive.lock();
        tuning_since = std::chrono::steady_clock::now();
        share_wait += std::chrono::duration<double>(tuning_since - asked).count();
        idle.release();
        ++tunings_alone;
      }
      if (event == "gpu_alone_done" && gpu_exclusive.owns_lock()) {
        to_share();
        checking.mark(pid, held_file);
      }
      reply = worker->request({{"op", "continue"}}, request.timeout_s + kHostGraceSeconds);
    }
    checking.unmark();  // checked: what comes next (CUPTI, the timed calls) is never suspended
    lap("candidate");
    phases["candidate"] = phases["candidate"].as_double() - share_wait;
    phases["candidate_share_wait"] = share_wait;
    // What the child left of each case to compare: its output (a file in its folder, or a block of the GPU data
    // plane) and what it said of the case.
    auto checks_produced = [&cases](const std::string& folder, const boost::json::array& told) {
      std::vector<Produced> produced;
      for (size_t i = 0; i < cases.size(); ++i) {
        Produced p{cases[i], folder + "/out-" + std::to_string(i) + ".pt", "check-" + std::to_string(i), {}};
        if (i < told.size() && told[i].is_object()) p.told = told[i].as_object();
        produced.push_back(std::move(p));
      }
      return produced;
    };
    // Has the reference worker compare `produced`, timed as `phase` beside the wait for it (`wait_phase`). On the
    // file transport it compares on GPU 0, which it takes its turn at when the worker's GPU is another.
    auto compare_as = [&](const std::vector<Produced>& produced, const char* wait_phase, const char* phase) {
      if (cuda && !plane.on() && gpu != 0) reference_gpu.lock();
      lap(wait_phase);
      waited = 0.0;
      auto compared = compare(produced, request.task, plane, sharing(), waited);
      if (reference_gpu.owns_lock()) reference_gpu.unlock();
      lap(phase);
      set_apart(phase, wait_phase, waited);
      return compared;
    };
    // A candidate is timed only if it passed its checks (as bench/cold_harness.py does): they are compared while
    // it waits to be timed, from what it said of its cases. A child that said nothing of them is timed first and
    // compared after, as every candidate was before 2026-12-02 (compare_before_timing: false).
    std::optional<Result<boost::json::object>> checked;
    std::string not_timed;  // why the candidate was not timed, decided here
    if (reply && text_of(*reply, "event") == "ready_to_time" && request.stage != EvaluationStage::compile &&
        config_.compare_before_timing) {
      const auto* told = reply->if_contains("cases");
      if (told && told->is_array() && told->as_array().size() == cases.size()) {
        for (const auto& c : told->as_array())
          if (c.is_object() && text_of(c.as_object(), "status") == "bad_output") not_timed = "an output failed its checks";
        if (not_timed.empty()) {
          checked = compare_as(checks_produced(text_of(*reply, "folder"), told->as_array()), "checks_compare_wait",
                               "checks_compare");
          if (!checked->has_value()) {
            not_timed = "its checks could not be compared";
          } else {
            for (const auto& c : checked->value().at("cases").as_array())
              if (!c.as_object().at("passed").as_bool()) not_timed = "it failed its checks";
          }
        }
      }
      if (!not_timed.empty()) reply = worker->request({{"op", "skip"}}, request.timeout_s + kHostGraceSeconds);
    }
    DeviceSampling device;  // what the GPU's sampler saw in the candidate's turn alone
    if (reply && text_of(*reply, "event") == "ready_to_time") {
      // Checked and idle: now the GPU alone for the timed calls. The child says when they are done
      // (`timed`); its determinism check and the hand-over of its outputs share the GPU again.
      if (gpu_exclusive.owns_lock()) {  // still alone from its autotuner: it keeps the GPU for the timing
        tuning_alone_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - tuning_since).count();
      } else {
        if (gpu_shared.owns_lock()) gpu_shared.unlock();
        gpu_exclusive.lock();
      }
      idle.release();  // a child that said "idle" and then "ready" (out of turn) is let go only now
      lap("timing_wait");
      // The host's window on the device's counters (report_check.hpp): opened before the child is let go, closed
      // when it says its timed calls are done and before it goes on (it waits for the answer to its "timed").
      bool sampling = false;
      if (config_.report_check) {
        auto opening = std::chrono::steady_clock::now();
        auto opened = samplers().open_window(gpu, visible_id(gpu));
        phases["timing_sampler_open"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - opening).count();
        sampling = opened.problem.empty();
        device.problem = sampling ? "the candidate's turn alone did not end the way the harness ends it" : opened.problem;
        device.restarted_after = std::move(opened.restarted_after);
        device.lost = opened.failed;
      }
      reply = worker->request({{"op", "time"}}, request.timeout_s + kHostGraceSeconds);
      if (sampling) {
        auto closing = std::chrono::steady_clock::now();
        auto closed = samplers().close_window(gpu);
        phases["timing_sampler_close"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - closing).count();
        if (!closed) {
          device.problem = closed.status().message();
          device.lost = true;
        } else if (reply && text_of(*reply, "event") == "timed") {
          device.sampled = std::move(closed.value());
        }
      }
      if (reply && text_of(*reply, "event") == "timed") {
        alone_to_share();  // the baselines may take it alone again below
        lap("timing");
        reply = worker->request({{"op", "continue"}}, request.timeout_s + kHostGraceSeconds);
        lap("after_timing");
      } else {
        lap("timing");
      }
    } else {
      to_share();  // a child that tuned and never said so: the run has ended
    }

    idle.release();  // the run has ended
    plane.child_ended = true;
    EvaluationResult result;
    result.warnings = warnings;
    boost::json::object record = record_start();
    if (!warnings.empty()) record["warnings"] = boost::json::value_from(warnings);
    if (timed) {
      boost::json::object turns = idle.record();
      for (auto& [key, value] : checking.record()) turns[key] = value;
      turns["tunings_alone"] = tunings_alone;
      turns["tuning_alone_s"] = tuning_alone_s;
      record["turns"] = std::move(turns);
    }
    record["phase_seconds"] = phases;
    if (!not_timed.empty()) record["timing_skipped"] = not_timed;
    // How many of its cases the reference worker made for it; the rest it found made, by an earlier evaluation
    // or ahead of this one (expect).
    int64_t made = 0;
    for (const auto& entry : prepared.value())
      if (const auto* flag = entry.as_object().if_contains("made"); flag && flag->is_bool() && flag->as_bool()) ++made;
    record["cases_prepared"] = {{"made", made}, {"found", static_cast<int64_t>(prepared->size()) - made}};
    if (request.stage == EvaluationStage::final_score) record["expected_outputs"] = std::move(prepared.value());
    // Processes the candidate left behind (the fork server killed them): a failure of a candidate that would
    // pass, and said beside any other verdict.
    std::string outlived;
    // Every verdict leaves through here: the turns' flags join whatever else it says, and the record is written.
    auto finished = [&]() -> EvaluationResult {
      if (!outlived.empty()) {
        record["outlived"] = outlived;
        if (result.verdict == Verdict::passed) {
          result.verdict = Verdict::runtime_error;
          result.message = outlived;
        } else {
          result.message += "\nalso: " + outlived;
        }
      }
      add_flags(result, idle.flags());
      result.record_json = boost::json::serialize(record);
      return std::move(result);
    };
    if (!reply) {
      // The fork server itself hung or died: the candidate took the whole worker down.
      bool hung = reply.status().code() == StatusCode::deadline_exceeded;
      release_worker(std::move(worker), false);
      result.verdict = hung ? Verdict::timeout : Verdict::crash;
      result.message = hung ? "the candidate did not finish in time and its worker was replaced"
                            : "the candidate crashed its worker: " + reply.status().message();
      record["error"] = reply.status().message();
      return finished();
    }
    if (!reply->at("ok").as_bool()) {
      release_worker(std::move(worker), false);
      return Status(StatusCode::internal, "the candidate worker failed: " + text_of(*reply, "error"));
    }
    result.stdout_text = text_of(*reply, "stdout");
    result.stderr_text = text_of(*reply, "stderr");
    result.wall_seconds = number_of(*reply, "wall_seconds");
    if (target_ == Target::cuda) result.gpu_seconds = result.wall_seconds;  // the child held a GPU throughout
    for (const char* key : {"kernels", "kernel_frontends", "sandbox", "cases", "compiles_off_gpu", "autotune_compiled",
                            "autotune_choices", "autotune_benchmarks"})
      if (const auto* value = reply->if_contains(key)) record[key] = *value;
    if (std::string unconfined = unconfined_warning(*reply); !unconfined.empty()) result.warnings.push_back(unconfined);
    // Where the candidate phase's time went inside the child (import, loading inputs, running, saving outputs,
    // and the timing stage's parts).
    if (const auto* value = reply->if_contains("phases")) record["candidate_phases"] = *value;
    std::string verdict = text_of(*reply, "verdict");
    std::string folder = text_of(*reply, "folder");
    outlived = text_of(*reply, "outlived");

    if (!verdict.empty()) {
      release_worker(std::move(worker), true);
      result.verdict = reported_failure(verdict, target_ == Target::interpreter);
      result.message = text_of(*reply, "message");
      return finished();
    }
    // The candidate ran every case. An output that is not a plain, fresh tensor fails here.
    std::string bad_output;
    const auto& case_replies = reply->at("cases").as_array();
    for (const auto& c : case_replies) {
      const auto& entry = c.as_object();
      if (text_of(entry, "status") == "bad_output" && bad_output.empty())
        bad_output = text_of(entry, "key") + ": " + text_of(entry, "error");
    }
    if (request.stage == EvaluationStage::compile || !bad_output.empty()) {
      release_worker(std::move(worker), true);
      result.verdict = bad_output.empty() ? Verdict::passed : Verdict::wrong_answer;
      result.message = bad_output.empty() ? "compiled and ran on one shape (not checked for correctness)" : bad_output;
      return finished();
    }
    // What to compare: every case (unless compared before timing), then (timed) the outputs of the timed calls on
    // every input set.
    boost::json::object timing_report;
    if (const auto* value = reply->if_contains("timing"); value && value->is_object()) timing_report = value->as_object();
    const bool timing_ran = timed && not_timed.empty() && !timing_report.contains("error");
    std::vector<Produced> produced;
    if (!checked) produced = checks_produced(folder, case_replies);
    if (timing_ran) {
      const auto* reported = timing_report.if_contains("shapes");
      for (size_t s = 0; s < timing.size(); ++s) {
        // What the child said of each re-checked set (the GPU data plane), in plan order.
        const boost::json::array* rechecks = nullptr;
        if (reported && reported->is_array() && s < reported->as_array().size())
          if (const auto* found = reported->as_array()[s].as_object().if_contains("rechecks"); found && found->is_array())
            rechecks = &found->as_array();
        for (size_t i = 0; i < timing[s].sets.size(); ++i) {
          std::string timed_id = "timed-" + std::to_string(s) + "-" + std::to_string(i);
          Produced p{timing[s].sets[i], folder + "/" + timed_id + ".pt", timed_id, {}};
          if (rechecks)
            for (const auto& told : *rechecks)
              if (told.is_object() && number_of(told.as_object(), "set") == static_cast<double>(i)) p.told = told.as_object();
          produced.push_back(std::move(p));
        }
      }
    }
    clock = std::chrono::steady_clock::now();
    Result<boost::json::object> compared = boost::json::object{{"cases", boost::json::array{}}};
    if (!produced.empty()) compared = compare_as(produced, "compare_wait", "compare");
    record["phase_seconds"] = phases;
    release_worker(std::move(worker), true);  // only now: the next run may remove the output folder
    if (checked && !checked->has_value()) return checked->status();
    if (!compared) return compared.status();
    if (checked) {  // the checks first, as if compared with the timed sets
      auto& all = checked->value().at("cases").as_array();
      for (auto& c : compared->at("cases").as_array()) all.push_back(std::move(c));
      compared = std::move(checked->value());
    }

    // Per shape: the worst case over its seeds (and dtypes, when the shape label includes one).
    std::map<std::string, ShapeOutcome> by_shape;
    std::vector<std::string> order;
    const auto& compared_cases = compared->at("cases").as_array();
    for (size_t i = 0; i < cases.size() && i < compared_cases.size(); ++i) {
      const auto& entry = compared_cases[i].as_object();
      auto [slot, inserted] = by_shape.try_emplace(cases[i].shape);
      ShapeOutcome& shape = slot->second;
      if (inserted) {
        order.push_back(cases[i].shape);
        shape.shape = cases[i].shape;
        shape.passed = true;
      }
      bool passed = entry.at("passed").as_bool();
      shape.max_abs_error = std::max(shape.max_abs_error, number_of(entry, "max_abs_error"));
      shape.max_rel_error = std::max(shape.max_rel_error, number_of(entry, "max_rel_error"));
      if (!passed && shape.passed) {
        std::string problem = text_of(entry, "problem");
        shape.first_mismatch = "(" + dims_text(cases[i].dims) + ") " +
                               (problem.empty() ? text_of(entry, "first_mismatch") : problem);
      }
      shape.passed = shape.passed && passed;
    }
    boost::json::array comparison(compared_cases.begin(),
                                  compared_cases.begin() + static_cast<std::ptrdiff_t>(std::min(cases.size(), compared_cases.size())));
    boost::json::array recheck(compared_cases.begin() + static_cast<std::ptrdiff_t>(std::min(cases.size(), compared_cases.size())),
                               compared_cases.end());
    record["comparison"] = std::move(comparison);
    size_t failing = 0;
    double worst_abs = 0.0;
    std::string details;
    for (const auto& name : order) {
      const ShapeOutcome& shape = by_shape[name];
      result.shapes.push_back(shape);
      worst_abs = std::max(worst_abs, shape.max_abs_error);
      if (!shape.passed) {
        ++failing;
        details += "\n  " + name + " " + shape.first_mismatch;
      }
    }
    result.verdict = failing == 0 ? Verdict::passed : Verdict::wrong_answer;
    std::ostringstream message;
    if (failing == 0) {
      message << "passed " << order.size() << " shape(s) x " << cases.size() / std::max<size_t>(order.size(), 1)
              << " random input set(s); max abs error " << worst_abs
              << (worst_abs <= 0.01 ? " (within TritonGym's 0.01)" : " (above TritonGym's 0.01)");
    } else {
      message << "wrong answer on " << failing << " of " << order.size() << " shape(s):" << details;
    }
    result.message = message.str();

    if (is_timing_stage(request.stage) && !timed) {
      result.message += "\nnot timed: the Triton interpreter's latencies are not performance numbers "
                        "(timing needs triton-cuda and a GPU)";
    } else if (!not_timed.empty()) {
      result.message += "\nnot timed: " + not_timed;
    } else if (timed && !timing_ran) {
      std::string why = text_of(timing_report, "error");
      record["timing_error"] = why;
      if (std::string raised = text_of(timing_report, "verdict"); !raised.empty() && result.verdict == Verdict::passed) {
        result.verdict = reported_failure(raised, false);  // correct on the checks, then failed while being timed
        result.message = why;
      } else {
        result.message += "\nnot timed: " + why;
      }
    } else if (timed && result.verdict == Verdict::passed) {
      // Cached baselines are looked up under the GPU's share; measuring the ceilings or timing a baseline
      // takes the GPU alone (the GPU data plane times them on this worker's GPU, the files plane on GPU 0).
      clock = std::chrono::steady_clock::now();
      waited = 0.0;
      std::unique_lock baseline_gpu(gpu_mutex(0), std::defer_lock);
      auto alone = [&] {
        auto asked = std::chrono::steady_clock::now();
        if (!plane.on() && gpu != 0) {
          if (!baseline_gpu.owns_lock()) baseline_gpu.lock();
        } else if (!gpu_exclusive.owns_lock()) {
          if (gpu_shared.owns_lock()) gpu_shared.unlock();
          gpu_exclusive.lock();
        }
        waited += std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
      };
      if (!have_ceilings()) alone();
      auto ceilings = machine_ceilings(plane.on() ? gpu : 0);
      boost::json::array measured;
      if (ceilings) {
        auto found = baselines(request.task, timing, *ceilings, plane, /*cached_only=*/true, sharing(), &waited);
        if (!found && found.status().code() == StatusCode::not_found) {
          alone();
          found = baselines(request.task, timing, *ceilings, plane, /*cached_only=*/false);
        }
        if (found) measured = std::move(found.value());
        else record["baseline_error"] = found.status().message();
      } else {
        record["baseline_error"] = ceilings.status().message();
      }
      lap("baselines");
      set_apart("baselines", "baselines_wait", waited);
      record["phase_seconds"] = phases;
      apply_timing(timing, timing_report, recheck, measured, device, result, record);
    }
    return finished();
  } catch (const std::exception& error) {
    return Status(StatusCode::internal, std::string("triton executor: ") + error.what());
  }
}

}  // namespace tritongym::triton_executor
