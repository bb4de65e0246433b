// TritonGym SDK: the value types that plugins and the host exchange.
//
// All types are plain values (copyable, no pointers into other objects), so ownership is never in
// question: whoever holds one owns it. Strings are UTF-8. Free-form structured data crosses the
// boundary as serialized JSON text (fields named *_json), never as a JSON-library object.
// Units: time in microseconds unless the name says otherwise (_s = seconds), money in US dollars.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tritongym {

// ---------------------------------------------------------------- chat and tool calls

enum class Role { system, user, assistant, tool };
inline const char* role_name(Role role) noexcept {
  switch (role) {
    case Role::system: return "system";
    case Role::user: return "user";
    case Role::assistant: return "assistant";
    case Role::tool: return "tool";
  }
  return "unknown";
}

// A function call requested by the model.
struct ToolCall {
  std::string id;              // provider-assigned call id; echoed back in the tool message
  std::string name;            // tool name as the model wrote it (may be unknown: the core checks)
  std::string arguments_json;  // the arguments exactly as received; may be invalid JSON
};

struct ChatMessage {
  Role role = Role::user;
  std::string content;               // text; may be empty for an assistant turn with only tool calls
  std::vector<ToolCall> tool_calls;  // assistant messages only
  std::string tool_call_id;          // tool messages only: which call this answers
  std::string tool_name;             // tool messages only
};

// A tool as offered to the model (OpenAI "function" / Anthropic "tool").
struct ToolSchema {
  std::string name;
  std::string description;
  std::string parameters_json;  // JSON Schema of the arguments object
};

struct TokenUsage {
  int64_t input_tokens = 0;         // all prompt tokens, including cached ones
  int64_t cached_input_tokens = 0;  // prompt tokens served from the provider's cache (cache reads)
  int64_t cache_write_tokens = 0;   // prompt tokens written to the provider's cache (Anthropic)
  int64_t output_tokens = 0;        // all completion tokens, including reasoning
  int64_t reasoning_tokens = 0;     // completion tokens spent on hidden reasoning
};

struct ChatRequest {
  std::vector<ChatMessage> messages;
  std::vector<ToolSchema> tools;     // empty: no tools offered
  std::string tool_choice = "auto";  // "auto", "none", "required", or a tool name
  std::optional<double> temperature;
  std::optional<int64_t> max_output_tokens;
  // Who is asking, for backends that key on it (scripted, replay): never sent to a provider.
  std::string task_id;
  int64_t sample_index = 0;
};

struct ChatResponse {
  ChatMessage message;        // role is always assistant
  TokenUsage usage;
  double cost_usd = 0.0;      // priced by the backend from its price table; 0 when unknown
  std::string finish_reason;  // "stop", "tool_calls", "length", ...
  std::string model;          // the model that answered, as the provider names it
};

// What a tool returns. `text` is what the model reads: short and structured, identical whoever calls.
// `record_json` is the full record kept in the store (every number, stdout, stderr).
struct ToolResult {
  bool ok = true;           // false: the tool ran but the candidate failed (compile error, wrong answer)
  std::string text;
  std::string record_json = "{}";
  double gpu_seconds = 0.0;  // device time the call consumed, charged to the episode's budget
};

// ---------------------------------------------------------------- tasks

// One problem size. Dimension names are the task's own ("M", "N", "K", "batch").
struct ShapeSpec {
  std::string name;                       // "visible-0", "held-out-2", or an author-chosen label
  std::map<std::string, int64_t> dims;
};

struct Tolerance {
  double atol = 0.0;
  double rtol = 0.0;
};

