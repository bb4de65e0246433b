// The timing stages at run time: the candidate's timed calls with the GPU alone (and the GPU's sampler watching
// that turn), then the baselines beside it, folded into the result by apply_timing (timing_stage.cpp).
#include "evaluation.hpp"
#include "verdict.hpp"
#include "worker_json.hpp"

namespace tritongym::triton_executor {

// Checked and idle, the child is given the GPU alone for its timed calls. It says when they are done (`timed`);
// its determinism check and the hand-over of its outputs share the GPU again.
void TritonExecutor::timed_calls_stage(Evaluation& e) {
  if (e.event() != "ready_to_time") {
    e.end_tuning_turn();  // a child that tuned and never said so: the run has ended
    return;
  }
  if (e.gpu.alone()) {  // still alone from its autotuner: it keeps the GPU for the timing
    e.tuning_alone_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - e.tuning_since).count();
  } else {
    e.gpu.take_alone();
  }
  e.idle.release();  // a child that said "idle" and then "ready" (out of turn) is let go only now
  e.phases.lap("timing_wait");
  // The host's window on the device's counters (report_check.hpp): opened before the child is let go, closed when
  // it says its timed calls are done and before it goes on (it waits for the answer to its "timed").
  bool sampling = false;
  const int64_t gpu = e.worker_gpu;
  if (config_.report_check) {
    auto opening = std::chrono::steady_clock::now();
    auto opened = samplers().open_window(gpu, visible_id(gpu));
    e.phases.set("timing_sampler_open", std::chrono::duration<double>(std::chrono::steady_clock::now() - opening).count());
    sampling = opened.problem.empty();
    e.device.problem = sampling ? "the candidate's turn alone did not end the way the harness ends it" : opened.problem;
    e.device.restarted_after = std::move(opened.restarted_after);
    e.device.lost = opened.failed;
  }
  e.answer_child(true);
  if (sampling) {
    auto closing = std::chrono::steady_clock::now();
    auto closed = samplers().close_window(gpu);
    e.phases.set("timing_sampler_close", std::chrono::duration<double>(std::chrono::steady_clock::now() - closing).count());
    if (!closed) {
      e.device.problem = closed.status().message();
      e.device.lost = true;
    } else if (e.event() == "timed") {
      e.device.sampled = std::move(closed.value());
    }
  }
  if (e.event() != "timed") {
    e.phases.lap("timing");
    return;
  }
  e.gpu.alone_to_share();  // the baselines may take it alone again
  e.phases.lap("timing");
  e.answer_child(true);
  e.phases.lap("after_timing");
}

// Why a candidate that passed its checks has no timing, or its timing with the baselines beside it.
void TritonExecutor::timing_outcome_stage(Evaluation& e, const boost::json::array& recheck) {
  EvaluationResult& result = e.result;
  if (is_timing_stage(e.request.stage) && !e.timed) {
    result.message += "\nnot timed: the Triton interpreter's latencies are not performance numbers "
                      "(timing needs triton-cuda and a GPU)";
  } else if (!e.not_timed.empty()) {
    result.message += "\nnot timed: " + e.not_timed;
  } else if (e.timed && !e.timing_ran) {
    std::string why = text_of(e.timing_report, "error");
    e.record["timing_error"] = why;
    if (std::string raised = text_of(e.timing_report, "verdict"); !raised.empty() && result.verdict == Verdict::passed) {
      result.verdict = reported_failure(raised, false);  // correct on the checks, then failed while being timed
      result.message = why;
    } else {
      result.message += "\nnot timed: " + why;
    }
  } else if (e.timed && result.verdict == Verdict::passed) {
    boost::json::array measured = baselines_stage(e);
    apply_timing(e.timing, e.timing_report, recheck, measured, e.device, result, e.record);
  }
}

// Cached baselines are looked up under the GPU's share; measuring the ceilings or timing a baseline takes the GPU
// alone (the GPU data plane times them on this worker's GPU, the files plane on GPU 0).
boost::json::array TritonExecutor::baselines_stage(Evaluation& e) {
  e.phases.skip();
  double waited = 0.0;
  const int64_t gpu = e.worker_gpu;
  std::unique_lock baseline_gpu(gpu_mutex(0), std::defer_lock);
  auto alone = [&] {
    if (!e.plane.on() && gpu != 0) {
      auto asked = std::chrono::steady_clock::now();
      if (!baseline_gpu.owns_lock()) baseline_gpu.lock();
      waited += std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
    } else {
      waited += e.gpu.take_alone();
    }
  };
  if (!have_ceilings()) alone();
  auto ceilings = machine_ceilings(e.plane.on() ? gpu : 0);
  boost::json::array measured;
  if (ceilings) {
    auto found = baselines(e.request.task, e.timing, *ceilings, e.plane, /*cached_only=*/true,
                           e.gpu.share_for_requests(e.cuda), &waited);
    if (!found && found.status().code() == StatusCode::not_found) {
      alone();
      found = baselines(e.request.task, e.timing, *ceilings, e.plane, /*cached_only=*/false);
    }
    if (found) measured = std::move(found.value());
    else e.record["baseline_error"] = found.status().message();
  } else {
    e.record["baseline_error"] = ceilings.status().message();
  }
  e.phases.lap("baselines");
  e.phases.set_apart("baselines", "baselines_wait", waited);
  e.record["phase_seconds"] = e.phases.seconds();
  return measured;
}

}  // namespace tritongym::triton_executor
