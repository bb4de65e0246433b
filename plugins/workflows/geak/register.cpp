// Registers tritongym.workflow.geak: GEAK-style agents. Each of `candidates` parallel lines goes
// through generator -> compiler -> verifier, and then reflector (on failure) or optimizer (on success),
// for `iterations` rounds. The best passing version is submitted.
#include <boost/json.hpp>

#include "tritongym/sdk/config.hpp"
#include "tritongym/sdk/plugin.hpp"
#include "tritongym/sdk/prompts.hpp"

namespace {

using namespace tritongym;

struct GeakConfig {
  int64_t candidates = 2;  // parallel lines of work (run one after another: the episode is sequential)
  int64_t iterations = 3;  // reflect-or-optimise rounds per line after the first version
  std::optional<double> temperature;
  int64_t max_output_tokens = 16384;
  static constexpr auto fields() {
    return std::make_tuple(field("candidates", &GeakConfig::candidates), field("iterations", &GeakConfig::iterations),
                           field("temperature", &GeakConfig::temperature),
                           field("max_output_tokens", &GeakConfig::max_output_tokens));
  }
};

constexpr const char* kGenerator =
    "You are the generator of a kernel-writing team. Write a correct, fast kernel for the task. Answer with the "
    "complete file in one ```python block.";
constexpr const char* kReflector =
    "You are the reflector of a kernel-writing team. A version failed; say in two sentences why, then answer "
    "with the complete fixed file in one ```python block.";
constexpr const char* kOptimizer =
    "You are the optimizer of a kernel-writing team. The version below is correct. Make it faster (memory "
    "access, tiling, fusion, launch configuration) without breaking it. Answer with the complete file in one "
    "```python block.";

struct Line {
  std::string code, best;     // the latest version, and the latest version that passed
  std::string last_result;    // the compiler's or verifier's text about `code`
  bool passes = false;
};

class GeakWorkflow final : public Workflow {
 public:
  explicit GeakWorkflow(GeakConfig config) : config_(config) {}

  Result<WorkflowOutcome> run(EpisodeContext& episode) noexcept override {
    try {
      has_compile_ = offers_tool(episode, "compile");
      has_test_ = offers_tool(episode, "test");
      has_submit_ = offers_tool(episode, "submit");
      std::vector<Line> lines(static_cast<size_t>(config_.candidates));
      bool stop = false;
      for (int64_t round = 0; round <= config_.iterations && !stop; ++round) {
        for (size_t k = 0; k < lines.size() && !stop; ++k) {
          Line& line = lines[k];
          const char* role = line.code.empty() ? kGenerator : line.passes ? kOptimizer : kReflector;
          std::string context = line.code.empty() ? "" : "Current version:\n```python\n" + line.code + "```\n" +
                                                             "Its result:\n" + line.last_result;
          auto code = ask(episode, role, context, k, round, stop);
          if (!code) return code.status();
          if (stop || code->empty()) continue;
          line.code = code.value();
          if (!check(episode, line, k, round)) stop = true;
        }
      }
      WorkflowOutcome outcome;
      for (const auto& line : lines)
        if (outcome.final_code.empty() && !line.best.empty()) outcome.final_code = line.best;
      size_t passing = 0;
      for (const auto& line : lines) passing += line.best.empty() ? 0 : 1;
      if (outcome.final_code.empty())
        for (const auto& line : lines)
          if (!line.code.empty()) outcome.final_code = line.code;
      if (has_submit_ && !outcome.final_code.empty())
        (void)episode.call_tool({"geak-submit", "submit", code_arguments(outcome.final_code)});
      outcome.summary = std::to_string(passing) + " of " + std::to_string(lines.size()) + " lines found a passing version";
      return outcome;
    } catch (const std::exception& error) {
      return Status(StatusCode::internal, std::string("geak workflow: ") + error.what());
    }
  }

 private:
  // One agent's turn; "" when the reply holds no code. Sets `stop` when the budget is spent.
  Result<std::string> ask(EpisodeContext& episode, const char* role, const std::string& context, size_t line,
                          int64_t round, bool& stop) {
    ChatRequest request;
    request.temperature = config_.temperature;
    request.max_output_tokens = config_.max_output_tokens;
    request.tool_choice = "none";
    request.messages = {{Role::system, role, {}, {}, {}},
                        {Role::user, task_prompt(episode.task()) + "\n(Line " + std::to_string(line + 1) + ", round " +
                                         std::to_string(round + 1) + ".)\n" + context, {}, {}, {}}};
    auto reply = episode.chat(request);
    if (!reply) {
      if (reply.status().code() != StatusCode::resource_exhausted) return reply.status();
      stop = true;
      return std::string();
    }
    return extract_python_code(reply->message.content);
  }

  // The compiler, then the verifier. False when the budget is spent.
  bool check(EpisodeContext& episode, Line& line, size_t k, int64_t round) {
    std::string id = "geak-" + std::to_string(k) + "-" + std::to_string(round);
    line.passes = false;
    if (has_compile_) {
      auto compiled = episode.call_tool({id + "-compile", "compile", code_arguments(line.code)});
      if (!compiled) return false;
      line.last_result = compiled->text;
      if (!compiled->ok) return true;
    }
    if (has_test_) {
      auto tested = episode.call_tool({id + "-test", "test", code_arguments(line.code)});
      if (!tested) return false;
      line.last_result = tested->text;
      line.passes = tested->ok;
      if (line.passes) line.best = line.code;
    }
    return true;
  }

  GeakConfig config_;
  bool has_compile_ = false, has_test_ = false, has_submit_ = false;
};

Result<std::unique_ptr<Workflow>> create(const PluginContext& context) {
  auto config = parse_config<GeakConfig>(context.config_json);
  if (!config) return config.status();
  if (config->candidates < 1) return Status(StatusCode::invalid_config, "candidates must be at least 1", "/candidates");
  if (config->iterations < 0) return Status(StatusCode::invalid_config, "iterations must be 0 or more", "/iterations");
  return std::unique_ptr<Workflow>(std::make_unique<GeakWorkflow>(*config));
}

void register_all(Registrar& registrar) { registrar.add_workflow("tritongym.workflow.geak", create); }

}  // namespace

TRITONGYM_PLUGIN(register_all)
