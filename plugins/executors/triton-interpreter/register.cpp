// Registers tritongym.executor.triton-interpreter.
#include "register_executor.hpp"

namespace {

tritongym::Result<std::unique_ptr<tritongym::Executor>> create(const tritongym::PluginContext& context) {
  return tritongym::triton_executor::create_executor(tritongym::triton_executor::Target::interpreter, context);
}

void register_all(tritongym::Registrar& registrar) {
  registrar.add_executor("tritongym.executor.triton-interpreter", create);
}

}  // namespace

TRITONGYM_PLUGIN(register_all)
