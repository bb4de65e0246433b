// The candidate's stages: the static checks of its source, then its run in a sandboxed child of the leased fork
// server, with the child's requests for its turns on the GPU answered while it runs.
#include "evaluation.hpp"
#include "verdict.hpp"
#include "worker_json.hpp"

namespace tritongym::triton_executor {
namespace {

constexpr double kStaticCheckSeconds = 60.0;  // parsing one source; far more means something is wrong

// The entry parameters task.yaml gives as Python numbers (an input with a `value:`), which the static checks must
// not take for tensors: `1 - beta1 ** step` on two of them is host arithmetic, not a PyTorch kernel.
// The entry's parameters that are Python numbers: inputs with a `value:`, and entry.scalars where make_inputs
// draws the inputs. Host arithmetic on them is not PyTorch compute.
boost::json::array scalar_parameters(const TaskSpec& task) {
  boost::json::array names(task.entry_scalars.begin(), task.entry_scalars.end());
  const boost::json::value inputs = task_json(task).at("inputs");  // [] when unreadable
  if (!inputs.is_array()) return names;
  for (const auto& input : inputs.as_array()) {
    if (!input.is_object()) continue;
    const auto* name = input.as_object().if_contains("name");
    if (name && name->is_string() && input.as_object().contains("value")) names.push_back(*name);
  }
  return names;
}

bool is_turn_event(const std::string& event) {
  return event == "gpu_idle" || event == "gpu_wanted" || event == "gpu_alone_wanted" || event == "gpu_alone_done";
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

boost::json::object TritonExecutor::record_start(const Evaluation& e) const {
  boost::json::object record{{"executor", e.cuda ? "triton-cuda" : "triton-interpreter"},
                             {"stage", stage_name(e.request.stage)}, {"worker", e.worker->hello()}};
  if (e.cuda) record["data_plane"] = e.plane.on() ? "gpu" : "files";
  return record;
}

// The static checks read the source only: no GPU, and no reference worker. A source that does not compile is
// judged here, as the child's import would judge it, before any case is made or any child forked.
TritonExecutor::Decided TritonExecutor::static_check_stage(Evaluation& e) {
  auto checked = static_check(e.request, *e.worker);
  if (!checked) return Result<EvaluationResult>(checked.status());  // the lease kills the worker
  if (e.request.stage != EvaluationStage::compile) e.warnings = std::move(checked->warnings);
  e.phases.lap("static_check");
  if (checked->syntax_error.empty()) return std::nullopt;
  boost::json::object record = record_start(e);
  record["phase_seconds"] = e.phases.seconds();
  record["not_run"] = "the source does not compile: judged by the static checks' compile";
  e.worker.give_back(true);
  EvaluationResult result;
  result.verdict = Verdict::compile_error;
  result.message = checked->syntax_error;
  result.record_json = boost::json::serialize(record);
  return Result<EvaluationResult>(std::move(result));
}

// The child runs every case (and, timed, pauses before its timed calls until it is told to go on).
void TritonExecutor::run_candidate_stage(Evaluation& e) {
  const EvaluationRequest& request = e.request;
  boost::json::array run_cases;
  for (size_t i = 0; i < e.cases.size(); ++i) {
    boost::json::object entry{{"key", e.cases[i].key}};
    entry["inputs"] = e.plane.on() ? e.plane.inputs.at(e.cases[i].expected) : boost::json::value(e.cases[i].inputs);
    if (request.stage != EvaluationStage::compile)
      entry["output"] = e.plane.on() ? e.plane.receive.at("check-" + std::to_string(i))
                                     : boost::json::value("out-" + std::to_string(i) + ".pt");
    run_cases.push_back(std::move(entry));
  }
  boost::json::object run{{"op", "run"},           {"stage", stage_name(request.stage)},
                          {"code", request.source_code}, {"entry", request.task.entry_function},
                          {"cases", run_cases},    {"timeout_s", request.timeout_s},
                          {"keep_folder", config_.keep_folders}, {"sandbox", config_.sandbox}};
  if (!request.required_kernel_frontend.empty())  // the DSL rule, checked on the kernels that ran (kernel_frontends.py)
    run["kernel_frontend"] = request.required_kernel_frontend;
  if (e.timed) {
    run["timing"] = timing_plan_json(request.task, e.timing, e.plane);
    run["pause_before_timing"] = true;
  }
  if (e.cuda)  // how the candidate's autotuners benchmark (autotune_bench.py); alone only in a timed run
    run["autotune"] = {{"warmup_ms", config_.autotune_warmup_ms}, {"rep_ms", config_.autotune_rep_ms},
                       {"alone", config_.autotune_alone}};
  e.start_child(run);
  answer_gpu_turns(e);
  e.checking.unmark();  // checked: what comes next (CUPTI, the timed calls) is never suspended
  e.phases.lap("candidate");
  e.phases.set_apart("candidate", "candidate_share_wait", e.share_wait);
}

// A timed child hands its share of the GPU back while Triton compiles, and asks for it again after (gpu_turns.py),
// straight to this host on the turn socket (child_turns.hpp): another evaluation's timing need not wait for a
// compile. The child's word is not trusted to keep count: a share is released only if held, and taken only if not.
// Nor is its word "idle" trusted: the child (the pid its fork server named) is held through the driver before its
// share is released (IdleHold), until it has its share again. Once it has asked for its share back, it is suspendable: another evaluation's timing holds it rather than waits for its
// checks to end (CheckSuspension). While its autotuner benchmarks a new key it has the GPU alone, as a timing does
// (autotune_bench.py).
void TritonExecutor::answer_gpu_turns(Evaluation& e) {
  for (std::string event = e.event(); is_turn_event(event); event = e.event()) {
    const int pid = static_cast<int>(number_of(*e.reply, "pid"));  // as its fork server named it
    if (event == "gpu_idle" && e.gpu.shared()) {
      e.checking.unmark();
      if (e.idle.hold(pid, e.request.timeout_s)) e.gpu.drop_share();
    }
    if (event == "gpu_wanted" && !e.gpu.alone()) {
      e.share_wait += e.gpu.take_share();
      e.idle.release();
      e.checking.mark(pid, e.child->clock());
    }
    if (event == "gpu_alone_wanted" && e.cuda && !e.gpu.alone()) {
      e.checking.unmark();  // alone, it is never suspended
      e.share_wait += e.gpu.take_alone();
      e.tuning_since = std::chrono::steady_clock::now();
      e.idle.release();
      ++e.tunings_alone;
    }
    if (event == "gpu_alone_done" && e.gpu.alone()) {
      e.end_tuning_turn();
      e.checking.mark(pid, e.child->clock());
    }
    e.answer_child(true);
  }
}

}  // namespace tritongym::triton_executor

namespace tritongym::triton_executor {

// What the child's last word says: the record's first part, and the verdicts it can decide alone (a worker that
// hung or died, a failure the child saw itself, an output that is not a plain fresh tensor, the compile stage).
TritonExecutor::Decided TritonExecutor::child_outcome_stage(Evaluation& e) {
  e.idle.release();  // the run has ended
  e.plane.child_ended = true;
  EvaluationResult& result = e.result;
  result.warnings = e.warnings;
  e.record = record_start(e);
  if (!e.warnings.empty()) e.record["warnings"] = boost::json::value_from(e.warnings);
  if (e.timed) {
    boost::json::object turns = e.idle.record();
    for (auto& [key, value] : e.checking.record()) turns[key] = value;
    turns["tunings_alone"] = e.tunings_alone;
    turns["tuning_alone_s"] = e.tuning_alone_s;
    e.record["turns"] = std::move(turns);
  }
  e.record["phase_seconds"] = e.phases.seconds();
  if (!e.not_timed.empty()) e.record["timing_skipped"] = e.not_timed;
  // How many of its cases the reference worker made for it; the rest it found made, by an earlier evaluation or
  // ahead of this one (expect).
  int64_t made = 0;
  for (const auto& entry : e.prepared)
    if (const auto* flag = entry.as_object().if_contains("made"); flag && flag->is_bool() && flag->as_bool()) ++made;
  e.record["cases_prepared"] = {{"made", made}, {"found", static_cast<int64_t>(e.prepared.size()) - made}};
  if (e.request.stage == EvaluationStage::final_score) e.record["expected_outputs"] = std::move(e.prepared);

  if (!e.reply && e.reply.status().code() == StatusCode::internal) {  // a reply the worker protocol refuses
    e.worker.give_back(false);
    return Result<EvaluationResult>(Status(StatusCode::internal, "the candidate worker failed: " + e.reply.status().message()));
  }
  if (!e.reply) {  // the fork server itself hung or died: the candidate took the whole worker down
    const bool hung = e.reply.status().code() == StatusCode::deadline_exceeded;
    e.worker.give_back(false);
    result.verdict = hung ? Verdict::timeout : Verdict::crash;
    result.message = hung ? "the candidate did not finish in time and its worker was replaced"
                          : "the candidate crashed its worker: " + e.reply.status().message();
    e.record["error"] = e.reply.status().message();
    return Result<EvaluationResult>(finish(e));
  }
  const boost::json::object& reply = *e.reply;
  if (!reply.at("ok").as_bool()) {
    e.worker.give_back(false);
    return Result<EvaluationResult>(Status(StatusCode::internal, "the candidate worker failed: " + text_of(reply, "error")));
  }
  result.stdout_text = text_of(reply, "stdout");
  result.stderr_text = text_of(reply, "stderr");
  result.wall_seconds = number_of(reply, "wall_seconds");
  if (e.cuda) result.gpu_seconds = result.wall_seconds;  // the child held a GPU throughout
  for (const char* key : {"kernels", "kernel_frontends", "sandbox", "cases", "compiles_off_gpu", "autotune_compiled",
                          "autotune_choices", "autotune_benchmarks"})
    if (const auto* value = reply.if_contains(key)) e.record[key] = *value;
  if (std::string unconfined = unconfined_warning(reply); !unconfined.empty()) result.warnings.push_back(unconfined);
  // Where the candidate phase's time went inside the child (import, loading inputs, running, saving outputs, and
  // the timing stage's parts).
  if (const auto* value = reply.if_contains("phases")) e.record["candidate_phases"] = *value;
  e.outlived = text_of(reply, "outlived");
  if (std::string verdict = text_of(reply, "verdict"); !verdict.empty()) {
    e.worker.give_back(true);
    result.verdict = reported_failure(verdict, !e.cuda);
    result.message = text_of(reply, "message");
    return Result<EvaluationResult>(finish(e));
  }
  // The candidate ran every case. An output that is not a plain, fresh tensor fails here.
  std::string bad_output;
  for (const auto& c : reply.at("cases").as_array()) {
    const auto& entry = c.as_object();
    if (text_of(entry, "status") == "bad_output" && bad_output.empty())
      bad_output = text_of(entry, "key") + ": " + text_of(entry, "error");
  }
  if (e.request.stage == EvaluationStage::compile || !bad_output.empty()) {
    e.worker.give_back(true);
    result.verdict = bad_output.empty() ? Verdict::passed : Verdict::wrong_answer;
    result.message = bad_output.empty() ? "compiled and ran on one shape (not checked for correctness)" : bad_output;
    return Result<EvaluationResult>(finish(e));
  }
  if (const auto* value = reply.if_contains("timing"); value && value->is_object()) e.timing_report = value->as_object();
  e.timing_ran = e.timed && e.not_timed.empty() && !e.timing_report.contains("error");
  return std::nullopt;
}

}  // namespace tritongym::triton_executor
