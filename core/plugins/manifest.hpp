// plugin.yaml: what a plugin is, read without loading its library (`tritongym plugins list`). A library may hold
// several plugins of one kind: its manifest then lists them under `plugins` (each with its id, description, config
// and conformance), and each becomes a PluginManifest of its own that shares the library.
#pragma once

#include <string>
#include <vector>

#include "plugins/plugin_kind.hpp"
#include "tritongym/sdk/status.hpp"

namespace tritongym::plugins {

struct ConfigFieldDoc {
  std::string name;
  std::string type;           // "integer", "string", "list", ...
  std::string default_value;  // as written in plugin.yaml (YAML text), "" when none
  std::string description;
};

struct PluginManifest {
  std::string id;              // "tritongym.workflow.one-shot"
  PluginKind kind = PluginKind::workflow;
  std::string version;         // the plugin's own version, "0.1.0"
  std::string library;         // file name beside plugin.yaml
  std::string description;     // one paragraph
  std::vector<ConfigFieldDoc> config;  // documented keys of the plugin's config
  std::string conformance_config_json = "{}";  // config the conformance kit creates it with
  std::string directory;       // absolute folder of plugin.yaml
  std::string manifest_path;   // absolute path of plugin.yaml
  std::vector<std::string> library_ids;  // every id the manifest declares for the library, this one among them

  std::string library_path() const { return directory + "/" + library; }
};

// Reads and validates one plugin.yaml: every plugin it declares, in its order. Errors say file:line:column.
Result<std::vector<PluginManifest>> read_manifests(const std::string& manifest_path);
// The same for a plugin.yaml that declares one plugin; one that declares several is an error.
Result<PluginManifest> read_manifest(const std::string& manifest_path);

struct ManifestScan {
  std::vector<PluginManifest> manifests;
  std::vector<Status> errors;  // unreadable manifests; the others are still listed
};

// Finds plugin.yaml files: a search folder is either one plugin or a folder of plugin folders.
// Missing folders are skipped silently (the env var may name folders that are not there yet).
ManifestScan scan_manifests(const std::vector<std::string>& search_paths);

}  // namespace tritongym::plugins
