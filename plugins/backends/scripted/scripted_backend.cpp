#include "scripted_backend.hpp"

#include <algorithm>

namespace tritongym::backend_scripted {
namespace {

int64_t estimate_tokens(size_t characters) { return static_cast<int64_t>((characters + 3) / 4); }

Status parse_scripted_error(const std::string& text) {
  // "unavailable: server overloaded" -> (unavailable, "server overloaded")
  static const std::pair<const char*, StatusCode> codes[] = {
      {"unavailable", StatusCode::unavailable}, {"deadline_exceeded", StatusCode::deadline_exceeded},
      {"resource_exhausted", StatusCode::resource_exhausted}, {"invalid_argument", StatusCode::invalid_argument}};
  for (const auto& [name, code] : codes) {
    std::string prefix = std::string(name) + ":";
    if (text.rfind(prefix, 0) == 0) return Status(code, "scripted failure:" + text.substr(prefix.size()));
  }
  return Status(StatusCode::unavailable, "scripted failure: " + text);
}

}  // namespace

Result<ChatResponse> ScriptedBackend::chat(const ChatRequest& request) noexcept {
  try {
    const std::vector<ScriptedReply>* replies = &config_.replies;
    if (auto found = config_.per_task.find(request.task_id); found != config_.per_task.end()) replies = &found->second;
    size_t turn = 0;
    if (config_.order == "sequence") {
      std::lock_guard lock(mutex_);
      turn = calls_[request.task_id + "#" + std::to_string(request.sample_index)]++;
    } else {
      turn = static_cast<size_t>(std::count_if(request.messages.begin(), request.messages.end(),
                                               [](const ChatMessage& m) { return m.role == Role::assistant; }));
    }
    if (replies->empty())
      return Status(StatusCode::failed_precondition, "the script has no replies for task '" + request.task_id + "'");
    if (turn >= replies->size()) {
      if (!config_.repeat_last)
        return Status(StatusCode::resource_exhausted,
                      "the script for task '" + request.task_id + "' has " + std::to_string(replies->size()) +
                          " replies and turn " + std::to_string(turn + 1) + " was asked for");
      turn = replies->size() - 1;
    }
    const ScriptedReply& reply = (*replies)[turn];
    if (reply.error) return parse_scripted_error(*reply.error);

    ChatResponse response;
    response.model = config_.model_name;
    response.message.role = Role::assistant;
    response.message.content = reply.content;
    size_t index = 0;
    for (const auto& call : reply.tool_calls) {
      ToolCall out;
      out.id = call.id.empty() ? "call_" + std::to_string(turn) + "_" + std::to_string(index) : call.id;
      out.name = call.name;
      // A JSON string is played verbatim (it may be deliberately malformed); anything else as JSON.
      boost::system::error_code error;
      auto value = boost::json::parse(call.arguments.text, error);
      out.arguments_json = !error && value.is_string() ? std::string(value.as_string()) : call.arguments.text;
      response.message.tool_calls.push_back(std::move(out));
      ++index;
    }
    response.finish_reason = !reply.finish_reason.empty() ? reply.finish_reason
                             : reply.tool_calls.empty()   ? "stop"
                                                          : "tool_calls";
    size_t prompt_characters = 0;
    for (const auto& message : request.messages) {
      prompt_characters += message.content.size();
      for (const auto& call : message.tool_calls) prompt_characters += call.arguments_json.size() + call.name.size();
    }
    size_t reply_characters = reply.content.size();
    for (const auto& call : response.message.tool_calls) reply_characters += call.arguments_json.size();
    ScriptedUsage usage = reply.usage.value_or(ScriptedUsage{});
    response.usage.input_tokens = usage.input_tokens.value_or(estimate_tokens(prompt_characters));
    response.usage.cached_input_tokens = usage.cached_input_tokens.value_or(0);
    response.usage.output_tokens = usage.output_tokens.value_or(estimate_tokens(reply_characters));
    return response;
  } catch (const std::exception& error) {
    return Status(StatusCode::internal, std::string("scripted backend: ") + error.what());
  }
}

}  // namespace tritongym::backend_scripted
