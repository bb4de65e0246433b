#include "episode/episode_runner.hpp"

#include "judging/dsl_rule.hpp"

namespace tritongym::episode {

EpisodeResult run_episode(Workflow& workflow, EpisodeSetup setup, int64_t seeds_per_shape, double timeout_s) {
  EpisodeResult result;
  Executor* executor = setup.executor;
  const Dsl* dsl = setup.dsl;
  TaskSpec task = setup.task;
  // The final score's request; its code is the episode's last word, but its cases are known now: the executor
  // may make them while the workflow works (Executor::expect).
  EvaluationRequest final_score;
  final_score.task = task;
  final_score.stage = EvaluationStage::final_score;
  final_score.shapes = ShapeSet::held_out;
  final_score.seeds_per_shape = seeds_per_shape;
  final_score.timeout_s = timeout_s;
  final_score = judging::under_dsl_rule(std::move(final_score), dsl);
  if (executor) executor->expect(final_score);
  Episode episode(std::move(setup));
  auto outcome = workflow.run(episode);
  if (outcome) result.outcome = outcome.value();
  else result.workflow_status = outcome.status();

  if (outcome && !outcome->final_code.empty()) {
    result.final_code = outcome->final_code;
    result.final_code_source = "workflow";
  } else if (std::string last = episode.last_candidate(); !last.empty()) {
    result.final_code = last;
    result.final_code_source = "last candidate";
  } else {
    result.final_code_source = "none";
  }
  if (!result.final_code.empty()) {
    if (!executor) {
      result.score_status = Status(StatusCode::unavailable, "no executor to score the final candidate");
    } else {
      EvaluationRequest request = final_score;
      request.source_code = result.final_code;
      auto scored = judging::judge(*executor, dsl, std::move(request));  // the same DSL rule as the tools
      if (scored) result.score = scored.value();
      else result.score_status = scored.status();
    }
  }
  result.usage = episode.usage();
  result.transcript = episode.transcript();
  return result;
}

}  // namespace tritongym::episode
