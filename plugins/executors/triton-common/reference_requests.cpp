// The reference service's requests: the reference worker makes (and caches) each case's inputs and expected
// outputs, compares a candidate's outputs with them, and frees an evaluation's blocks on the GPU data plane.
// One request at a time (reference_mutex_); a request that runs on an evaluation's GPU takes its share.
#include <filesystem>

#include "evaluation.hpp"
#include "worker_json.hpp"

namespace tritongym::triton_executor {
namespace {

namespace fs = std::filesystem;

constexpr double kReferenceTimeoutSeconds = 900.0;

}  // namespace

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

// The prepare stage: every case and timed set this evaluation needs, made (or found made) by the reference worker.
// On the file transport the reference worker makes them on GPU 0, which it takes its turn at when the worker's
// GPU is another; on the GPU data plane the evaluation's share of its own GPU comes with the request, and the
// child starts with it.
TritonExecutor::Decided TritonExecutor::prepare_stage(Evaluation& e) {
  std::shared_lock reference_gpu(gpu_mutex(0), std::defer_lock);
  if (e.cuda && !e.plane.on() && e.worker_gpu != 0) reference_gpu.lock();
  e.phases.lap("prepare_wait");
  double waited = 0.0;
  auto prepared = prepare_references(e.request.task, e.to_prepare, e.plane, e.gpu.share_for_requests(e.cuda), waited);
  e.phases.lap("prepare");
  e.phases.set_apart("prepare", "prepare_wait", waited);
  if (reference_gpu.owns_lock()) reference_gpu.unlock();
  if (!prepared) {
    e.worker.give_back(true);
    return Result<EvaluationResult>(prepared.status());
  }
  e.prepared = std::move(prepared.value());
  return std::nullopt;
}

}  // namespace tritongym::triton_executor
