// What a run leaves behind, as plain values: the run engine writes them into the store
// (core/store), the metrics (core/metrics) and the report (core/report) read them back.
// One header so that the three agree on the meaning of every field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tritongym::results {

// The run as a whole: one row per run in the store.
struct RunInfo {
  std::string run_id;            // unique; the run folder's name plus a start timestamp
  std::string name;              // the run file's `name`
  std::string description;
  std::string started_at;        // ISO 8601 UTC
  std::string finished_at;       // "" while running or when interrupted
  std::string status = "running";  // "running" | "finished" | "interrupted"
  std::string resolved_config_yaml;
  std::string environment_json = "{}";  // `tritongym doctor --json`: GPU, driver, CUDA, torch, triton, host
  std::string executor;          // the executor plugin that judged the episodes
  bool reports_performance = false;  // false (interpreter): latencies are not performance numbers
  int64_t planned_episodes = 0;
};

// The identity of one episode: task x model x workflow x sample. `key()` is unique within a run.
struct EpisodeKey {
  std::string task_id;
  std::string model;     // the run file's model name
  std::string workflow;  // the run file's workflow name
  int64_t sample = 0;
  std::string key() const { return task_id + "|" + model + "|" + workflow + "|" + std::to_string(sample); }
};

// One shape of the final score.
struct ShapeRecord {
  std::string shape;
  bool passed = false;
  double max_abs_error = 0.0;
  std::optional<double> candidate_us;       // CUPTI median
  std::optional<double> eager_us;
  std::optional<double> compile_us;
  std::optional<double> oracle_us;
  std::optional<double> triton_us;         // a DSL task's plain-Triton baseline (triton_baseline.py)
  std::optional<double> speed_of_light_us;
};

// One finished episode, scored.
struct EpisodeRecord {
  EpisodeKey key;
  std::string split;     // the task's split: standard | ood | community | dsl
  std::string category;
  // The final score's verdict: a Verdict name ("passed", "wrong_answer", "flagged", ...), or
  // "no_code" (the model never wrote a candidate) or "harness_error" (the harness could not judge).
  std::string verdict;
  std::string message;                  // the final score's message, or what went wrong
  std::vector<std::string> flags;       // anti-cheat reasons when verdict is "flagged"
  // The final score's warnings (its evaluation row holds them): "[unconfined] ..." when the candidate ran without
  // the sandbox's full confinement (sandbox: best_effort), which the report marks.
  std::vector<std::string> warnings;
  std::string final_code;
  std::string final_code_source;        // "workflow" | "last candidate" | "none"
  std::vector<ShapeRecord> shapes;      // visible and held-out, from the final score
  // Attempts: evaluation tool calls (compile, test, benchmark, profile, submit) in call order, 1-based.
  int64_t attempts = 0;
  int64_t first_passing_attempt = 0;    // the first attempt whose test/submit passed; 0: none did
  // Spending.
  int64_t turns = 0;
  int64_t tool_calls = 0;
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  double dollars = 0.0;
  double gpu_seconds = 0.0;
  double wall_seconds = 0.0;
  std::string started_at;
  std::string finished_at;
  bool passed() const { return verdict == "passed"; }
};

// One entry of an episode's transcript, in order (the store's messages and tool_calls tables).
struct TranscriptEntry {
  int64_t index = 0;
  std::string kind;            // "system" | "user" | "assistant" | "tool" | "refused"
  std::string content;         // message text, tool result text, or why a call was refused
  std::string tool_name;       // tool entries
  std::string arguments_json;  // tool entries: the arguments as the model wrote them
  std::string code;            // tool entries that carried a candidate: its source
  std::string verdict;         // tool entries that evaluated a candidate
  bool ok = true;
  int64_t input_tokens = 0;    // assistant entries
  int64_t output_tokens = 0;
  double dollars = 0.0;
  std::string record_json = "{}";  // tool entries: the tool's full record
};

}  // namespace tritongym::results
