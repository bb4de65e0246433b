#include "cli/serve_evaluator.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "cli/eval_judging.hpp"
#include "cli/plugin_loading.hpp"

namespace tritongym::cli {
namespace {

JudgeOptions judge_options(const serve::CandidateRequest& request) {
  return JudgeOptions{request.stage, request.seeds, request.timeout_s};
}

}  // namespace

ServeEvaluator::ServeEvaluator(const CliContext& context, plugins::Registry& registry, std::vector<TaskSpec> tasks,
                               std::string executor_id, std::string executor_config)
    : context_(context), registry_(registry), tasks_(std::move(tasks)), executor_id_(std::move(executor_id)),
      executor_config_(std::move(executor_config)) {}

Status ServeEvaluator::start() {
  auto choice = environment::choose_executor(registry_, executor_id_, [&](const std::string& id) {
    return plugin_context(context_, registry_, id, executor_config_, "--executor-config");
  });
  if (!choice) return start_error_ = choice.status();
  spdlog::info("executor {}: {}", choice->id, choice->reason);
  choice_ = std::move(choice.value());
  workers_ = std::max<int64_t>(choice_->executor->info().parallel_slots, 1);
  return {};
}

Result<serve::JudgedCandidate> ServeEvaluator::judge(const TaskSpec& task, const serve::CandidateRequest& request) {
  auto result = cli::judge(context_, registry_, *choice_->executor, task, request.code, judge_options(request));
  if (!result) return result.status();
  return serve::JudgedCandidate{eval_result_json(*result, choice_->id, choice_->reason), verdict_name(result->verdict),
                                result->gpu_seconds};
}

void ServeEvaluator::expect(const TaskSpec& task, const serve::CandidateRequest& request) {
  choice_->executor->expect(judging_request(task, request.code, judge_options(request)));
}

}  // namespace tritongym::cli
