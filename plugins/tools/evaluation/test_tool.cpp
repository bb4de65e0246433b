// tritongym.tool.test: the tool, and its factory (registered in register.cpp).
#include "evaluation_tool.hpp"
#include "evaluation_tools.hpp"
#include "tritongym/sdk/config.hpp"
#include "tritongym/sdk/plugin.hpp"

namespace {

using namespace tritongym;

struct TestToolConfig {
  double timeout_s = 120;
  int64_t seeds_per_shape = 3;
  int64_t max_output_chars = 4000;
  static constexpr auto fields() {
    return std::make_tuple(field("timeout_s", &TestToolConfig::timeout_s),
                           field("seeds_per_shape", &TestToolConfig::seeds_per_shape),
                           field("max_output_chars", &TestToolConfig::max_output_chars));
  }
};

class TestTool final : public Tool {
 public:
  explicit TestTool(TestToolConfig config) : config_(config) {}

  ToolSchema schema() const noexcept override {
    return {"test",
            "Test the candidate on the task's visible shapes with fresh random inputs and compare with the "
            "reference. Returns pass/fail per shape, the maximum absolute and relative error, and the first "
            "mismatching element.",
            tools::kCodeSchema};
  }

  Result<ToolResult> call(const std::string& arguments_json, ToolServices& services) noexcept override {
    try {
      auto result = tools::evaluate_code(services, arguments_json, EvaluationStage::test, config_.timeout_s,
                                         config_.seeds_per_shape);
      if (!result) return result.status();
      return ToolResult{result->verdict == Verdict::passed,
                        tools::evaluation_text(*result, static_cast<size_t>(config_.max_output_chars)),
                        tools::evaluation_record(*result), result->gpu_seconds};
    } catch (const std::exception& error) {
      return Status(StatusCode::internal, std::string("test tool: ") + error.what());
    }
  }

 private:
  TestToolConfig config_;
};

}  // namespace

namespace tritongym::tools {

Result<std::unique_ptr<Tool>> create_test_tool(const PluginContext& context) {
  auto config = parse_config<TestToolConfig>(context.config_json);
  if (!config) return config.status();
  if (config->timeout_s <= 0) return Status(StatusCode::invalid_config, "timeout_s must be positive", "/timeout_s");
  if (config->seeds_per_shape < 1)
    return Status(StatusCode::invalid_config, "seeds_per_shape must be at least 1", "/seeds_per_shape");
  return std::unique_ptr<Tool>(std::make_unique<TestTool>(*config));
}

}  // namespace tritongym::tools
