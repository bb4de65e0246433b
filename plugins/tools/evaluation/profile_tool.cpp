// tritongym.tool.profile: the tool, and its factory (registered in register.cpp).
#include "evaluation_tool.hpp"
#include "evaluation_tools.hpp"
#include "timing_text.hpp"
#include "tritongym/sdk/config.hpp"
#include "tritongym/sdk/plugin.hpp"

namespace {

using namespace tritongym;

struct ProfileToolConfig {
  double timeout_s = 300;
  int64_t max_output_chars = 6000;
  static constexpr auto fields() {
    return std::make_tuple(field("timeout_s", &ProfileToolConfig::timeout_s),
                           field("max_output_chars", &ProfileToolConfig::max_output_chars));
  }
};

class ProfileTool final : public Tool {
 public:
  explicit ProfileTool(ProfileToolConfig config) : config_(config) {}

  ToolSchema schema() const noexcept override {
    return {"profile",
            "Check the candidate on the visible shapes and report, per shape, every GPU kernel its call ran: "
            "launches, time, launch grid and block, registers per thread and shared memory, plus the achieved "
            "bandwidth and FLOP rate and the share of time spent in library kernels.",
            tools::kCodeSchema};
  }

  Result<ToolResult> call(const std::string& arguments_json, ToolServices& services) noexcept override {
    try {
      auto result = tools::evaluate_code(services, arguments_json, EvaluationStage::profile, config_.timeout_s, 1);
      if (!result) return result.status();
      std::string text = tools::evaluation_text(*result, static_cast<size_t>(config_.max_output_chars));
      for (const auto& shape : result->shapes)
        if (shape.timing) text += tools::profile_block(services.task(), shape);
      return ToolResult{result->verdict == Verdict::passed, tools::tail_of(text, static_cast<size_t>(config_.max_output_chars)),
                        tools::evaluation_record(*result), result->gpu_seconds};
    } catch (const std::exception& error) {
      return Status(StatusCode::internal, std::string("profile tool: ") + error.what());
    }
  }

 private:
  ProfileToolConfig config_;
};

}  // namespace

namespace tritongym::tools {

Result<std::unique_ptr<Tool>> create_profile_tool(const PluginContext& context) {
  auto config = parse_config<ProfileToolConfig>(context.config_json);
  if (!config) return config.status();
  if (config->timeout_s <= 0) return Status(StatusCode::invalid_config, "timeout_s must be positive", "/timeout_s");
  return std::unique_ptr<Tool>(std::make_unique<ProfileTool>(*config));
}

}  // namespace tritongym::tools