struct TaskSpec {
  std::string id;         // unique within a run, e.g. "standard/softmax"
  std::string suite;      // suite name, e.g. "standard"
  std::string split;      // "standard" | "ood" | "dsl" | "community"
  std::string category;   // "reduction", "matmul", "attention", ...
  std::string dsl;        // "triton", "gluon", ...
  std::string entry_function;                // name the candidate must define
  std::vector<std::string> entry_parameters;  // its parameter names, in order
  std::vector<std::string> entry_scalars;     // those that are Python numbers where make_inputs draws the inputs
  std::string description;                    // what the model is told
  std::string directory;                      // absolute folder of the task
  std::string reference_path;                 // absolute path of reference.py ("" if none)
  std::string oracle_path;                    // absolute path of oracle.py ("" if none)
  // Absolute path of triton_baseline.py ("" if none): the entry function in plain @triton.jit kernels, which a
  // task in another DSL (Gluon) ships so that its oracle is held to the best plain Triton (docs/task-format.md).
  std::string triton_baseline_path;
  std::vector<std::string> dtypes;            // "float32", "float16", "bfloat16", ...
  std::vector<ShapeSpec> visible_shapes;      // the agent may test on these
  std::vector<ShapeSpec> held_out_shapes;     // only the final score uses these
  std::vector<ShapeSpec> small_shapes;        // for the CPU interpreter; empty: it uses the others
  // The entry function's arguments as task.yaml's `inputs:` list, JSON text ("[]" when reference.py
  // generates them with make_inputs()): [{"name": "x", "shape": ["M", "N"], "distribution": "normal"}, ...]
  std::string inputs_json = "[]";
  std::map<std::string, Tolerance> tolerance;  // per dtype
  std::string flops_formula;                  // expression over dims; "" when not given
  std::string bytes_formula;                  // expression over dims; "" when not given
  // The unit whose measured rate the FLOP formula is held to for the speed-of-light floor: "tensor" (the
  // fastest tensor-core rate the dtype may use; also when ""), "tf32", "simt" (fp32 FMAs on CUDA cores),
  // "int" (int32 multiply-adds), "alu" (ALU-pipe instructions: min/max, compares, logic, shifts), "issue"
  // (instructions of any kind at the schedulers' issue limit), "l2-gather" (4-byte loads at random served by
  // the L2) or "memory" (bytes only). The last three count instructions or gathers. docs/task-format.md.
  std::string compute_unit;
  std::vector<std::string> allowed_library_kernels;
  std::vector<std::string> tags;
  // Rules of `tasks audit` the task cannot meet (task.yaml `audit_exempt`): "rule" or "rule@shape" -> the
  // one-line reason, listed by the audit wherever it applies one.
  std::map<std::string, std::string> audit_exemptions;
  std::string source_file;                    // the task.yaml it came from (for messages)
};

// ---------------------------------------------------------------- evaluation

enum class EvaluationStage { compile, test, benchmark, profile, final_score };
inline const char* stage_name(EvaluationStage stage) noexcept {
  switch (stage) {
    case EvaluationStage::compile: return "compile";
    case EvaluationStage::test: return "test";
    case EvaluationStage::benchmark: return "benchmark";
    case EvaluationStage::profile: return "profile";
    case EvaluationStage::final_score: return "final_score";
  }
  return "unknown";
}
// The stage named `name` (stage_name's inverse, and "final" for final_score, as `tritongym eval --stage` and
// `POST /v1/evaluations` take it); nullopt for a name no stage has.
inline std::optional<EvaluationStage> stage_from_name(std::string_view name) noexcept {
  for (EvaluationStage stage : {EvaluationStage::compile, EvaluationStage::test, EvaluationStage::benchmark,
                                EvaluationStage::profile, EvaluationStage::final_score})
    if (name == stage_name(stage)) return stage;
  if (name == "final") return EvaluationStage::final_score;
  return std::nullopt;
}

enum class ShapeSet { visible, held_out };

struct EvaluationRequest {
  TaskSpec task;
  std::string source_code;   // the candidate: one Python file (docs/candidate-contract.md)
  EvaluationStage stage = EvaluationStage::test;
  ShapeSet shapes = ShapeSet::visible;
  int64_t seeds_per_shape = 3;
  double timeout_s = 120.0;  // wall-clock limit of one stage in the worker
  // The frontend every kernel the candidate runs must come from ("gluon", "triton"; Dsl::required_kernel_frontend
  // of the task's DSL, filled in by the core); "" = no rule. The executor fails a candidate that ran a kernel of
  // another frontend (verdict compile_error, the kernel named in the message); a frontend it cannot tell is a
  // harness_error (the candidate is not judged by a rule the executor cannot check).
  std::string required_kernel_frontend;
};

enum class Verdict {
  passed,
  compile_error,
  runtime_error,
  timeout,
  crash,
  oom,
  wrong_answer,
  flagged,        // looked like a pass but an anti-cheat check fired; counts as a failure
  harness_error,  // the harness could not judge (worker could not start, ...): not the candidate's fault
  // The executor cannot run what the candidate uses (Triton's interpreter has no libdevice, no inline assembly,
  // no GPU driver): nothing is known of the candidate, which a GPU executor would judge. Scores leave it out.
  not_judged,
};
inline const char* verdict_name(Verdict verdict) noexcept {
  switch (verdict) {
    case Verdict::passed: return "passed";
    case Verdict::compile_error: return "compile_error";
    case Verdict::runtime_error: return "runtime_error";
    case Verdict::timeout: return "timeout";
    case Verdict::crash: return "crash";
    case Verdict::oom: return "oom";
    case Verdict::wrong_answer: return "wrong_answer";
    case Verdict::flagged: return "flagged";
    case Verdict::harness_error: return "harness_error";
    case Verdict::not_judged: return "not_judged";
  }
  return "unknown";
}

