// The timing stages of the Triton executor (benchmark, profile, final_score on triton-cuda):
// which input sets the timed calls rotate over, the machine's ceilings and the baselines from the
// reference worker, and folding the candidate's timing report into the result (docs/timing.md).
#include <cstdlib>
#include <sstream>

#include "report_check.hpp"
#include "triton_executor.hpp"
#include "verdict.hpp"
#include "worker_json.hpp"

namespace tritongym::triton_executor {
namespace {

std::string format_us(double us) {
  std::ostringstream out;
  out.precision(us < 10 ? 2 : (us < 1000 ? 1 : 0));
  out << std::fixed << us << " us";
  return out.str();
}

std::vector<std::string> strings_of(const boost::json::object& object, const char* key) {
  std::vector<std::string> out;
  if (const auto* value = object.if_contains(key); value && value->is_array())
    for (const auto& item : value->as_array())
      if (item.is_string()) out.emplace_back(item.as_string());
  return out;
}

}  // namespace

bool TritonExecutor::is_timing_stage(EvaluationStage stage) {
  return stage == EvaluationStage::benchmark || stage == EvaluationStage::profile ||
         stage == EvaluationStage::final_score;
}

std::string TritonExecutor::cache_dir() const {
  if (!config_.cache_dir.empty()) return config_.cache_dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/tritongym";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/tritongym";
  return root_ + "/cache";
}

std::vector<TritonExecutor::TimingShape> TritonExecutor::plan_timing(const EvaluationRequest& request) const {
  // The same planning as the correctness cases, with as many seeds as input sets: every timed call's
  // inputs are a prepared case, so its output can be re-checked afterwards.
  std::vector<Case> sets = plan_cases(request, config_.timing_input_sets);
  std::vector<TimingShape> shapes;
  for (auto& set : sets) {
    if (shapes.empty() || shapes.back().shape != set.shape) {
      shapes.push_back({set.shape, set.dims, set.dtype, {}});
    }
    shapes.back().sets.push_back(std::move(set));
  }
  return shapes;
}

boost::json::object TritonExecutor::timing_plan_json(const TaskSpec& task, const std::vector<TimingShape>& shapes,
                                                     const Plane& plane) const {
  boost::json::array planned;
  for (size_t s = 0; s < shapes.size(); ++s) {
    boost::json::array sets, recheck;
    for (size_t i = 0; i < shapes[s].sets.size(); ++i) {
      // Files: the set's inputs file, and the name of the file the timed call's outputs go to. The GPU data
      // plane: descriptors of the exported inputs and of the receive block.
      std::string timed = "timed-" + std::to_string(s) + "-" + std::to_string(i);
      if (plane.on()) {
        sets.push_back(plane.inputs.at(shapes[s].sets[i].expected));
        recheck.push_back({{"set", i}, {"output", plane.receive.at(timed)}});
      } else {
        sets.push_back(boost::json::value(shapes[s].sets[i].inputs));
        recheck.push_back({{"set", i}, {"output", timed + ".pt"}});
      }
    }
    planned.push_back({{"key", shapes[s].shape}, {"sets", sets}, {"recheck", recheck}});
  }
  // The determinism check compares two calls within the task's tolerance (of its first dtype).
  boost::json::object tolerance{{"dtype", shapes.empty() ? "float32" : shapes.front().dtype}};
  if (!shapes.empty())
    if (auto found = task.tolerance.find(shapes.front().dtype); found != task.tolerance.end())
      tolerance["atol"] = found->second.atol, tolerance["rtol"] = found->second.rtol;
  return {{"l2_bytes", 0},  // 0: the child reads the device's own L2 size
          {"tolerance", tolerance},
          {"cold_l2", config_.cold_l2},
          {"target_seconds", config_.timing_seconds},
          {"allowed_library_kernels", boost::json::value_from(task.allowed_library_kernels)},
          {"shapes", planned}};
}

Result<boost::json::object> TritonExecutor::machine_ceilings(int64_t gpu) {
  {
    std::lock_guard lock(reference_mutex_);
    if (ceilings_) return *ceilings_;
  }
  auto reply = reference_request({{"op", "ceilings"}, {"cache_dir", cache_dir()}, {"gpu", gpu}},
                                 "measuring the machine's ceilings");
  if (!reply) return reply.status();
  std::lock_guard lock(reference_mutex_);
  ceilings_ = reply->at("ceilings").as_object();
  return *ceilings_;
}

bool TritonExecutor::have_ceilings() {
  std::lock_guard lock(reference_mutex_);
  return ceilings_.has_value();
}

Result<boost::json::array> TritonExecutor::baselines(const TaskSpec& task, const std::vector<TimingShape>& shapes,
                                                     const boost::json::object& ceilings, Plane& plane,
                                                     bool cached_only, std::shared_lock<GpuLock>* share,
                                                     double* waited) {
  boost::json::array requested;
  for (const auto& shape : shapes) {
    boost::json::array sets;  // files: input files; the GPU data plane: the cases' keys in its store
    for (const auto& set : shape.sets) sets.push_back(boost::json::value(plane.on() ? set.expected : set.inputs));
    requested.push_back({{"key", shape.shape}, {"dims", dims_json(shape.dims)}, {"dtype", shape.dtype}, {"sets", sets}});
  }
  boost::json::array which(config_.baselines.begin(), config_.baselines.end());
  boost::json::object request{{"op", "baselines"}, {"task", task_json(task)},     {"shapes", requested},
                              {"ceilings", ceilings}, {"cold_l2", config_.cold_l2}, {"cache_dir", cache_dir()},
                              {"baselines", which}, {"compile_seconds", config_.compile_seconds}};
  if (plane.on()) request["gpu"] = plane.gpu;
  if (cached_only) request["cached_only"] = true;
  auto reply = reference_request(
      request, (cached_only ? "looking up the baselines of " : "timing the baselines of ") + task.id, share, waited,
      plane.on() ? &plane : nullptr);
  if (!reply) return reply.status();
  if (const auto* missing = reply->if_contains("missing"))
    return Status(StatusCode::not_found, "no cached baselines for shape " + boost::json::serialize(*missing));
  return reply->at("shapes").as_array();
}

void TritonExecutor::apply_timing(const std::vector<TimingShape>& shapes,
                                  const boost::json::object& report, const boost::json::array& recheck,
                                  const boost::json::array& baselines, const DeviceSampling& device,
                                  EvaluationResult& result, boost::json::object& record) const {
  std::vector<std::string> flags = strings_of(report, "flags");
  // The report against itself, and against what the device counted in the candidate's turn alone.
  std::string problem;
  const std::vector<ReportItem> items = report_items(report, problem);
  boost::json::object checked{{"checked", false}};
  if (!problem.empty()) {
    flags.push_back("report: " + problem + "; the harness always sends one");
  } else {
    for (auto& flag : check_report_against_itself(report, items)) flags.push_back(std::move(flag));
    if (device.sampled) {
      ReportCheckLimits limits;
      limits.relative = config_.report_check_margin;
      limits.item_overhead_ns = static_cast<int64_t>(config_.report_check_item_overhead_us * 1000.0);
      ReportCheck against = check_report_against_device(items, device_window(*device.sampled), limits);
      for (auto& flag : against.flags) flags.push_back(std::move(flag));
      checked = std::move(against.record);
      boost::json::object cost;  // what closing the window cost the sampler, and emptying its image before it
      for (const char* key : {"stop_ms", "decode_ms", "read_ms", "prepare_ms"})
        if (const auto* value = device.sampled->if_contains(key)) cost[key] = *value;
      checked["sampler"] = std::move(cost);
    } else {
      checked["reason"] = device.problem;
      // Fail closed: a candidate's own thread can kill or stop the sampler, and a check skipped flags nothing.
      if (device.lost)
        flags.push_back("report: its timing report could not be checked against the GPU's counters (" +
                        device.problem + "); a check lost to the GPU's sampler counts against the turn it was lost in");
    }
    if (!device.restarted_after.empty()) checked["sampler_restarted_after"] = device.restarted_after;
  }
  // Every timed call's output on every input set, checked by the trusted worker.
  size_t next = 0;
  for (const auto& shape : shapes) {
    for (size_t i = 0; i < shape.sets.size(); ++i, ++next) {
      if (next >= recheck.size()) break;
      const auto& entry = recheck[next].as_object();
      if (const auto* passed = entry.if_contains("passed"); passed && passed->is_bool() && !passed->as_bool()) {
        std::string problem = text_of(entry, "problem");
        flags.push_back("re-check: a timed call's output on " + shape.shape + " input set " + std::to_string(i) +
                        " is wrong (" + (problem.empty() ? text_of(entry, "first_mismatch") : problem) +
                        "); results must not depend on earlier calls");
      }
    }
  }
  std::map<std::string, boost::json::object> measured;
  for (const auto& item : report.at("shapes").as_array()) measured[text_of(item.as_object(), "key")] = item.as_object();
  std::map<std::string, boost::json::object> baseline;
  for (const auto& item : baselines) baseline[text_of(item.as_object(), "key")] = item.as_object();

  std::ostringstream lines;
  for (auto& outcome : result.shapes) {
    auto found = measured.find(outcome.shape);
    if (found == measured.end()) continue;
    const auto& times = found->second;
    ShapeTiming timing;
    timing.median_us = number_of(times, "median_us");
    timing.spread_pct = number_of(times, "spread_pct");
    timing.repetitions = static_cast<int64_t>(number_of(times, "repetitions"));
    timing.event_median_us = number_of(times, "event_median_us");
    timing.wall_median_us = number_of(times, "wall_median_us");
    timing.cold_l2 = config_.cold_l2;
    timing.library_fraction = number_of(times, "library_fraction");
    for (const auto& flag : strings_of(times, "flags")) flags.push_back(outcome.shape + ": " + flag);
    if (auto b = baseline.find(outcome.shape); b != baseline.end()) {
      timing.eager_us = optional_number(b->second, "eager_us");
      timing.compile_us = optional_number(b->second, "compile_us");
      timing.oracle_us = optional_number(b->second, "oracle_us");
      timing.triton_us = optional_number(b->second, "triton_us");
      timing.speed_of_light_us = optional_number(b->second, "speed_of_light_us");
      timing.flop_count = optional_number(b->second, "flops");
      timing.byte_count = optional_number(b->second, "bytes");
    }
    if (timing.speed_of_light_us && timing.median_us > 0 &&
        timing.median_us < config_.speed_of_light_margin * *timing.speed_of_light_us)
      flags.push_back(outcome.shape + ": timing: " + format_us(timing.median_us) + " is faster than the speed-of-light floor " +
                      format_us(*timing.speed_of_light_us) + " allows (FLOPs and bytes over this GPU's measured ceilings)");
    if (const auto* kernels = times.if_contains("kernels"); kernels && kernels->is_array()) {
      for (const auto& item : kernels->as_array()) {
        const auto& k = item.as_object();
        KernelRecord kernel;
        kernel.name = text_of(k, "name");
        kernel.calls = static_cast<int64_t>(number_of(k, "calls"));
        kernel.total_us = number_of(k, "total_us");
        kernel.grid = text_of(k, "grid");
        kernel.block = text_of(k, "block");
        kernel.registers = static_cast<int64_t>(number_of(k, "registers"));
        kernel.shared_memory_bytes = static_cast<int64_t>(number_of(k, "shared_memory_bytes"));
        kernel.library = text_of(k, "owner") == "library";
        outcome.kernels.push_back(std::move(kernel));
      }
    }
    lines << "\n  " << outcome.shape << ": " << format_us(timing.median_us) << " (spread " << timing.spread_pct
          << "%, " << timing.repetitions << " calls)";
    if (timing.eager_us && timing.median_us > 0) lines << ", " << *timing.eager_us / timing.median_us << "x vs eager";
    outcome.timing = std::move(timing);
  }
  // The DRAM traffic the timed calls must have caused at least, by the task's byte formula (recorded beside what
  // the device counted in the whole turn; not a check yet).
  double required_bytes = 0.0;
  for (const auto& outcome : result.shapes)
    if (outcome.timing && outcome.timing->byte_count)
      required_bytes += *outcome.timing->byte_count * static_cast<double>(outcome.timing->repetitions);
  checked["timed_calls_dram_gb"] = required_bytes / 1e9;
  record["report_check"] = std::move(checked);
  // The window's items served the checks; the record keeps how many there were, not each one.
  boost::json::object kept = report;
  if (kept.erase("window")) kept["window_items"] = static_cast<int64_t>(items.size());
  record["timing"] = std::move(kept);
  record["baselines"] = baselines;
  if (!flags.empty())
    add_flags(result, flags);
  else
    result.message += "\ntimed (CUPTI kernel time per call, median):" + lines.str();
}

}  // namespace tritongym::triton_executor
