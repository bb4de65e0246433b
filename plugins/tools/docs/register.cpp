// Registers tritongym.tool.docs: the task DSL's bundled reference, searched by a query.
#include <boost/json.hpp>

#include "tritongym/sdk/config.hpp"
#include "tritongym/sdk/dsl.hpp"
#include "tritongym/sdk/plugin.hpp"

namespace {

using namespace tritongym;

struct DocsToolConfig {
  static constexpr auto fields() { return std::make_tuple(); }
};

class DocsTool final : public Tool {
 public:
  ToolSchema schema() const noexcept override {
    return {"docs",
            "Search the reference of the task's kernel language (its API, layouts, idioms) and return the "
            "matching sections.",
            R"({"type":"object","properties":{"query":{"type":"string","description":"what to look up, e.g. 'shared memory layout'"}},"required":["query"],"additionalProperties":false})"};
  }

  Result<ToolResult> call(const std::string& arguments_json, ToolServices& services) noexcept override {
    try {
      std::string query(boost::json::parse(arguments_json).as_object().at("query").as_string());
      const Dsl* dsl = services.dsl();
      if (!dsl)
        return ToolResult{false, "no reference is installed for this task's DSL (" + services.task().dsl + ")", "{}", 0.0};
      auto answer = dsl->docs(query);
      if (!answer) return answer.status();
      boost::json::object record{{"query", query}, {"dsl", dsl->name()}, {"chars", answer->size()}};
      return ToolResult{true, answer.value(), boost::json::serialize(record), 0.0};
    } catch (const std::exception& error) {
      return Status(StatusCode::internal, std::string("docs tool: ") + error.what());
    }
  }
};

Result<std::unique_ptr<Tool>> create(const PluginContext& context) {
  auto config = parse_config<DocsToolConfig>(context.config_json);
  if (!config) return config.status();
  return std::unique_ptr<Tool>(std::make_unique<DocsTool>());
}

void register_all(Registrar& registrar) { registrar.add_tool("tritongym.tool.docs", create); }

}  // namespace

TRITONGYM_PLUGIN(register_all)
