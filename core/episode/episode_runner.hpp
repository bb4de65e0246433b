// Runs one episode to its end: the workflow drives the episode, then the final candidate is scored on
// every shape (visible and held-out) by the executor, under the task's DSL rule as every tool call is
// (judging/dsl_rule.hpp). The final candidate is the workflow's answer, or, when it gives none (a spent
// budget, a failed model call), the last code the model wrote in a tool call.
#pragma once

#include <string>

#include "episode/episode.hpp"

namespace tritongym::episode {

struct EpisodeResult {
  std::string final_code;
  std::string final_code_source;  // "workflow", "last candidate" or "none"
  WorkflowOutcome outcome;
  Status workflow_status;          // the workflow's error, if it returned one
  std::optional<EvaluationResult> score;  // the final-score evaluation; empty when there was no code
  Status score_status;             // the harness's error while scoring, if any
  BudgetUsage usage;
  std::vector<EpisodeEvent> transcript;
  bool solved() const { return score && score->verdict == Verdict::passed; }
};

// `setup.executor` scores the final candidate; `seeds_per_shape` random input sets per shape.
EpisodeResult run_episode(Workflow& workflow, EpisodeSetup setup, int64_t seeds_per_shape = 3,
                          double timeout_s = 300);

}  // namespace tritongym::episode
