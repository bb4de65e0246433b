// Loads plugin libraries named by plugin.yaml manifests into the registry, checking the entry record
// (ABI version, record size, build fingerprint) before running any of the plugin's code. A plugin
// that fails is refused with a sentence naming its file and the cause; loading goes on with the rest.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "plugins/manifest.hpp"
#include "plugins/registry.hpp"

namespace tritongym::plugins {

struct PluginLoadOutcome {
  PluginManifest manifest;
  bool loaded = false;
  std::string message;  // why it was refused; "" when loaded
};

struct LoadReport {
  std::vector<PluginLoadOutcome> plugins;
  std::vector<Status> manifest_errors;
  size_t loaded_count() const;
};

// Folders searched for plugins, in order: the built-in folder next to the executable
// (<bin>/../plugins in a build tree, <prefix>/<libdir>/tritongym/plugins when installed), `extra_paths` from the run
// config, then TRITONGYM_PLUGIN_PATH (colon-separated).
std::vector<std::string> plugin_search_paths(const std::vector<std::string>& extra_paths = {});

// "a:b::c" -> {"a", "b", "c"} (empty entries dropped), as PATH-style variables are written.
std::vector<std::string> split_path_list(const std::string& list);

// Loads one library into `registry` (not frozen): `manifests`, every plugin its plugin.yaml declares
// (read_manifests). It must register each of them, and nothing else. Error: the refusal, naming the library.
Status load_library(const std::vector<PluginManifest>& manifests, Registry& registry);
// Loads the library of one plugin, with every other plugin its plugin.yaml declares.
Status load_plugin(const PluginManifest& manifest, Registry& registry);

// Scans the folders and loads every plugin found; freezes the registry at the end.
LoadReport load_plugins(const std::vector<std::string>& search_paths, Registry& registry);

// "compiler=gcc-12.2;stdlib=libstdc++;cxx11abi=1;sdk=0.1" -> {compiler: gcc-12.2, ...}
std::map<std::string, std::string> parse_fingerprint(const std::string& fingerprint);
// The host's own fingerprint (what a plugin must match).
const char* host_fingerprint();

}  // namespace tritongym::plugins
