// tritongym.tool.benchmark: the tool, and its factory (registered in register.cpp).
#include "evaluation_tool.hpp"
#include "evaluation_tools.hpp"
#include "timing_text.hpp"
#include "tritongym/sdk/config.hpp"
#include "tritongym/sdk/plugin.hpp"

namespace {

using namespace tritongym;

struct BenchmarkToolConfig {
  double timeout_s = 300;
  int64_t seeds_per_shape = 1;
  bool reveal_oracle = false;  // the oracle's latency is shown only when the run says so
  int64_t max_output_chars = 4000;
  static constexpr auto fields() {
    return std::make_tuple(field("timeout_s", &BenchmarkToolConfig::timeout_s),
                           field("seeds_per_shape", &BenchmarkToolConfig::seeds_per_shape),
                           field("reveal_oracle", &BenchmarkToolConfig::reveal_oracle),
                           field("max_output_chars", &BenchmarkToolConfig::max_output_chars));
  }
};

class BenchmarkTool final : public Tool {
 public:
  explicit BenchmarkTool(BenchmarkToolConfig config) : config_(config) {}

  ToolSchema schema() const noexcept override {
    return {"benchmark",
            "Check the candidate on the task's visible shapes, then time it there: per shape the median kernel "
            "time over many calls (cold L2), its spread, the speedup over PyTorch eager and over torch.compile, "
            "and the percentage of the speed-of-light floor. A result that cannot be trusted is flagged, with why.",
            tools::kCodeSchema};
  }

  Result<ToolResult> call(const std::string& arguments_json, ToolServices& services) noexcept override {
    try {
      auto result = tools::evaluate_code(services, arguments_json, EvaluationStage::benchmark, config_.timeout_s,
                                         config_.seeds_per_shape);
      if (!result) return result.status();
      std::string text = tools::evaluation_text(*result, static_cast<size_t>(config_.max_output_chars));
      if (result->verdict == Verdict::passed) {
        bool timed = false;
        for (const auto& shape : result->shapes) timed = timed || shape.timing.has_value();
        if (timed) {
          text += "timing per shape:\n";
          for (const auto& shape : result->shapes)
            text += "  " + tools::timing_line(services.task(), shape, config_.reveal_oracle) + "\n";
        }
      }
      return ToolResult{result->verdict == Verdict::passed, tools::tail_of(text, static_cast<size_t>(config_.max_output_chars)),
                        tools::evaluation_record(*result), result->gpu_seconds};
    } catch (const std::exception& error) {
      return Status(StatusCode::internal, std::string("benchmark tool: ") + error.what());
    }
  }

 private:
  BenchmarkToolConfig config_;
};

}  // namespace

namespace tritongym::tools {

Result<std::unique_ptr<Tool>> create_benchmark_tool(const PluginContext& context) {
  auto config = parse_config<BenchmarkToolConfig>(context.config_json);
  if (!config) return config.status();
  if (config->timeout_s <= 0) return Status(StatusCode::invalid_config, "timeout_s must be positive", "/timeout_s");
  if (config->seeds_per_shape < 1)
    return Status(StatusCode::invalid_config, "seeds_per_shape must be at least 1", "/seeds_per_shape");
  return std::unique_ptr<Tool>(std::make_unique<BenchmarkTool>(*config));
}

}  // namespace tritongym::tools
