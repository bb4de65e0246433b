// tritongym.tool.compile: the tool, and its factory (registered in register.cpp).
#include <boost/json.hpp>

#include <sstream>

#include "evaluation_tool.hpp"
#include "evaluation_tools.hpp"
#include "tritongym/sdk/config.hpp"
#include "tritongym/sdk/plugin.hpp"

namespace {

using namespace tritongym;

struct CompileToolConfig {
  double timeout_s = 120;
  int64_t max_output_chars = 4000;
  static constexpr auto fields() {
    return std::make_tuple(field("timeout_s", &CompileToolConfig::timeout_s),
                           field("max_output_chars", &CompileToolConfig::max_output_chars));
  }
};

// "add_kernel: 32 registers, 0 spills, 0 B shared memory, 4 warps" per compiled kernel.
std::string kernel_lines(const std::string& record_json) {
  boost::system::error_code error;
  auto record = boost::json::parse(record_json, error);
  const boost::json::value* kernels = error || !record.is_object() ? nullptr : record.as_object().if_contains("kernels");
  if (!kernels || !kernels->is_array() || kernels->as_array().empty())
    return "kernels: no compiled kernel statistics (the interpreter does not compile; a GPU executor reports them)\n";
  std::ostringstream text;
  text << "kernels:\n";
  for (const auto& entry : kernels->as_array()) {
    const auto& kernel = entry.as_object();
    auto number = [&](const char* key) -> std::string {
      const auto* value = kernel.if_contains(key);
      return value && value->is_int64() ? std::to_string(value->as_int64()) : "?";
    };
    const auto* name = kernel.if_contains("name");
    text << "  " << (name && name->is_string() ? std::string(name->as_string()) : "?") << ": " << number("registers")
         << " registers, " << number("spills") << " spills, " << number("shared_memory_bytes") << " B shared memory, "
         << number("num_warps") << " warps, " << number("num_stages") << " stages\n";
  }
  return text.str();
}

class CompileTool final : public Tool {
 public:
  explicit CompileTool(CompileToolConfig config) : config_(config) {}

  ToolSchema schema() const noexcept override {
    return {"compile",
            "Compile the candidate: import it and run it once on one shape so its kernels compile. Returns compile "
            "errors with line numbers, or each kernel's registers, spills and shared memory. Does not check results.",
            tools::kCodeSchema};
  }

  Result<ToolResult> call(const std::string& arguments_json, ToolServices& services) noexcept override {
    try {
      auto result = tools::evaluate_code(services, arguments_json, EvaluationStage::compile, config_.timeout_s, 1);
      if (!result) return result.status();
      std::string text = tools::evaluation_text(*result, static_cast<size_t>(config_.max_output_chars));
      if (result->verdict == Verdict::passed) text = "compiled.\n" + kernel_lines(result->record_json) + text;
      return ToolResult{result->verdict == Verdict::passed, text, tools::evaluation_record(*result), result->gpu_seconds};
    } catch (const std::exception& error) {
      return Status(StatusCode::internal, std::string("compile tool: ") + error.what());
    }
  }

 private:
  CompileToolConfig config_;
};

}  // namespace

namespace tritongym::tools {

Result<std::unique_ptr<Tool>> create_compile_tool(const PluginContext& context) {
  auto config = parse_config<CompileToolConfig>(context.config_json);
  if (!config) return config.status();
  if (config->timeout_s <= 0) return Status(StatusCode::invalid_config, "timeout_s must be positive", "/timeout_s");
  return std::unique_ptr<Tool>(std::make_unique<CompileTool>(*config));
}

}  // namespace tritongym::tools
