// A synthetic run for the metrics and report tests: records built by hand, no store, no plugins.
#pragma once

#include <string>
#include <vector>

#include "results/records.hpp"

namespace tritongym::test_data {

// What every string from a run must never become in the HTML report: markup.
inline const std::string kInjection = "</script><img src=x onerror=alert(1)>";

// One episode with one shape: oracle 10 µs, eager 20 µs, compile 15 µs, speed of light 5 µs, and a
// candidate at 10 / speedup µs (so its speedup over the oracle is `speedup`).
inline results::EpisodeRecord synthetic_episode(const std::string& task_id, const std::string& split,
                                                const std::string& model, const std::string& workflow,
                                                int64_t sample, const std::string& verdict, double speedup = 1.0) {
  results::EpisodeRecord episode;
  episode.key = {task_id, model, workflow, sample};
  episode.split = split;
  episode.category = "reduction";
  episode.verdict = verdict;
  episode.message = verdict == "passed" ? "all shapes pass" : "shape 0 differs";
  episode.final_code = "import triton\n# " + task_id + "\n";
  episode.final_code_source = "workflow";
  results::ShapeRecord shape;
  shape.shape = "small";
  shape.passed = verdict == "passed";
  shape.candidate_us = 10.0 / speedup;
  shape.oracle_us = 10.0;
  shape.eager_us = 20.0;
  shape.compile_us = 15.0;
  shape.speed_of_light_us = 5.0;
  episode.shapes = {shape};
  episode.attempts = 3;
  episode.first_passing_attempt = verdict == "passed" ? 2 : 0;
  episode.turns = 4;
  episode.tool_calls = 3;
  episode.input_tokens = 1000;
  episode.output_tokens = 500;
  episode.dollars = 0.01;
  episode.gpu_seconds = 2.0;
  episode.wall_seconds = 30.0;
  return episode;
}

// 2 models x 2 workflows x 2 tasks (standard, ood) x 2 samples = 16 episodes. Pass@1 by group, in order
// of first appearance: model-a/one-shot 25%, model-a/react 100%, model-b/one-shot 50%, model-b/react 0%.
// Episode model-a/one-shot/ood/odd-reduction/0 carries kInjection in its message, flags and code.
inline std::vector<results::EpisodeRecord> synthetic_episodes() {
  struct Plan {
    std::string model, workflow;
    std::vector<std::string> verdicts;  // softmax s0, softmax s1, odd s0, odd s1
  };
  const std::vector<Plan> plans = {
      {"model-a", "one-shot", {"passed", "wrong_answer", "flagged", "compile_error"}},
      {"model-a", "react", {"passed", "passed", "passed", "passed"}},
      {"model-b", "one-shot", {"passed", "timeout", "passed", "no_code"}},
      {"model-b", "react", {"crash", "oom", "runtime_error", "harness_error"}},
  };
  std::vector<results::EpisodeRecord> episodes;
  for (const auto& plan : plans) {
    for (int index = 0; index < 4; ++index) {
      const bool ood = index >= 2;
      auto episode = synthetic_episode(ood ? "ood/odd-reduction" : "standard/softmax", ood ? "ood" : "standard",
                                       plan.model, plan.workflow, index % 2, plan.verdicts[index],
                                       1.0 + 0.25 * index + (plan.workflow == "react" ? 0.5 : 0.0));
      if (plan.model == "model-a" && plan.workflow == "one-shot" && index == 2) {
        episode.message = kInjection;
        episode.flags = {kInjection};
        episode.final_code = "# " + kInjection + "\n";
      }
      episodes.push_back(std::move(episode));
    }
  }
  return episodes;
}

inline results::RunInfo synthetic_run(bool reports_performance) {
  results::RunInfo run;
  run.run_id = "synthetic-20261130T000000Z";
  run.name = "synthetic";
  run.description = "hand-made records";
  run.started_at = "2026-11-30T00:00:00Z";
  run.finished_at = "2026-11-30T01:00:00Z";
  run.status = "finished";
  run.executor = reports_performance ? "tritongym.executor.triton-cuda" : "tritongym.executor.triton-interpreter";
  run.reports_performance = reports_performance;
  run.planned_episodes = 16;
  return run;
}

// A transcript for any episode: a user turn, an assistant turn, and a test call whose content and
// code carry kInjection.
inline std::vector<results::TranscriptEntry> synthetic_transcript(const results::EpisodeKey& key) {
  results::TranscriptEntry user;
  user.index = 0;
  user.kind = "user";
  user.content = "Write " + key.task_id + " in Triton.";
  results::TranscriptEntry assistant;
  assistant.index = 1;
  assistant.kind = "assistant";
  assistant.content = "Here it is. " + kInjection;
  assistant.input_tokens = 1000;
  assistant.output_tokens = 500;
  assistant.dollars = 0.01;
  results::TranscriptEntry tool;
  tool.index = 2;
  tool.kind = "tool";
  tool.tool_name = "test";
  tool.arguments_json = R"({"code": "..."})";
  tool.code = "import triton  # candidate " + kInjection + "\n";
  tool.content = "wrong_answer: " + kInjection;
  tool.verdict = "wrong_answer";
  tool.ok = false;
  return {user, assistant, tool};
}

}  // namespace tritongym::test_data
