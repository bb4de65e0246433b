// TritonGym SDK: the plugin entry point and registration.
//
// A plugin is a shared library with exactly one exported C function, `tritongym_plugin_entry`, that
// returns a pointer to a static TritonGymPluginEntry. The host checks the record's ABI version, its
// size and the build fingerprint before calling anything else, then calls register_all() once, which
// hands factories to the host's registry. Factories are cheap (no network, no CUDA, no Python); the
// heavy work happens in the object they create. The library is never unloaded.
//
// A complete plugin:
//
//   #include <tritongym/sdk/plugin.hpp>
//   namespace {
//   void register_all(tritongym::Registrar& registrar) {
//     registrar.add_workflow("acme.workflow.greedy", [](const tritongym::PluginContext& context)
//         -> tritongym::Result<std::unique_ptr<tritongym::Workflow>> { ... });
//   }
//   }  // namespace
//   TRITONGYM_PLUGIN(register_all)
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <boost/config.hpp>  // BOOST_SYMBOL_EXPORT, as Boost.DLL expects

#include "tritongym/sdk/backend.hpp"
#include "tritongym/sdk/context.hpp"
#include "tritongym/sdk/dsl.hpp"
#include "tritongym/sdk/executor.hpp"
#include "tritongym/sdk/status.hpp"
#include "tritongym/sdk/suite.hpp"
#include "tritongym/sdk/tool.hpp"
#include "tritongym/sdk/version.hpp"
#include "tritongym/sdk/workflow.hpp"

namespace tritongym {

// Creates one object of a kind. Called by the host on any thread, possibly many times (one object per
// run or per episode). Must not throw: report problems as a Status (the host also catches, and names
// the plugin). The context is valid during the call only; copy what the object needs.
template <class Interface>
using Factory = std::function<Result<std::unique_ptr<Interface>>(const PluginContext& context)>;

// Handed to register_all(). Owned by the host; valid during register_all() only.
// Ids are namespaced and versionable: "<vendor>.<kind>.<name>", e.g. "tritongym.workflow.one-shot".
// The id must equal the `id:` of the plugin.yaml beside the library.
class Registrar {
 public:
  virtual ~Registrar() = default;
  virtual void add_backend(const std::string& id, Factory<ModelBackend> factory) = 0;
  virtual void add_tool(const std::string& id, Factory<Tool> factory) = 0;
  virtual void add_executor(const std::string& id, Factory<Executor> factory) = 0;
  virtual void add_suite(const std::string& id, Factory<Suite> factory) = 0;
  virtual void add_dsl(const std::string& id, Factory<Dsl> factory) = 0;
  virtual void add_workflow(const std::string& id, Factory<Workflow> factory) = 0;
  // Registration cannot go on (a missing data file, ...): the host refuses the plugin with this reason.
  virtual void fail(const Status& reason) = 0;
};

}  // namespace tritongym

extern "C" {

// The record every plugin returns. Append fields only at the end; the host checks record_size.
struct TritonGymPluginEntry {
  uint32_t abi_version;             // TRITONGYM_PLUGIN_ABI_VERSION the plugin was built with
  uint32_t record_size;             // sizeof(TritonGymPluginEntry) as the plugin saw it
  const char* build_fingerprint;    // TRITONGYM_BUILD_FINGERPRINT
  const char* sdk_version;          // TRITONGYM_SDK_VERSION
  void (*register_all)(tritongym::Registrar& registrar);
};

}  // extern "C"

// Name of the exported entry function; the host looks it up with Boost.DLL.
#define TRITONGYM_PLUGIN_ENTRY_SYMBOL "tritongym_plugin_entry"

// Defines the entry point of a plugin library around its registration function.
#define TRITONGYM_PLUGIN(register_function)                                                  \
  extern "C" BOOST_SYMBOL_EXPORT const TritonGymPluginEntry* tritongym_plugin_entry() noexcept { \
    static const TritonGymPluginEntry entry{TRITONGYM_PLUGIN_ABI_VERSION,                    \
                                            static_cast<uint32_t>(sizeof(TritonGymPluginEntry)), \
                                            TRITONGYM_BUILD_FINGERPRINT, TRITONGYM_SDK_VERSION,  \
                                            &register_function};                             \
    return &entry;                                                                           \
  }
