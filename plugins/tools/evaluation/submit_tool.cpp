// tritongym.tool.submit, and its factory (registered in register.cpp): the model's final answer. The core scores the
// submitted code on the held-out shapes when the episode ends; submitting does not reveal anything the tests did not.
#include "evaluation_tool.hpp"
#include "evaluation_tools.hpp"
#include "tritongym/sdk/config.hpp"
#include "tritongym/sdk/plugin.hpp"

namespace {

using namespace tritongym;

struct SubmitToolConfig {
  bool check_dsl = true;  // refuse code the task's DSL rejects (the model may try again)
  static constexpr auto fields() { return std::make_tuple(field("check_dsl", &SubmitToolConfig::check_dsl)); }
};

class SubmitTool final : public Tool {
 public:
  explicit SubmitTool(SubmitToolConfig config) : config_(config) {}

  ToolSchema schema() const noexcept override {
    return {"submit",
            "Submit the final candidate: the complete file. The episode ends; the code is scored on the task's "
            "held-out shapes.",
            tools::kCodeSchema};
  }

  Result<ToolResult> call(const std::string& arguments_json, ToolServices& services) noexcept override {
    try {
      std::string code = code_argument_of(arguments_json);
      if (config_.check_dsl) {
        if (const Dsl* dsl = services.dsl()) {
          if (Status rules = dsl->check_source(code); !rules.is_ok())
            return ToolResult{false, "not submitted: " + rules.message(), "{}", 0.0};
        }
      }
      if (code.find("def " + services.task().entry_function) == std::string::npos)
        return ToolResult{false, "not submitted: the code defines no function `" + services.task().entry_function + "`",
                          "{}", 0.0};
      boost::json::object record{{"submitted", true}, {"bytes", code.size()}};
      return ToolResult{true, "submitted; the episode ends and the code is scored on the held-out shapes.",
                        boost::json::serialize(record), 0.0};
    } catch (const std::exception& error) {
      return Status(StatusCode::internal, std::string("submit tool: ") + error.what());
    }
  }

 private:
  SubmitToolConfig config_;
};

}  // namespace

namespace tritongym::tools {

Result<std::unique_ptr<Tool>> create_submit_tool(const PluginContext& context) {
  auto config = parse_config<SubmitToolConfig>(context.config_json);
  if (!config) return config.status();
  return std::unique_ptr<Tool>(std::make_unique<SubmitTool>(*config));
}

}  // namespace tritongym::tools