// The verdict named `name` (verdict_name's inverse); nullopt for a name no verdict has.
inline std::optional<Verdict> verdict_from_name(std::string_view name) noexcept {
  for (Verdict verdict : {Verdict::passed, Verdict::compile_error, Verdict::runtime_error, Verdict::timeout,
                          Verdict::crash, Verdict::oom, Verdict::wrong_answer, Verdict::flagged,
                          Verdict::harness_error, Verdict::not_judged})
    if (name == verdict_name(verdict)) return verdict;
  return std::nullopt;
}

// How fast one shape ran (benchmark, profile and final_score stages of a timing executor).
// The primary figure is CUPTI kernel time: per call, the sum of the durations of every kernel the call
// launched on any stream; CUDA-event and host wall times are cross-checks (docs/timing.md).
struct ShapeTiming {
  double median_us = 0.0;          // median over repetitions of the CUPTI kernel time per call
  double spread_pct = 0.0;         // interquartile range / median, in percent
  int64_t repetitions = 0;
  double event_median_us = 0.0;    // CUDA events around each call
  double wall_median_us = 0.0;     // host clock around each call, synchronised
  bool cold_l2 = true;             // inputs rotated over > 2x the L2 size between calls
  std::optional<double> eager_us;           // PyTorch eager reference, same machine and shape
  std::optional<double> compile_us;         // torch.compile(reference)
  std::optional<double> oracle_us;          // the task's oracle (revealed to the model only when the run says so)
  std::optional<double> triton_us;          // the task's triton_baseline.py (DSL tasks that ship one)
  std::optional<double> speed_of_light_us;  // floor from the task's FLOP/byte formulas and machine ceilings
  std::optional<double> flop_count;         // the task's FLOP formula at this shape
  std::optional<double> byte_count;         // the task's byte formula at this shape (bytes moved)
  double library_fraction = 0.0;   // share of the kernel time spent in library kernels (cuBLAS, ATen, ...)
};

// A kernel that ran during the timed calls of one shape, from CUPTI.
struct KernelRecord {
  std::string name;               // demangled where possible
  int64_t calls = 0;              // launches per timed call
  double total_us = 0.0;          // kernel time per timed call (median repetition)
  bool library = false;           // cuBLAS, cuDNN, ATen, ... rather than the candidate's own code
  std::string grid;               // "x,y,z"
  std::string block;              // "x,y,z"
  int64_t registers = 0;          // per thread
  int64_t shared_memory_bytes = 0;  // static + dynamic, per block
};

struct ShapeOutcome {
  std::string shape;                 // ShapeSpec::name
  bool passed = false;
  double max_abs_error = 0.0;
  double max_rel_error = 0.0;
  std::string first_mismatch;        // index and values, "" when none
  std::optional<ShapeTiming> timing;  // only from a timing executor, in the timing stages
  std::vector<KernelRecord> kernels;  // profile and final_score stages
};

struct EvaluationResult {
  Verdict verdict = Verdict::harness_error;
  std::string message;               // what the model needs to know, a few lines at most
  std::vector<ShapeOutcome> shapes;
  std::string stdout_text;           // the candidate's captured output (truncated by the executor)
  std::string stderr_text;
  std::string record_json = "{}";    // everything else, for the store
  double gpu_seconds = 0.0;
  double wall_seconds = 0.0;
  // Anti-cheat findings that void a pass: each a sentence naming the check ("timing: faster than the
  // speed-of-light floor ..."). Non-empty means the verdict is `flagged` and every score counts a failure.
  std::vector<std::string> flags;
  // Static-check findings on the source (torch compute in the entry path, try/except fallbacks, ...):
  // shown to the model and kept in the store, but they do not change the verdict on their own.
  std::vector<std::string> warnings;
};

// ---------------------------------------------------------------- budgets

// Limits of one episode. An unset limit is unlimited. The core charges every call; plugins only read.
struct Budget {
  std::optional<int64_t> max_turns;              // model calls
  std::optional<int64_t> max_tool_calls;         // all tools together
  std::map<std::string, int64_t> max_calls_per_tool;
  std::optional<int64_t> max_input_tokens;
  std::optional<int64_t> max_output_tokens;
  std::optional<double> max_dollars;
  std::optional<double> max_gpu_seconds;
  std::optional<double> max_wall_seconds;
};

// What an episode has spent so far.
struct BudgetUsage {
  int64_t turns = 0;
  int64_t tool_calls = 0;
  std::map<std::string, int64_t> calls_per_tool;
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  double dollars = 0.0;
  double gpu_seconds = 0.0;
  double wall_seconds = 0.0;
};

}  // namespace tritongym
