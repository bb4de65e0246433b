#include "react_workflow.hpp"

#include <boost/json.hpp>

#include "tritongym/sdk/prompts.hpp"

namespace tritongym::workflow_react {
namespace {

constexpr const char* kDefaultSystemPrompt =
    "You are an expert GPU kernel engineer. Use the tools: compile and test your kernel, benchmark it, read "
    "the docs when unsure, improve it, and call submit(code) with the complete file when you are done. Every "
    "tool call costs budget.";

}  // namespace

Result<WorkflowOutcome> ReactWorkflow::run(EpisodeContext& episode) noexcept {
  try {
    ChatRequest request;
    request.tools = episode.tools();
    request.tool_choice = "auto";
    request.temperature = config_.temperature;
    request.max_output_tokens = config_.max_output_tokens;
    request.messages.push_back(
        {Role::system, config_.system_prompt.empty() ? kDefaultSystemPrompt : config_.system_prompt, {}, {}, {}});
    request.messages.push_back({Role::user, task_prompt(episode.task()), {}, {}, {}});

    WorkflowOutcome outcome;
    std::string latest_code;  // the last code the model wrote, in a block or a tool call
    int64_t turns = 0;
    for (; turns < config_.max_turns && !episode.budget_exhausted(); ++turns) {
      auto reply = episode.chat(request);
      if (!reply) {
        if (reply.status().code() == StatusCode::resource_exhausted) break;  // the core scores what we have
        return reply.status();
      }
      request.messages.push_back(reply->message);
      if (std::string code = extract_python_code(reply->message.content); !code.empty()) latest_code = code;
      if (reply->message.tool_calls.empty()) {
        request.messages.push_back({Role::user, "Use the tools; call submit(code) with the complete file when done.",
                                    {}, {}, {}});
        continue;
      }
      for (const auto& call : reply->message.tool_calls) {
        if (std::string code = code_argument_of(call.arguments_json); !code.empty()) latest_code = code;
        auto result = episode.call_tool(call);
        if (!result) {
          if (result.status().code() == StatusCode::resource_exhausted) {
            outcome.final_code = latest_code;
            outcome.summary = "budget spent after " + std::to_string(turns + 1) + " turns";
            return outcome;
          }
          return result.status();
        }
        request.messages.push_back({Role::tool, result->text, {}, call.id, call.name});
        if (call.name == "submit" && result->ok) {
          outcome.final_code = code_argument_of(call.arguments_json);
          outcome.summary = "submitted at turn " + std::to_string(turns + 1);
          return outcome;
        }
      }
    }
    outcome.final_code = latest_code;
    outcome.summary = "no submission after " + std::to_string(turns) + " turns";
    return outcome;
  } catch (const std::exception& error) {
    return Status(StatusCode::internal, std::string("react workflow: ") + error.what());
  }
}

}  // namespace tritongym::workflow_react
