// Registers tritongym.workflow.leader: Leader-style incremental edits. The model writes a first
// version, then improves the current best with SEARCH/REPLACE edits, each tested; a failing edit is
// shown to the model with its result and the best is kept.
#include <boost/json.hpp>

#include "tritongym/sdk/config.hpp"
#include "tritongym/sdk/plugin.hpp"
#include "tritongym/sdk/prompts.hpp"

namespace {

using namespace tritongym;

struct LeaderConfig {
  int64_t rounds = 6;  // model turns, the first version included
  std::optional<double> temperature;
  int64_t max_output_tokens = 16384;
  static constexpr auto fields() {
    return std::make_tuple(field("rounds", &LeaderConfig::rounds), field("temperature", &LeaderConfig::temperature),
                           field("max_output_tokens", &LeaderConfig::max_output_tokens));
  }
};

constexpr const char* kSystemPrompt =
    "You are an expert GPU kernel engineer who improves kernels step by step. First answer with the complete "
    "file in one ```python block. Afterwards you are shown the current best version and its test result: answer "
    "with SEARCH/REPLACE edits of it only, each as\n<<<<<<< SEARCH\nexact lines of the current code\n=======\n"
    "their replacement\n>>>>>>> REPLACE";

class LeaderWorkflow final : public Workflow {
 public:
  explicit LeaderWorkflow(LeaderConfig config) : config_(config) {}

  Result<WorkflowOutcome> run(EpisodeContext& episode) noexcept override {
    try {
      const bool can_test = offers_tool(episode, "test"), can_submit = offers_tool(episode, "submit");
      std::string best, best_result = "not tested";
      bool best_passes = false;
      std::string feedback;  // what the model reads about its last attempt
      int64_t accepted = 0;
      for (int64_t round = 0; round < config_.rounds && !episode.budget_exhausted(); ++round) {
        ChatRequest request;
        request.temperature = config_.temperature;
        request.max_output_tokens = config_.max_output_tokens;
        request.tool_choice = "none";
        request.messages = {{Role::system, kSystemPrompt, {}, {}, {}}, {Role::user, task_prompt(episode.task()), {}, {}, {}}};
        if (!best.empty())
          request.messages.push_back({Role::user, "Current best version (" + best_result + "):\n```python\n" + best +
                                                      "```\n" + feedback + "\nReply with SEARCH/REPLACE edits of it.",
                                      {}, {}, {}});
        auto reply = episode.chat(request);
        if (!reply) {
          if (reply.status().code() == StatusCode::resource_exhausted) break;
          return reply.status();
        }
        std::string candidate;
        if (best.empty()) {
          candidate = extract_python_code(reply->message.content);
          if (candidate.empty()) continue;
        } else {
          auto edited = apply_search_replace(best, reply->message.content);
          if (!edited) {
            feedback = "Your last edits could not be applied: " + edited.status().message();
            continue;
          }
          candidate = edited.value();
        }
        bool passes = false;
        std::string result = "not tested";
        if (can_test) {
          auto tested = episode.call_tool({"leader-" + std::to_string(round), "test", code_arguments(candidate)});
          if (!tested) break;
          passes = tested->ok;
          result = tested->text.substr(0, tested->text.find('\n'));
        }
        // A passing version replaces the best; a failing one only replaces a best that fails too.
        if (best.empty() || passes || !best_passes) {
          best = candidate;
          best_passes = passes;
          best_result = result;
          ++accepted;
          feedback = "Your last edits were accepted.";
        } else {
          feedback = "Your last edits were rejected, the best is unchanged. Their result:\n" + result;
        }
      }
      WorkflowOutcome outcome;
      outcome.final_code = best;
      if (can_submit && !best.empty()) (void)episode.call_tool({"leader-submit", "submit", code_arguments(best)});
      outcome.summary = std::to_string(accepted) + " versions accepted; best " + (best_passes ? "passes" : "does not pass");
      return outcome;
    } catch (const std::exception& error) {
      return Status(StatusCode::internal, std::string("leader workflow: ") + error.what());
    }
  }

 private:
  LeaderConfig config_;
};

Result<std::unique_ptr<Workflow>> create(const PluginContext& context) {
  auto config = parse_config<LeaderConfig>(context.config_json);
  if (!config) return config.status();
  if (config->rounds < 1) return Status(StatusCode::invalid_config, "rounds must be at least 1", "/rounds");
  return std::unique_ptr<Workflow>(std::make_unique<LeaderWorkflow>(*config));
}

void register_all(Registrar& registrar) { registrar.add_workflow("tritongym.workflow.leader", create); }

}  // namespace

TRITONGYM_PLUGIN(register_all)
