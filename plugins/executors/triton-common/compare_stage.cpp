// The compare stage: the reference worker compares what the child produced with the expected outputs, once for
// the checks (before timing, from what the child said of its cases, when it said it) and once for the rest (the
// checks not compared yet, and the outputs of the timed calls on every input set).
#include "evaluation.hpp"
#include "worker_json.hpp"

namespace tritongym::triton_executor {

// What the child left of each case to compare: its output (a file in its folder, or a block of the GPU data
// plane) and what it said of the case.
std::vector<TritonExecutor::Produced> TritonExecutor::checks_produced(const Evaluation& e, const std::string& folder,
                                                                       const boost::json::array& told) {
  std::vector<Produced> produced;
  for (size_t i = 0; i < e.cases.size(); ++i) {
    Produced p{e.cases[i], folder + "/out-" + std::to_string(i) + ".pt", "check-" + std::to_string(i), {}};
    if (i < told.size() && told[i].is_object()) p.told = told[i].as_object();
    produced.push_back(std::move(p));
  }
  return produced;
}

// Has the reference worker compare `produced`, timed as `phase` beside the wait for it (`wait_phase`). On the
// file transport it compares on GPU 0, which it takes its turn at when the worker's GPU is another.
Result<boost::json::object> TritonExecutor::compare_as(Evaluation& e, const std::vector<Produced>& produced,
                                                       const char* wait_phase, const char* phase) {
  std::shared_lock reference_gpu(gpu_mutex(0), std::defer_lock);
  if (e.cuda && !e.plane.on() && e.worker_gpu != 0) reference_gpu.lock();
  e.phases.lap(wait_phase);
  double waited = 0.0;
  auto compared = compare(produced, e.request.task, e.plane, e.gpu.share_for_requests(e.cuda), waited);
  if (reference_gpu.owns_lock()) reference_gpu.unlock();
  e.phases.lap(phase);
  e.phases.set_apart(phase, wait_phase, waited);
  return compared;
}

// A candidate is timed only if it passed its checks (as bench/cold_harness.py does): they are compared while it
// waits to be timed, from what it said of its cases. A child that said nothing of them is timed first and
// compared after (compare_before_timing: false).
void TritonExecutor::compare_checks_early_stage(Evaluation& e) {
  if (e.event() != "ready_to_time" || e.request.stage == EvaluationStage::compile || !config_.compare_before_timing)
    return;
  const auto* told = e.reply->if_contains("cases");
  if (told && told->is_array() && told->as_array().size() == e.cases.size()) {
    for (const auto& c : told->as_array())
      if (c.is_object() && text_of(c.as_object(), "status") == "bad_output") e.not_timed = "an output failed its checks";
    if (e.not_timed.empty()) {
      e.checked = compare_as(e, checks_produced(e, text_of(*e.reply, "folder"), told->as_array()),
                             "checks_compare_wait", "checks_compare");
      if (!e.checked->has_value()) {
        e.not_timed = "its checks could not be compared";
      } else {
        for (const auto& c : e.checked->value().at("cases").as_array())
          if (!c.as_object().at("passed").as_bool()) e.not_timed = "it failed its checks";
      }
    }
  }
  if (!e.not_timed.empty()) e.answer_child(false);
}

// Every case not compared before timing, then (timed) the outputs of the timed calls on every input set. Gives the
// comparison entries, the checks first, and returns the worker: only now may its next run remove the output folder.
Result<boost::json::array> TritonExecutor::compare_stage(Evaluation& e) {
  const std::string folder = text_of(*e.reply, "folder");
  std::vector<Produced> produced;
  if (!e.checked) produced = checks_produced(e, folder, e.reply->at("cases").as_array());
  if (e.timing_ran) {
    const auto* reported = e.timing_report.if_contains("shapes");
    for (size_t s = 0; s < e.timing.size(); ++s) {
      // What the child said of each re-checked set (the GPU data plane), in plan order.
      const boost::json::array* rechecks = nullptr;
      if (reported && reported->is_array() && s < reported->as_array().size())
        if (const auto* found = reported->as_array()[s].as_object().if_contains("rechecks"); found && found->is_array())
          rechecks = &found->as_array();
      for (size_t i = 0; i < e.timing[s].sets.size(); ++i) {
        std::string timed_id = "timed-" + std::to_string(s) + "-" + std::to_string(i);
        Produced p{e.timing[s].sets[i], folder + "/" + timed_id + ".pt", timed_id, {}};
        if (rechecks)
          for (const auto& told : *rechecks)
            if (told.is_object() && number_of(told.as_object(), "set") == static_cast<double>(i)) p.told = told.as_object();
        produced.push_back(std::move(p));
      }
    }
  }
  e.phases.skip();
  Result<boost::json::object> compared = boost::json::object{{"cases", boost::json::array{}}};
  if (!produced.empty()) compared = compare_as(e, produced, "compare_wait", "compare");
  e.record["phase_seconds"] = e.phases.seconds();
  e.worker.give_back(true);
  if (e.checked && !e.checked->has_value()) return e.checked->status();
  if (!compared) return compared.status();
  boost::json::array all;
  if (e.checked) all = std::move(e.checked->value().at("cases").as_array());  // the checks first
  for (auto& c : compared->at("cases").as_array()) all.push_back(std::move(c));
  return all;
}

}  // namespace tritongym::triton_executor
