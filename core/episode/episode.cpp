#include "episode/episode.hpp"

#include <boost/json.hpp>

#include "episode/tool_arguments.hpp"
#include "judging/dsl_rule.hpp"
#include "tritongym/sdk/did_you_mean.hpp"

namespace tritongym::episode {

Episode::Episode(EpisodeSetup setup) : setup_(std::move(setup)), ledger_(setup_.budget) {}

std::vector<ToolSchema> Episode::tools() const noexcept {
  std::vector<ToolSchema> schemas;
  for (const auto& [name, tool] : setup_.tools) schemas.push_back(tool->schema());
  return schemas;
}

void Episode::record(EpisodeEvent event) {
  std::lock_guard lock(mutex_);
  transcript_.push_back(std::move(event));
}

Result<ChatResponse> Episode::chat(const ChatRequest& request) noexcept {
  try {
    if (auto reason = ledger_.refuse_turn()) {
      record({EpisodeEvent::Kind::refused, {}, {}, {}, "model turn refused: " + *reason, {}});
      return Status(StatusCode::resource_exhausted, "budget: " + *reason);
    }
    // The workflow's own messages (system and user prompts, its feedback) enter the transcript the first
    // time they are sent; the conversation a workflow resends each turn is not repeated.
    for (const auto& message : request.messages) {
      if (message.role != Role::system && message.role != Role::user) continue;
      bool first = false;
      {
        std::lock_guard lock(mutex_);
        first = prompts_seen_.emplace(message.role, message.content).second;
      }
      if (first) {
        EpisodeEvent event;
        event.kind = EpisodeEvent::Kind::prompt;
        event.message = message;
        record(std::move(event));
      }
    }
    ChatRequest sent = request;
    sent.task_id = setup_.task.id;
    sent.sample_index = setup_.sample_index;
    auto response = setup_.model->chat(sent);
    if (!response) return response.status();
    ledger_.charge_turn(response->usage, response->cost_usd);
    record({EpisodeEvent::Kind::turn, response.value(), {}, {}, {}, {}});
    return response;
  } catch (const std::exception& error) {
    return Status(StatusCode::internal, std::string("episode chat: ") + error.what());
  }
}

Result<ToolResult> Episode::call_tool(const ToolCall& call) noexcept {
  try {
    if (auto reason = ledger_.refuse_tool_call(call.name)) {
      record({EpisodeEvent::Kind::refused, {}, call, {}, "tool call refused: " + *reason, {}});
      return Status(StatusCode::resource_exhausted, "budget: " + *reason);
    }
    auto found = setup_.tools.find(call.name);
    ToolResult result;
    if (found == setup_.tools.end()) {
      std::vector<std::string> names;
      for (const auto& [name, tool] : setup_.tools) names.push_back(name);
      std::string list;
      for (const auto& name : names) list += (list.empty() ? "" : ", ") + name;
      result.ok = false;
      result.text = "error: there is no tool '" + call.name + "'" + did_you_mean(call.name, names) +
                    "; the tools are: " + (list.empty() ? "(none)" : list);
    } else if (Status valid = check_tool_arguments(call.arguments_json, found->second->schema().parameters_json);
               !valid.is_ok()) {
      result.ok = false;
      result.text = "error: malformed call to '" + call.name + "': " + valid.message();
    } else {
      boost::system::error_code error;
      auto arguments = boost::json::parse(call.arguments_json.empty() ? "{}" : call.arguments_json, error);
      if (const auto* code = arguments.as_object().if_contains("code"); code && code->is_string()) {
        std::lock_guard lock(mutex_);
        last_candidate_ = std::string(code->as_string());
      }
      auto called = found->second->call(call.arguments_json.empty() ? "{}" : call.arguments_json, *this);
      if (!called) {
        // The harness failed, not the candidate: tell the model plainly and keep the reason.
        result.ok = false;
        result.text = "error: the tool failed inside the harness: " + called.status().message();
      } else {
        result = std::move(called.value());
      }
    }
    ledger_.charge_tool_call(call.name, result.gpu_seconds);
    record({EpisodeEvent::Kind::tool_call, {}, call, result, {}, {}});
    return result;
  } catch (const std::exception& error) {
    return Status(StatusCode::internal, std::string("episode tool call: ") + error.what());
  }
}

Result<EvaluationResult> Episode::evaluate(const EvaluationRequest& request) noexcept {
  if (!setup_.executor)
    return Status(StatusCode::unavailable, "no executor is configured for this run, so code cannot be evaluated");
  return judging::judge(*setup_.executor, setup_.dsl, request);
}

void Episode::log(LogLevel level, std::string_view message) noexcept {
  if (setup_.log) setup_.log->write(level, "[" + setup_.task.id + "#" + std::to_string(setup_.sample_index) + "] " +
                                               std::string(message));
}

std::string Episode::last_candidate() const {
  std::lock_guard lock(mutex_);
  return last_candidate_;
}

std::vector<EpisodeEvent> Episode::transcript() const {
  std::lock_guard lock(mutex_);
  return transcript_;
}

}  // namespace tritongym::episode
