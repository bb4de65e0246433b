// plugin.yaml: what a plugin is, read without loading its library (`tritongym plugins list`).
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

  std::string library_path() const { return directory + "/" + library; }
};

// Reads and validates one plugin.yaml. Errors say file:line:column.
Result<PluginManifest> read_manifest(const std::string& manifest_path);

struct ManifestScan {
  std::vector<PluginManifest> manifests;
  std::vector<Status> errors;  // unreadable manifests; the others are still listed
};

// Finds plugin.yaml files: a search folder is either one plugin or a folder of plugin folders.
// Missing folders are skipped silently (the env var may name folders that are not there yet).
ManifestScan scan_manifests(const std::vector<std::string>& search_paths);

}  // namespace tritongym::plugins
