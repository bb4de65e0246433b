#include "episode/episode_runner.hpp"

namespace tritongym::episode {

EpisodeResult run_episode(Workflow& workflow, EpisodeSetup setup, int64_t seeds_per_shape, double timeout_s) {
  EpisodeResult result;
  Executor* executor = setup.executor;
  TaskSpec task = setup.task;
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
      EvaluationRequest request;
      request.task = task;
      request.source_code = result.final_code;
      request.stage = EvaluationStage::final_score;
      request.shapes = ShapeSet::held_out;
      request.seeds_per_shape = seeds_per_shape;
      request.timeout_s = timeout_s;
      auto scored = executor->evaluate(request);
      if (scored) result.score = scored.value();
      else result.score_status = scored.status();
    }
  }
  result.usage = episode.usage();
  result.transcript = episode.transcript();
  return result;
}

}  // namespace tritongym::episode
