// The host's registry of plugin factories, by kind and id. Filled by the loader, then frozen; after
// that it is read-only and safe to use from any thread. It keeps every loaded library alive for the
// life of the process (libraries are never unloaded).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <boost/dll/shared_library.hpp>

#include "plugins/manifest.hpp"
#include "plugins/plugin_kind.hpp"
#include "tritongym/sdk/did_you_mean.hpp"
#include "tritongym/sdk/plugin.hpp"

namespace tritongym::plugins {

class Registry {
 public:
  struct Origin {
    std::string library_path;  // "" for factories registered by the host itself (tests)
    PluginManifest manifest;
  };

  // Adds a factory. Fails (and changes nothing) if the registry is frozen or the id is taken; the
  // message names both libraries.
  Registry() = default;
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;
  // Drops the factories, then deliberately leaks the library handles: objects a plugin created may
  // outlive the registry, so a plugin library is never unloaded; the OS unmaps it at exit.
  ~Registry();

  template <class Interface>
  Status add(const std::string& id, Factory<Interface> factory, Origin origin);

  // Keeps a library loaded for the life of the registry, whether or not it registered anything.
  void keep_alive(std::shared_ptr<boost::dll::shared_library> library);

  void freeze() { frozen_ = true; }
  bool frozen() const { return frozen_; }

  // Creates an object. Unknown ids get a did-you-mean; a factory that throws or returns an error is
  // reported with the plugin's id and library.
  template <class Interface>
  Result<std::unique_ptr<Interface>> create(const std::string& id, const PluginContext& context) const;

  bool contains(PluginKind kind, const std::string& id) const;
  std::vector<std::string> ids(PluginKind kind) const;
  const Origin* origin(const std::string& id) const;

  // "unknown workflow 'one-shoot' (did you mean 'tritongym.workflow.one-shot'?)"
  Status unknown_id(PluginKind kind, const std::string& id) const;

 private:
  struct Slot {
    PluginKind kind;
    Origin origin;
    std::shared_ptr<void> factory;  // Factory<Interface> of the slot's kind
  };
  std::vector<std::shared_ptr<boost::dll::shared_library>> libraries_;
  std::map<std::string, Slot> slots_;
  bool frozen_ = false;
};

template <class Interface>
Status Registry::add(const std::string& id, Factory<Interface> factory, Origin origin) {
  if (frozen_) return Status(StatusCode::failed_precondition, "the plugin registry is frozen; '" + id + "' comes too late");
  auto existing = slots_.find(id);
  if (existing != slots_.end()) {
    auto describe = [](const Origin& o) { return o.library_path.empty() ? std::string("the host") : o.library_path; };
    return Status(StatusCode::failed_precondition, "duplicate plugin id '" + id + "': registered by " +
                                                       describe(existing->second.origin) + " and again by " +
                                                       describe(origin) + "; the second is refused");
  }
  slots_.emplace(id, Slot{KindOf<Interface>::value, std::move(origin),
                          std::make_shared<Factory<Interface>>(std::move(factory))});
  return {};
}

template <class Interface>
Result<std::unique_ptr<Interface>> Registry::create(const std::string& id, const PluginContext& context) const {
  constexpr PluginKind kind = KindOf<Interface>::value;
  auto found = slots_.find(id);
  if (found == slots_.end() || found->second.kind != kind) return unknown_id(kind, id);
  const Slot& slot = found->second;
  const auto& factory = *std::static_pointer_cast<Factory<Interface>>(slot.factory);
  std::string from = " (plugin " + id + " in " + slot.origin.library_path + ")";
  try {
    auto created = factory(context);
    if (!created) {
      Status status = created.status();
      return Status(status.code(), status.message(), status.location());
    }
    if (!created.value()) return Status(StatusCode::internal, "factory returned no object" + from);
    return std::move(created.value());
  } catch (const std::exception& error) {
    return Status(StatusCode::internal, std::string("factory threw: ") + error.what() + from);
  } catch (...) {
    return Status(StatusCode::internal, "factory threw a non-standard exception" + from);
  }
}

}  // namespace tritongym::plugins
