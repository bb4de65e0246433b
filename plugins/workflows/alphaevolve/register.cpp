// Registers tritongym.workflow.alphaevolve: AlphaEvolve-style evolutionary search. A program database
// holds the scored versions; each generation samples a parent by tournament (and an inspiration), asks
// the model to mutate the parent, evaluates the child with the test tool and keeps the fittest.
// Fitness is the fraction of visible shapes passed (speed joins it when the benchmark tool lands).
#include <boost/json.hpp>

#include <algorithm>
#include <random>

#include "tritongym/sdk/config.hpp"
#include "tritongym/sdk/plugin.hpp"
#include "tritongym/sdk/prompts.hpp"

namespace {

using namespace tritongym;

struct AlphaEvolveConfig {
  int64_t generations = 8;      // children bred (model turns after the seed programs)
  int64_t seed_programs = 2;    // first generation, written from scratch
  int64_t population = 6;       // programs kept in the database
  int64_t tournament = 3;       // programs drawn to pick a parent
  int64_t random_seed = 0;      // with the sample index: a reproducible search per sample
  std::optional<double> temperature;
  int64_t max_output_tokens = 16384;
  static constexpr auto fields() {
    return std::make_tuple(
        field("generations", &AlphaEvolveConfig::generations), field("seed_programs", &AlphaEvolveConfig::seed_programs),
        field("population", &AlphaEvolveConfig::population), field("tournament", &AlphaEvolveConfig::tournament),
        field("random_seed", &AlphaEvolveConfig::random_seed), field("temperature", &AlphaEvolveConfig::temperature),
        field("max_output_tokens", &AlphaEvolveConfig::max_output_tokens));
  }
};

struct Program {
  std::string code;
  double fitness = 0;   // fraction of visible shapes passed
  std::string result;   // the test tool's text
  int64_t born = 0;     // generation
};

// The fraction of shapes the test tool's record says passed (0 for a compile error or a crash).
double fitness_of(const ToolResult& result) {
  if (result.ok) return 1.0;
  boost::system::error_code error;
  auto record = boost::json::parse(result.record_json, error);
  if (error || !record.is_object()) return 0.0;
  const auto* shapes = record.as_object().if_contains("shapes");
  if (!shapes || !shapes->is_array() || shapes->as_array().empty()) return 0.0;
  double passed = 0;
  for (const auto& shape : shapes->as_array())
    if (const auto* ok = shape.as_object().if_contains("passed"); ok && ok->is_bool() && ok->as_bool()) passed += 1;
  return 0.9 * passed / static_cast<double>(shapes->as_array().size());  // a full pass always ranks higher
}

class AlphaEvolveWorkflow final : public Workflow {
 public:
  explicit AlphaEvolveWorkflow(AlphaEvolveConfig config) : config_(config) {}

  Result<WorkflowOutcome> run(EpisodeContext& episode) noexcept override {
    try {
      const bool can_test = offers_tool(episode, "test"), can_submit = offers_tool(episode, "submit");
      std::mt19937_64 random(static_cast<uint64_t>(config_.random_seed) * 1000003u +
                             static_cast<uint64_t>(episode.sample_index()));
      std::vector<Program> database;
      int64_t total = config_.seed_programs + config_.generations;
      for (int64_t generation = 0; generation < total && !episode.budget_exhausted(); ++generation) {
        bool seeding = generation < config_.seed_programs || database.empty();
        std::string prompt = task_prompt(episode.task()) + "\n(Program " + std::to_string(generation + 1) + ".)\n";
        if (!seeding) {
          const Program& parent = pick(database, random);
          const Program& inspiration = database[std::uniform_int_distribution<size_t>(0, database.size() - 1)(random)];
          prompt += "Parent program (fitness " + std::to_string(parent.fitness) + "):\n```python\n" + parent.code +
                    "```\nIts test result:\n" + parent.result + "\n";
          if (&inspiration != &parent)
            prompt += "Another program from the population, for inspiration (fitness " +
                      std::to_string(inspiration.fitness) + "):\n```python\n" + inspiration.code + "```\n";
          prompt += "Write an improved child of the parent: fix what fails, then make it faster.";
        }
        ChatRequest request;
        request.temperature = config_.temperature;
        request.max_output_tokens = config_.max_output_tokens;
        request.tool_choice = "none";
        request.messages = {{Role::system,
                             "You evolve GPU kernels. Answer with the complete program in one ```python block.", {}, {},
                             {}},
                            {Role::user, prompt, {}, {}, {}}};
        auto reply = episode.chat(request);
        if (!reply) {
          if (reply.status().code() == StatusCode::resource_exhausted) break;
          return reply.status();
        }
        Program child{extract_python_code(reply->message.content), 0.0, "not tested", generation};
        if (child.code.empty()) continue;
        if (can_test) {
          auto tested = episode.call_tool({"evolve-" + std::to_string(generation), "test", code_arguments(child.code)});
          if (!tested) {
            database.push_back(child);
            break;
          }
          child.fitness = fitness_of(*tested);
          child.result = tested->text.substr(0, 1500);
        }
        database.push_back(std::move(child));
        // Keep the fittest; among equals the younger (it had the most feedback behind it).
        std::stable_sort(database.begin(), database.end(), [](const Program& a, const Program& b) {
          return a.fitness != b.fitness ? a.fitness > b.fitness : a.born > b.born;
        });
        if (database.size() > static_cast<size_t>(config_.population)) database.resize(static_cast<size_t>(config_.population));
      }
      WorkflowOutcome outcome;
      if (!database.empty()) outcome.final_code = database.front().code;
      if (can_submit && !outcome.final_code.empty())
        (void)episode.call_tool({"evolve-submit", "submit", code_arguments(outcome.final_code)});
      outcome.summary = database.empty() ? "no program"
                                         : "best fitness " + std::to_string(database.front().fitness) + " from generation " +
                                               std::to_string(database.front().born + 1);
      return outcome;
    } catch (const std::exception& error) {
      return Status(StatusCode::internal, std::string("alphaevolve workflow: ") + error.what());
    }
  }

 private:
  // Tournament selection: the fittest of `tournament` programs drawn at random.
  const Program& pick(const std::vector<Program>& database, std::mt19937_64& random) const {
    std::uniform_int_distribution<size_t> any(0, database.size() - 1);
    size_t best = any(random);
    for (int64_t i = 1; i < config_.tournament; ++i) {
      size_t other = any(random);
      if (database[other].fitness > database[best].fitness) best = other;
    }
    return database[best];
  }

  AlphaEvolveConfig config_;
};

Result<std::unique_ptr<Workflow>> create(const PluginContext& context) {
  auto config = parse_config<AlphaEvolveConfig>(context.config_json);
  if (!config) return config.status();
  if (config->seed_programs < 1) return Status(StatusCode::invalid_config, "seed_programs must be at least 1", "/seed_programs");
  if (config->population < 1) return Status(StatusCode::invalid_config, "population must be at least 1", "/population");
  if (config->tournament < 1) return Status(StatusCode::invalid_config, "tournament must be at least 1", "/tournament");
  if (config->generations < 0) return Status(StatusCode::invalid_config, "generations must be 0 or more", "/generations");
  return std::unique_ptr<Workflow>(std::make_unique<AlphaEvolveWorkflow>(*config));
}

void register_all(Registrar& registrar) { registrar.add_workflow("tritongym.workflow.alphaevolve", create); }

}  // namespace

TRITONGYM_PLUGIN(register_all)
