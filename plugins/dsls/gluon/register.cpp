// Registers tritongym.dsl.gluon: Gluon, Triton's lower-level dialect with explicit layouts.
#include <regex>

#include "markdown_dsl.hpp"
#include "tritongym/sdk/plugin.hpp"

namespace {

using namespace tritongym;

// A Gluon candidate imports gluon, defines its kernels with @gluon.jit, and no @triton.jit kernel.
Status check_gluon(std::string_view source) {
  std::string code(source);
  if (code.find("triton.experimental") == std::string::npos || code.find("gluon") == std::string::npos)
    return Status(StatusCode::invalid_argument,
                  "a Gluon candidate must import it: from triton.experimental import gluon; "
                  "from triton.experimental.gluon import language as gl");
  static const std::regex gluon_jit(R"(@\s*gluon\s*\.\s*jit)");
  static const std::regex triton_jit(R"(@\s*triton\s*\.\s*jit)");
  if (!std::regex_search(code, gluon_jit))
    return Status(StatusCode::invalid_argument, "no kernel is defined with @gluon.jit");
  if (std::regex_search(code, triton_jit))
    return Status(StatusCode::invalid_argument,
                  "this task is in Gluon: write every kernel with @gluon.jit, not @triton.jit");
  return {};
}

Result<std::unique_ptr<Dsl>> create(const PluginContext& context) {
  return dsls::create_markdown_dsl(context, "gluon", check_gluon);
}

void register_all(Registrar& registrar) { registrar.add_dsl("tritongym.dsl.gluon", create); }

}  // namespace

TRITONGYM_PLUGIN(register_all)
