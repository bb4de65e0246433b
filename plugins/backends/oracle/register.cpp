// Registers tritongym.backend.oracle: a "model" that answers every task with the task's own expert
// kernel. It is the harness's self-test: run it through any workflow and every episode must pass,
// with Perf@1 near 1.0.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tritongym/sdk/config.hpp"
#include "tritongym/sdk/plugin.hpp"
#include "tritongym/sdk/prompts.hpp"

namespace {

using namespace tritongym;
namespace fs = std::filesystem;

struct OracleConfig {
  std::string root = "tasks";  // the suites folder; a task id "standard/softmax" names <root>/standard/softmax/oracle.py
  static constexpr auto fields() { return std::make_tuple(field("root", &OracleConfig::root)); }
};

class OracleBackend final : public ModelBackend {
 public:
  explicit OracleBackend(std::string root) : root_(std::move(root)) {}

  Result<ChatResponse> chat(const ChatRequest& request) noexcept override {
    try {
      fs::path oracle = fs::path(root_) / request.task_id / "oracle.py";
      std::ifstream in(oracle);
      if (request.task_id.empty() || !in)
        return Status(StatusCode::not_found, "the oracle backend has no oracle for task '" + request.task_id +
                                                 "' (looked for " + oracle.string() + ")");
      std::stringstream code;
      code << in.rdbuf();
      ChatResponse response;
      response.model = "oracle";
      response.message.role = Role::assistant;
      response.message.content = "The task's expert kernel:\n```python\n" + code.str() + "```\n";
      // A workflow that offers `submit` gets the code through it, as a tool-using model would send it.
      for (const auto& tool : request.tools) {
        if (tool.name == "submit" && request.tool_choice != "none") {
          response.message.tool_calls.push_back({"oracle_submit", "submit", code_arguments(code.str())});
        }
      }
      response.finish_reason = response.message.tool_calls.empty() ? "stop" : "tool_calls";
      response.usage.output_tokens = static_cast<int64_t>(code.str().size() / 4);
      return response;
    } catch (const std::exception& error) {
      return Status(StatusCode::internal, std::string("oracle backend: ") + error.what());
    }
  }

  std::string model_name() const noexcept override { return "oracle"; }
  // Its answer is the oracle file as it is now: a resumed run must not be served the one recorded
  // before the file changed.
  bool replayable() const noexcept override { return false; }

 private:
  std::string root_;
};

Result<std::unique_ptr<ModelBackend>> create(const PluginContext& context) {
  auto config = parse_config<OracleConfig>(context.config_json);
  if (!config) return config.status();
  fs::path root(config->root);
  if (root.is_relative()) root = fs::path(context.project_root) / root;
  if (!fs::is_directory(root))
    return Status(StatusCode::invalid_config, "suites folder '" + root.string() + "' does not exist", "/root");
  return std::unique_ptr<ModelBackend>(std::make_unique<OracleBackend>(root.lexically_normal().string()));
}

void register_all(Registrar& registrar) { registrar.add_backend("tritongym.backend.oracle", create); }

}  // namespace

TRITONGYM_PLUGIN(register_all)
