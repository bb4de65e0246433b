// Registers the five evaluating tools, the ids plugin.yaml declares for this library.
#include "evaluation_tools.hpp"

namespace {

void register_all(tritongym::Registrar& registrar) {
  using namespace tritongym::tools;
  registrar.add_tool("tritongym.tool.compile", create_compile_tool);
  registrar.add_tool("tritongym.tool.test", create_test_tool);
  registrar.add_tool("tritongym.tool.benchmark", create_benchmark_tool);
  registrar.add_tool("tritongym.tool.profile", create_profile_tool);
  registrar.add_tool("tritongym.tool.submit", create_submit_tool);
}

}  // namespace

TRITONGYM_PLUGIN(register_all)
