#include "one_shot_workflow.hpp"

#include <boost/json.hpp>

#include "tritongym/sdk/prompts.hpp"

namespace tritongym::workflow_one_shot {
namespace {

constexpr const char* kDefaultSystemPrompt =
    "You are an expert GPU kernel engineer. You write correct, fast kernels. Answer with exactly one "
    "```python fenced block holding the complete file: imports, the kernels, and the entry function.";

// A reply may carry the code in a tool call instead of a fenced block (models trained on tools do).
std::string code_from_tool_calls(const ChatMessage& message) {
  for (const auto& call : message.tool_calls)
    if (std::string code = code_argument_of(call.arguments_json); !code.empty()) return code;
  return "";
}

}  // namespace

Result<WorkflowOutcome> OneShotWorkflow::run(EpisodeContext& episode) noexcept {
  try {
    ChatRequest request;
    request.task_id = episode.task().id;
    request.sample_index = episode.sample_index();
    request.temperature = config_.temperature;
    request.max_output_tokens = config_.max_output_tokens;
    request.tool_choice = "none";
    request.messages.push_back(
        {Role::system, config_.system_prompt.empty() ? kDefaultSystemPrompt : config_.system_prompt, {}, {}, {}});
    request.messages.push_back({Role::user, task_prompt(episode.task()), {}, {}, {}});

    auto response = episode.chat(request);
    if (!response) return response.status();

    WorkflowOutcome outcome;
    outcome.final_code = extract_python_code(response->message.content);
    if (outcome.final_code.empty()) outcome.final_code = code_from_tool_calls(response->message);
    outcome.summary = outcome.final_code.empty() ? "one reply, no code in it" : "one reply, one candidate";
    return outcome;
  } catch (const std::exception& error) {
    return Status(StatusCode::internal, std::string("one-shot workflow: ") + error.what());
  }
}

}  // namespace tritongym::workflow_one_shot
