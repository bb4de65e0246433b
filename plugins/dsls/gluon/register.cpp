// Registers tritongym.dsl.gluon: Gluon, Triton's lower-level dialect with explicit layouts.
#include <regex>

#include "markdown_dsl.hpp"
#include "tritongym/sdk/plugin.hpp"

namespace {

using namespace tritongym;

// What makes a plain Triton kernel however it is spelt: triton.jit as a decorator or a call, `jit` or
// JITFunction imported from triton, and the jit of a name triton was imported as. An early warning only: the
// executor checks the kernels that actually ran (Dsl::required_kernel_frontend), which no spelling escapes.
std::string plain_triton_spelling(const std::string& code) {
  static const std::regex spellings(
      R"(@\s*triton\s*\.\s*jit\b|\btriton\s*\.\s*jit\b|\bfrom\s+triton(\s*\.\s*runtime(\s*\.\s*jit)?)?\s+import\s+(\([^)]{0,300}\)|[^\n]{0,300})|\bJITFunction\b)");
  static const std::regex imports_jit(R"(\b(jit|JITFunction)\b)");
  static const std::regex triton_alias(R"(\bimport\s+triton\s+as\s+(\w+))");
  for (std::sregex_iterator it(code.begin(), code.end(), spellings), end; it != end; ++it) {
    std::string found = it->str();
    if (found.rfind("from", 0) != 0 || std::regex_search(found, imports_jit)) return found;
  }
  for (std::sregex_iterator it(code.begin(), code.end(), triton_alias), end; it != end; ++it) {
    std::smatch use;
    if (std::regex_search(code, use, std::regex("\\b" + (*it)[1].str() + R"(\s*\.\s*jit\b)"))) return use.str();
  }
  return "";
}

// A Gluon candidate imports gluon, defines its kernels with @gluon.jit, and makes no plain Triton kernel.
Status check_gluon(std::string_view source) {
  std::string code(source);
  if (code.find("triton.experimental") == std::string::npos || code.find("gluon") == std::string::npos)
    return Status(StatusCode::invalid_argument,
                  "a Gluon candidate must import it: from triton.experimental import gluon; "
                  "from triton.experimental.gluon import language as gl");
  static const std::regex gluon_jit(R"(@\s*gluon\s*\.\s*jit)");
  if (!std::regex_search(code, gluon_jit))
    return Status(StatusCode::invalid_argument, "no kernel is defined with @gluon.jit");
  if (std::string spelling = plain_triton_spelling(code); !spelling.empty())
    return Status(StatusCode::invalid_argument, "this task is in Gluon: `" + spelling.substr(0, 80) +
                                                    "` makes plain Triton kernels; write every kernel with "
                                                    "@gluon.jit, not @triton.jit");
  return {};
}

Result<std::unique_ptr<Dsl>> create(const PluginContext& context) {
  return dsls::create_markdown_dsl(context, "gluon", "gluon", check_gluon);
}

void register_all(Registrar& registrar) { registrar.add_dsl("tritongym.dsl.gluon", create); }

}  // namespace

TRITONGYM_PLUGIN(register_all)
