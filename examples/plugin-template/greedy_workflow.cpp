// acme.workflow.greedy: write, test, read the feedback, rewrite. A complete plugin in one file.
#include <tritongym/sdk/config.hpp>
#include <tritongym/sdk/plugin.hpp>
#include <tritongym/sdk/prompts.hpp>

namespace {

using namespace tritongym;

// The typed config: defaults in the struct, keys listed once. Unknown keys and wrong types are
// refused by parse_config with a JSON pointer that the host turns into "run.yaml:line:column".
struct GreedyConfig {
  int64_t rounds = 3;
  std::optional<double> temperature;
  static constexpr auto fields() {
    return std::make_tuple(field("rounds", &GreedyConfig::rounds), field("temperature", &GreedyConfig::temperature));
  }
};

class GreedyWorkflow final : public Workflow {
 public:
  explicit GreedyWorkflow(GreedyConfig config) : config_(config) {}

  Result<WorkflowOutcome> run(EpisodeContext& episode) noexcept override {
    try {
      const bool can_test = offers_tool(episode, "test");

      ChatRequest request;
      request.temperature = config_.temperature;
      request.tool_choice = "none";  // this loop calls the tool itself
      request.messages.push_back({Role::system, "You write fast, correct GPU kernels. Answer with one ```python block.", {}, {}, {}});
      request.messages.push_back({Role::user, task_prompt(episode.task()), {}, {}, {}});

      WorkflowOutcome outcome;
      for (int64_t round = 0; round < config_.rounds && !episode.budget_exhausted(); ++round) {
        auto reply = episode.chat(request);
        if (!reply) {
          if (reply.status().code() == StatusCode::resource_exhausted) break;  // score what we have
          return reply.status();
        }
        request.messages.push_back(reply->message);
        std::string code = extract_python_code(reply->message.content);
        if (code.empty()) {
          request.messages.push_back({Role::user, "Reply with the complete file in one ```python block.", {}, {}, {}});
          continue;
        }
        outcome.final_code = code;
        if (!can_test) break;
        // The core charges this call to the budget and explains malformed calls; we just read the result.
        auto tested = episode.call_tool({"greedy-" + std::to_string(round), "test", code_arguments(code)});
        if (!tested) break;
        if (tested->ok) {
          outcome.summary = "passed the visible shapes at round " + std::to_string(round + 1);
          return outcome;
        }
        request.messages.push_back({Role::user, "The test failed:\n" + tested->text + "\nFix the kernel.", {}, {}, {}});
      }
      outcome.summary = outcome.final_code.empty() ? "no code produced" : "kept the last candidate";
      return outcome;
    } catch (const std::exception& error) {
      return Status(StatusCode::internal, std::string("greedy workflow: ") + error.what());
    }
  }

 private:
  GreedyConfig config_;
};

Result<std::unique_ptr<Workflow>> create(const PluginContext& context) {
  auto config = parse_config<GreedyConfig>(context.config_json);
  if (!config) return config.status();
  if (config->rounds < 1) return Status(StatusCode::invalid_config, "rounds must be at least 1", "/rounds");
  return std::unique_ptr<Workflow>(std::make_unique<GreedyWorkflow>(*config));
}

void register_all(Registrar& registrar) { registrar.add_workflow("acme.workflow.greedy", create); }

}  // namespace

TRITONGYM_PLUGIN(register_all)
