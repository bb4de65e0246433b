// TritonGym SDK: kind `workflow`, an agent loop that drives a model and the tools to solve one task.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tritongym/sdk/context.hpp"
#include "tritongym/sdk/status.hpp"
#include "tritongym/sdk/types.hpp"

namespace tritongym {

// Everything a workflow may touch during one episode (task x model x workflow x sample).
// Implemented by the core; owned by the core; valid during Workflow::run only. Not thread-safe
// unless a method says so: a workflow with parallel candidates serialises its calls.
class EpisodeContext {
 public:
  virtual ~EpisodeContext() = default;

  virtual const TaskSpec& task() const noexcept = 0;
  virtual int64_t sample_index() const noexcept = 0;

  // The tools of this run, as offered to the model. Identical for every workflow in a comparison.
  virtual std::vector<ToolSchema> tools() const noexcept = 0;

  // One model turn. The core charges a turn, the tokens and the dollars; when the budget is spent it
  // returns resource_exhausted without calling the model.
  virtual Result<ChatResponse> chat(const ChatRequest& request) noexcept = 0;

  // One tool call, exactly as the model made it. Unknown tools, invalid JSON and wrong argument types
  // come back as a ToolResult{ok=false} explaining the mistake (and still cost a call); a spent
  // budget is resource_exhausted.
  virtual Result<ToolResult> call_tool(const ToolCall& call) noexcept = 0;

  // Limits and spending so far.
  virtual Budget budget() const noexcept = 0;
  virtual BudgetUsage usage() const noexcept = 0;
  // True once any limit is reached: the workflow should stop and return.
  virtual bool budget_exhausted() const noexcept = 0;

  virtual void log(LogLevel level, std::string_view message) noexcept = 0;
};

// Whether this run offers the tool `name` ("test", "submit", ...): workflows adapt to the tools they get.
inline bool offers_tool(const EpisodeContext& episode, std::string_view name) {
  for (const auto& tool : episode.tools())
    if (tool.name == name) return true;
  return false;
}

struct WorkflowOutcome {
  // The workflow's final answer. Empty: the core scores the last candidate the episode tested or
  // submitted (a budget that runs out still yields a score).
  std::string final_code;
  std::string summary;  // one line for the transcript ("3 rounds, best at round 2")
};

class Workflow {
 public:
  virtual ~Workflow() = default;
  // Run one episode to its end. Returning a Status error marks the episode failed with that reason.
  virtual Result<WorkflowOutcome> run(EpisodeContext& episode) noexcept = 0;
};

}  // namespace tritongym
