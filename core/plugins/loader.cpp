#include "plugins/loader.hpp"

#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <functional>

namespace tritongym::plugins {
namespace {

namespace fs = std::filesystem;

// Collects a plugin's registrations; they reach the registry only if the whole plugin is accepted.
class StagingRegistrar final : public Registrar {
 public:
  struct Staged {
    std::string id;
    PluginKind kind;
    std::function<Status(Registry&, Registry::Origin)> commit;
  };

  void add_backend(const std::string& id, Factory<ModelBackend> f) override { stage(id, std::move(f)); }
  void add_tool(const std::string& id, Factory<Tool> f) override { stage(id, std::move(f)); }
  void add_executor(const std::string& id, Factory<Executor> f) override { stage(id, std::move(f)); }
  void add_suite(const std::string& id, Factory<Suite> f) override { stage(id, std::move(f)); }
  void add_dsl(const std::string& id, Factory<Dsl> f) override { stage(id, std::move(f)); }
  void add_workflow(const std::string& id, Factory<Workflow> f) override { stage(id, std::move(f)); }
  void fail(const Status& reason) override { failure = reason.is_ok() ? Status(StatusCode::internal, "fail() with ok status") : reason; }

  std::vector<Staged> staged;
  Status failure;

 private:
  template <class Interface>
  void stage(const std::string& id, Factory<Interface> factory) {
    staged.push_back({id, KindOf<Interface>::value,
                      [id, factory = std::move(factory)](Registry& registry, Registry::Origin origin) {
                        return registry.add<Interface>(id, factory, std::move(origin));
                      }});
  }
};

std::string joined(const std::vector<std::string>& ids) {
  std::string out;
  for (const auto& id : ids) out += (out.empty() ? "" : ", ") + id;
  return out;
}

// "plugin ID (LIBRARY) refused: CAUSE"; a library of several plugins is named by all of them.
Status refuse(const PluginManifest& manifest, const std::string& cause) {
  const bool several = manifest.library_ids.size() > 1;
  return Status(StatusCode::failed_precondition,
                std::string(several ? "plugins " : "plugin ") + (several ? joined(manifest.library_ids) : manifest.id) +
                    " (" + manifest.library_path() + ") refused: " + cause,
                manifest.manifest_path);
}

// Why the dynamic loader refused a library. Boost.DLL keeps only an errno-like code ("Bad file
// descriptor" for a missing dependency), so the loader's own words come from one more dlopen.
std::string loader_reason(const PluginManifest& manifest, const boost::system::error_code& error) {
  if (void* handle = ::dlopen(manifest.library_path().c_str(), RTLD_NOW | RTLD_LOCAL)) {
    ::dlclose(handle);
    return error.message();
  }
  const char* reason = ::dlerror();
  return reason ? std::string(reason) : error.message();
}

std::string describe_fingerprint(const std::map<std::string, std::string>& parts) {
  auto get = [&](const char* key) {
    auto found = parts.find(key);
    return found == parts.end() ? std::string("?") : found->second;
  };
  return get("compiler") + ", " + get("stdlib") + " cxx11 ABI " + get("cxx11abi") + ", SDK " + get("sdk");
}

Status check_entry(const PluginManifest& manifest, const TritonGymPluginEntry* entry) {
  if (!entry) return refuse(manifest, "its entry point returned no record");
  if (entry->abi_version != TRITONGYM_PLUGIN_ABI_VERSION)
    return refuse(manifest, "it was built for plugin ABI version " + std::to_string(entry->abi_version) +
                                " but this host speaks version " + std::to_string(TRITONGYM_PLUGIN_ABI_VERSION) +
                                "; rebuild it against this SDK");
  if (entry->record_size != sizeof(TritonGymPluginEntry))
    return refuse(manifest, "its entry record is " + std::to_string(entry->record_size) +
                                " bytes but this host expects " + std::to_string(sizeof(TritonGymPluginEntry)) +
                                " (built against a different SDK header?)");
  if (!entry->build_fingerprint || !entry->register_all)
    return refuse(manifest, "its entry record has no build fingerprint or no registration function");
  auto theirs = parse_fingerprint(entry->build_fingerprint);
  auto ours = parse_fingerprint(host_fingerprint());
  for (const char* key : {"stdlib", "cxx11abi", "sdk"}) {
    if (theirs[key] != ours[key])
      return refuse(manifest, "it was built with " + describe_fingerprint(theirs) + " but this host was built with " +
                                  describe_fingerprint(ours) + " (" + key + " differs)");
  }
  return {};
}

}  // namespace

size_t LoadReport::loaded_count() const {
  size_t count = 0;
  for (const auto& plugin : plugins) count += plugin.loaded ? 1 : 0;
  return count;
}

const char* host_fingerprint() { return TRITONGYM_BUILD_FINGERPRINT; }

std::map<std::string, std::string> parse_fingerprint(const std::string& fingerprint) {
  std::map<std::string, std::string> parts;
  size_t start = 0;
  while (start < fingerprint.size()) {
    size_t end = fingerprint.find(';', start);
    if (end == std::string::npos) end = fingerprint.size();
    std::string part = fingerprint.substr(start, end - start);
    size_t equals = part.find('=');
    if (equals != std::string::npos) parts[part.substr(0, equals)] = part.substr(equals + 1);
    start = end + 1;
  }
  return parts;
}

std::vector<std::string> plugin_search_paths(const std::vector<std::string>& extra_paths) {
  std::vector<std::string> paths;
  fs::path bin = boost::dll::program_location().parent_path().string();
  for (const fs::path& candidate : {bin.parent_path() / "plugins", bin.parent_path() / TRITONGYM_INSTALL_PLUGIN_RELDIR}) {
    if (fs::is_directory(candidate)) {
      paths.push_back(candidate.lexically_normal().string());
      break;
    }
  }
  for (const auto& extra : extra_paths) paths.push_back(extra);
  if (const char* env = std::getenv("TRITONGYM_PLUGIN_PATH"))
    for (auto& folder : split_path_list(env)) paths.push_back(std::move(folder));
  return paths;
}

std::vector<std::string> split_path_list(const std::string& list) {
  std::vector<std::string> folders;
  size_t start = 0;
  while (start <= list.size()) {
    size_t colon = list.find(':', start);
    if (colon == std::string::npos) colon = list.size();
    if (colon > start) folders.push_back(list.substr(start, colon - start));
    start = colon + 1;
  }
  return folders;
}

Status load_library(const std::vector<PluginManifest>& manifests, Registry& registry) {
  if (manifests.empty()) return Status(StatusCode::invalid_argument, "load_library: no manifest");
  const PluginManifest& manifest = manifests.front();  // the library's, and what all of them share
  std::error_code exists_error;
  if (!fs::exists(manifest.library_path(), exists_error))
    return refuse(manifest, "the library named by plugin.yaml does not exist (was the plugin built?)");

  auto library = std::make_shared<boost::dll::shared_library>();
  boost::system::error_code load_error;
  library->load(manifest.library_path(), boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local, load_error);
  if (load_error) return refuse(manifest, "the library cannot be loaded: " + loader_reason(manifest, load_error));
  registry.keep_alive(library);  // never unloaded, even when refused below

  if (!library->has(TRITONGYM_PLUGIN_ENTRY_SYMBOL))
    return refuse(manifest, std::string("it exports no `") + TRITONGYM_PLUGIN_ENTRY_SYMBOL +
                                "` entry point (add TRITONGYM_PLUGIN(register_function) to one source file)");
  auto& entry_function = library->get<const TritonGymPluginEntry*()>(TRITONGYM_PLUGIN_ENTRY_SYMBOL);
  const TritonGymPluginEntry* entry = entry_function();
  if (Status status = check_entry(manifest, entry); !status.is_ok()) return status;

  StagingRegistrar registrar;
  try {
    entry->register_all(registrar);
  } catch (const std::exception& error) {
    return refuse(manifest, std::string("its registration function threw: ") + error.what());
  } catch (...) {
    return refuse(manifest, "its registration function threw a non-standard exception");
  }
  if (!registrar.failure.is_ok()) return refuse(manifest, "it reported: " + registrar.failure.message());
  if (registrar.staged.empty()) return refuse(manifest, "it registered nothing");
  // Every id it registers is one its plugin.yaml declares, of the declared kind, and every declared id is registered.
  auto declared = [&](const std::string& id) -> const PluginManifest* {
    for (const auto& m : manifests)
      if (m.id == id) return &m;
    return nullptr;
  };
  std::vector<std::string> declared_ids;
  for (const auto& m : manifests) declared_ids.push_back(m.id);
  for (const auto& staged : registrar.staged) {
    if (!declared(staged.id))
      return refuse(manifest, "it registers '" + staged.id + "', which its plugin.yaml does not declare (it declares " +
                                  (declared_ids.size() > 1 ? "ids " : "id ") + "'" + joined(declared_ids) + "')");
    if (staged.kind != manifest.kind)
      return refuse(manifest, "it registers '" + staged.id + "' as a " + std::string(kind_name(staged.kind)) +
                                  " but its plugin.yaml says kind " + kind_name(manifest.kind));
  }
  for (const auto& id : declared_ids) {
    bool registered = false;
    for (const auto& staged : registrar.staged) registered = registered || staged.id == id;
    if (!registered) return refuse(manifest, "its plugin.yaml declares '" + id + "', which it does not register");
  }
  for (const auto& staged : registrar.staged) {
    Status added = staged.commit(registry, Registry::Origin{manifest.library_path(), *declared(staged.id)});
    if (!added.is_ok()) return refuse(manifest, added.message());
  }
  return {};
}

Status load_plugin(const PluginManifest& manifest, Registry& registry) {
  if (manifest.library_ids.size() <= 1) return load_library({manifest}, registry);
  auto all = read_manifests(manifest.manifest_path);  // the library's other plugins, which it registers too
  if (!all) return refuse(manifest, "its plugin.yaml cannot be read again: " + all.status().message());
  return load_library(*all, registry);
}

LoadReport load_plugins(const std::vector<std::string>& search_paths, Registry& registry) {
  LoadReport report;
  ManifestScan scan = scan_manifests(search_paths);
  report.manifest_errors = std::move(scan.errors);
  // One load per library: the manifests of one plugin.yaml come one after the other.
  for (size_t first = 0; first < scan.manifests.size();) {
    size_t end = first + 1;
    while (end < scan.manifests.size() && scan.manifests[end].manifest_path == scan.manifests[first].manifest_path) ++end;
    std::vector<PluginManifest> library(scan.manifests.begin() + first, scan.manifests.begin() + end);
    Status status = load_library(library, registry);
    for (auto& manifest : library)
      report.plugins.push_back({std::move(manifest), status.is_ok(), status.is_ok() ? "" : status.message()});
    first = end;
  }
  registry.freeze();
  return report;
}

}  // namespace tritongym::plugins
