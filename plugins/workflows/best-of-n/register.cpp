// Registers tritongym.workflow.best-of-n: N independent answers, each tested on the visible shapes;
// the first that passes is submitted (else the last one written).
#include <boost/json.hpp>

#include "tritongym/sdk/config.hpp"
#include "tritongym/sdk/plugin.hpp"
#include "tritongym/sdk/prompts.hpp"

namespace {

using namespace tritongym;

struct BestOfNConfig {
  int64_t n = 4;
  double temperature = 0.8;  // diversity is the point
  int64_t max_output_tokens = 16384;
  static constexpr auto fields() {
    return std::make_tuple(field("n", &BestOfNConfig::n), field("temperature", &BestOfNConfig::temperature),
                           field("max_output_tokens", &BestOfNConfig::max_output_tokens));
  }
};

constexpr const char* kSystemPrompt =
    "You are an expert GPU kernel engineer. Answer with exactly one ```python fenced block holding the complete "
    "file: imports, the kernels, and the entry function.";

class BestOfNWorkflow final : public Workflow {
 public:
  explicit BestOfNWorkflow(BestOfNConfig config) : config_(config) {}

  Result<WorkflowOutcome> run(EpisodeContext& episode) noexcept override {
    try {
      const bool can_test = offers_tool(episode, "test"), can_submit = offers_tool(episode, "submit");
      WorkflowOutcome outcome;
      int64_t answered = 0, passed_at = 0;
      for (int64_t k = 1; k <= config_.n && !episode.budget_exhausted(); ++k) {
        ChatRequest request;
        request.temperature = config_.temperature;
        request.max_output_tokens = config_.max_output_tokens;
        request.tool_choice = "none";
        request.messages = {{Role::system, kSystemPrompt, {}, {}, {}},
                            // The candidate number keeps the N requests distinct (and so their records).
                            {Role::user, task_prompt(episode.task()) + "\n(Independent attempt " + std::to_string(k) +
                                             " of " + std::to_string(config_.n) + ".)", {}, {}, {}}};
        auto reply = episode.chat(request);
        if (!reply) {
          if (reply.status().code() == StatusCode::resource_exhausted) break;
          return reply.status();
        }
        std::string code = extract_python_code(reply->message.content);
        if (code.empty()) continue;
        ++answered;
        outcome.final_code = code;
        if (!can_test) continue;
        auto tested = episode.call_tool({"best-of-n-" + std::to_string(k), "test", code_arguments(code)});
        if (!tested) break;  // the budget ran out: keep the last answer
        if (tested->ok) {
          passed_at = k;
          break;
        }
      }
      if (can_submit && !outcome.final_code.empty()) {
        (void)episode.call_tool({"best-of-n-submit", "submit", code_arguments(outcome.final_code)});
      }
      outcome.summary = passed_at ? "attempt " + std::to_string(passed_at) + " passed the visible shapes"
                                  : std::to_string(answered) + " answers, none known to pass";
      return outcome;
    } catch (const std::exception& error) {
      return Status(StatusCode::internal, std::string("best-of-n workflow: ") + error.what());
    }
  }

 private:
  BestOfNConfig config_;
};

Result<std::unique_ptr<Workflow>> create(const PluginContext& context) {
  auto config = parse_config<BestOfNConfig>(context.config_json);
  if (!config) return config.status();
  if (config->n < 1) return Status(StatusCode::invalid_config, "n must be at least 1", "/n");
  return std::unique_ptr<Workflow>(std::make_unique<BestOfNWorkflow>(*config));
}

void register_all(Registrar& registrar) { registrar.add_workflow("tritongym.workflow.best-of-n", create); }

}  // namespace

TRITONGYM_PLUGIN(register_all)
