// The JSON view: every metric and every episode's numbers, for scripts and for comparing runs.
#include <boost/json.hpp>

#include "report/report.hpp"

namespace tritongym::report {
namespace {

namespace json = boost::json;

json::value optional_number(std::optional<double> value) { return value ? json::value(*value) : json::value(nullptr); }

json::value interval(std::optional<metrics::Interval> value) {
  if (!value) return nullptr;
  return json::array{value->low, value->high};
}

json::value environment(const std::string& text) {
  boost::system::error_code error;
  json::value parsed = json::parse(text, error);
  return error ? json::value(text) : parsed;
}

json::object run_json(const results::RunInfo& run) {
  return {{"run_id", run.run_id},
          {"name", run.name},
          {"description", run.description},
          {"started_at", run.started_at},
          {"finished_at", run.finished_at},
          {"status", run.status},
          {"executor", run.executor},
          {"reports_performance", run.reports_performance},
          {"planned_episodes", run.planned_episodes},
          {"environment", environment(run.environment_json)}};
}

json::object group_json(const metrics::GroupMetrics& group) {
  json::array pass_at_k;
  for (size_t k = 1; k <= group.pass_at_k.size(); ++k) pass_at_k.push_back({{"k", k}, {"value", group.pass_at_k[k - 1]}});
  json::array fast_p;
  for (const auto& entry : group.fast_p)
    fast_p.push_back({{"p", entry.threshold}, {"over_eager", entry.over_eager}, {"over_compile", entry.over_compile}});
  json::object verdicts;
  for (const auto& [verdict, count] : group.verdict_counts) verdicts[verdict] = count;
  json::array by_attempt;
  for (double rate : group.pass_rate_by_attempt) by_attempt.push_back(rate);
  const double pass_rate =
      group.episodes ? static_cast<double>(group.passed_episodes) / static_cast<double>(group.episodes) : 0.0;
  return {{"model", group.model},
          {"workflow", group.workflow},
          {"split", group.split},
          {"episodes", group.episodes},
          {"not_judged_episodes", group.not_judged_episodes},
          {"tasks", group.tasks},
          {"passed_episodes", group.passed_episodes},
          {"solved_tasks", group.solved_tasks},
          {"samples_per_task", {{"min", group.min_samples_per_task}, {"max", group.max_samples_per_task}}},
          {"pass_at_k", pass_at_k},
          {"pass_rate", pass_rate},
          {"pass_rate_ci95", interval(group.pass_rate_interval)},
          {"reports_performance", group.reports_performance},
          {"perf_at_1", optional_number(group.perf_at_1)},
          {"perf_at_1_ci95", interval(group.perf_at_1_interval)},
          {"perf_scored_episodes", group.perf_scored_episodes},
          {"perf_vs_best_at_1", optional_number(group.perf_vs_best_at_1)},
          {"fast_p", fast_p},
          {"speed_of_light_percent", optional_number(group.speed_of_light_percent)},
          {"spending",
           {{"input_tokens", group.input_tokens},
            {"output_tokens", group.output_tokens},
            {"dollars", group.dollars},
            {"gpu_seconds", group.gpu_seconds},
            {"wall_seconds", group.wall_seconds}}},
          {"per_solve",
           {{"tokens", optional_number(group.tokens_per_solve)},
            {"dollars", optional_number(group.dollars_per_solve)},
            {"gpu_seconds", optional_number(group.gpu_seconds_per_solve)}}},
          {"verdicts", verdicts},
          {"pass_rate_by_attempt", by_attempt}};
}

json::object episode_json(const EpisodeView& view) {
  const auto& record = view.record;
  json::array flags;
  for (const auto& flag : record.flags) flags.push_back(json::string(flag));
  return {{"number", view.number},
          {"task_id", record.key.task_id},
          {"model", record.key.model},
          {"workflow", record.key.workflow},
          {"sample", record.key.sample},
          {"split", record.split},
          {"category", record.category},
          {"verdict", record.verdict},
          {"message", record.message},
          {"flags", flags},
          {"unconfined", view.unconfined},
          {"final_code_source", record.final_code_source},
          {"attempts", record.attempts},
          {"first_passing_attempt", record.first_passing_attempt},
          {"speedup_over_oracle", optional_number(view.speedup_over_oracle)},
          {"speedup_over_eager", optional_number(view.speedup_over_eager)},
          {"speedup_over_compile", optional_number(view.speedup_over_compile)},
          {"speed_of_light_fraction", optional_number(view.speed_of_light_fraction)},
          {"speedup_over_best", optional_number(view.speedup_over_best)},
          {"turns", record.turns},
          {"tool_calls", record.tool_calls},
          {"input_tokens", record.input_tokens},
          {"output_tokens", record.output_tokens},
          {"dollars", record.dollars},
          {"gpu_seconds", record.gpu_seconds},
          {"wall_seconds", record.wall_seconds}};
}

json::array strings(const std::vector<std::string>& values) {
  json::array array;
  for (const auto& value : values) array.push_back(json::string(value));
  return array;
}

}  // namespace

boost::json::value report_to_json(const Report& report) {
  json::array groups;
  for (const auto& group : report.groups) groups.push_back(group_json(group));
  json::array episodes;
  for (const auto& view : report.episodes) episodes.push_back(episode_json(view));
  json::array task_oracles;
  for (const auto& task : report.task_oracles)
    task_oracles.push_back({{"task", task.task_id},
                            {"split", task.split},
                            {"speed_of_light_fraction", optional_number(task.speed_of_light_fraction)},
                            {"over_best_baseline", optional_number(task.over_best_baseline)}});
  return json::object{{"schema", "tritongym.report.v1"},
                      {"run", run_json(report.run)},
                      {"splits", strings(report.splits)},
                      {"models", strings(report.models)},
                      {"workflows", strings(report.workflows)},
                      {"groups", groups},
                      {"episodes", episodes},
                      {"task_oracles", task_oracles}};
}

std::string render_json(const Report& report) { return json::serialize(report_to_json(report)); }

}  // namespace tritongym::report
