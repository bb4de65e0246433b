// One episode (task x model x workflow x sample): the core's side of EpisodeContext. It forwards
// model turns and tool calls, charges every one to the budget, turns malformed tool calls into
// messages for the model, judges every evaluation a tool asks for under the task's DSL rule
// (judging/dsl_rule.hpp), and remembers the last candidate so a budget that runs out still leaves
// something to score.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "budget/budget_ledger.hpp"
#include "tritongym/sdk/backend.hpp"
#include "tritongym/sdk/dsl.hpp"
#include "tritongym/sdk/executor.hpp"
#include "tritongym/sdk/tool.hpp"
#include "tritongym/sdk/workflow.hpp"

namespace tritongym::episode {

// What the episode is made of. Non-owning pointers: the run outlives its episodes.
struct EpisodeSetup {
  TaskSpec task;
  int64_t sample_index = 0;
  ModelBackend* model = nullptr;               // required
  std::map<std::string, Tool*> tools;          // by tool name (ToolSchema::name)
  Executor* executor = nullptr;                // null: tools that evaluate report "no executor"
  const Dsl* dsl = nullptr;                    // the task's DSL: its rule applies to every evaluation; null: none
  Budget budget;
  HostLog* log = nullptr;
};

// One entry of the transcript, in call order.
struct EpisodeEvent {
  enum class Kind { turn, tool_call, refused, prompt } kind = Kind::turn;
  ChatResponse response;     // turn
  ToolCall call;             // tool_call, refused
  ToolResult result;         // tool_call
  std::string note;          // refused: why (budget); tool_call: harness error, if any
  ChatMessage message;       // prompt: a system or user message the workflow sent for the first time
};

class Episode final : public EpisodeContext, private ToolServices {
 public:
  explicit Episode(EpisodeSetup setup);

  // EpisodeContext
  const TaskSpec& task() const noexcept override { return setup_.task; }
  int64_t sample_index() const noexcept override { return setup_.sample_index; }
  std::vector<ToolSchema> tools() const noexcept override;
  Result<ChatResponse> chat(const ChatRequest& request) noexcept override;
  Result<ToolResult> call_tool(const ToolCall& call) noexcept override;
  Budget budget() const noexcept override { return ledger_.limits(); }
  BudgetUsage usage() const noexcept override { return ledger_.usage(); }
  bool budget_exhausted() const noexcept override { return ledger_.exhausted_reason().has_value(); }
  void log(LogLevel level, std::string_view message) noexcept override;

  // The code of the last compile/test/benchmark/profile/submit call ("" when none).
  std::string last_candidate() const;
  std::vector<EpisodeEvent> transcript() const;

 private:
  // ToolServices
  Result<EvaluationResult> evaluate(const EvaluationRequest& request) noexcept override;
  const Dsl* dsl() const noexcept override { return setup_.dsl; }

  void record(EpisodeEvent event);

  EpisodeSetup setup_;
  budget::BudgetLedger ledger_;
  mutable std::mutex mutex_;
  std::vector<EpisodeEvent> transcript_;
  std::set<std::pair<Role, std::string>> prompts_seen_;  // each prompt enters the transcript once
  std::string last_candidate_;
};

}  // namespace tritongym::episode
