// The factories of the five tools that judge a candidate through the executor (compile, test, benchmark, profile,
// submit): one library registers all five (register.cpp), each under the id its plugin.yaml declares.
#pragma once

#include <memory>

#include "tritongym/sdk/plugin.hpp"
#include "tritongym/sdk/tool.hpp"

namespace tritongym::tools {

Result<std::unique_ptr<Tool>> create_compile_tool(const PluginContext& context);
Result<std::unique_ptr<Tool>> create_test_tool(const PluginContext& context);
Result<std::unique_ptr<Tool>> create_benchmark_tool(const PluginContext& context);
Result<std::unique_ptr<Tool>> create_profile_tool(const PluginContext& context);
Result<std::unique_ptr<Tool>> create_submit_tool(const PluginContext& context);

}  // namespace tritongym::tools
