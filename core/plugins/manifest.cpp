#include "plugins/manifest.hpp"

#include <boost/json/serialize.hpp>

#include <cctype>
#include <filesystem>
#include <regex>

#include "config/json_bridge.hpp"
#include "config/schema.hpp"
#include "config/yaml_loader.hpp"

namespace tritongym::plugins {
namespace {

namespace fs = std::filesystem;
using config::ConfigNode;
using config::Schema;

// What a plugin declares of itself: its id, description, documented config and the config the conformance kit
// creates it with. At the top of plugin.yaml for a library of one plugin, or per entry of `plugins`.
Schema& declare_plugin(Schema& schema, bool required) {
  Schema field = Schema::object();
  field.field("type", Schema::string().one_of({"boolean", "integer", "number", "string", "list", "mapping", "any"}), true)
      .field("default", Schema::any())
      .field("description", Schema::string());
  Schema conformance = Schema::object();
  conformance.field("config", Schema::any());
  return schema.field("id", Schema::string(), required, "namespaced, e.g. acme.workflow.greedy")
      .field("description", Schema::string(), required)
      .field("config", Schema::map_of(field))
      .field("conformance", conformance);
}

const Schema& manifest_schema() {
  static const Schema schema = [] {
    Schema entry = Schema::object();
    declare_plugin(entry, true);
    Schema manifest = Schema::object();
    declare_plugin(manifest, false)
        .field("kind", Schema::string().one_of(kind_names()), true)
        .field("version", Schema::string(), true)
        .field("library", Schema::string(), true, "the shared library file beside plugin.yaml")
        .field("plugins", Schema::list_of(entry), false, "several plugins of one kind that the library registers");
    return manifest;
  }();
  return schema;
}

// One declared plugin (`node`: the manifest's top, or an entry of `plugins`) on the manifest's shared fields.
Result<PluginManifest> declared(const PluginManifest& shared, const ConfigNode& node) {
  PluginManifest manifest = shared;
  manifest.id = node.find("id")->text();
  manifest.description = node.find("description")->text();
  while (!manifest.description.empty() && std::isspace(static_cast<unsigned char>(manifest.description.back())))
    manifest.description.pop_back();
  static const std::regex id_pattern(R"(^[a-z0-9][a-z0-9_-]*\.([a-z]+)\.[a-z0-9][a-z0-9._-]*$)");
  std::smatch match;
  if (!std::regex_match(manifest.id, match, id_pattern) || match[1] != kind_name(manifest.kind))
    return Status(StatusCode::invalid_config,
                  "id '" + manifest.id + "' must look like <vendor>." + kind_name(manifest.kind) +
                      ".<name> (lower case; the middle part is the kind)",
                  node.find("id")->where().to_string());
  if (const ConfigNode* fields = node.find("config")) {
    for (const auto& entry : fields->entries()) {
      ConfigFieldDoc doc;
      doc.name = entry.key;
      doc.type = entry.value.find("type")->text();
      if (const ConfigNode* value = entry.value.find("default")) {
        doc.default_value = boost::json::serialize(config::to_json(*value));
      }
      if (const ConfigNode* description = entry.value.find("description")) doc.description = description->text();
      manifest.config.push_back(std::move(doc));
    }
  }
  if (const ConfigNode* conformance = node.find("conformance"))
    if (const ConfigNode* config_node = conformance->find("config"))
      manifest.conformance_config_json = boost::json::serialize(config::to_json(*config_node));
  return manifest;
}

}  // namespace

Result<std::vector<PluginManifest>> read_manifests(const std::string& manifest_path) {
  auto loaded = config::load_yaml_file(manifest_path);
  if (!loaded) return loaded.status();
  const ConfigNode& root = loaded.value();
  Status valid = manifest_schema().validate(root);
  if (!valid.is_ok()) return valid;

  PluginManifest shared;
  shared.manifest_path = fs::absolute(manifest_path).lexically_normal().string();
  shared.directory = fs::path(shared.manifest_path).parent_path().string();
  shared.kind = *parse_kind(root.find("kind")->text());
  shared.version = root.find("version")->text();
  shared.library = root.find("library")->text();
  if (shared.library.find('/') != std::string::npos)
    return Status(StatusCode::invalid_config, "library must be a file name beside plugin.yaml, not a path",
                  root.find("library")->where().to_string());

  // Either one plugin, declared at the top, or a list of them under `plugins`: never both, never neither.
  const ConfigNode* list = root.find("plugins");
  for (const char* key : {"id", "description", "config", "conformance"}) {
    const ConfigNode* top = root.find(key);
    if (list && top)
      return Status(StatusCode::invalid_config,
                    std::string("'") + key + "' belongs to each entry of 'plugins' in a manifest that has them",
                    top->where().to_string());
    if (!list && !top && (std::string(key) == "id" || std::string(key) == "description"))
      return Status(StatusCode::invalid_config,
                    std::string("missing required key '") + key + "' (or 'plugins', a list of plugins that each have it)",
                    root.where().to_string());
  }
  if (list && list->items().empty())
    return Status(StatusCode::invalid_config, "'plugins' lists no plugin", list->where().to_string());

  std::vector<PluginManifest> manifests;
  std::vector<const ConfigNode*> nodes;
  if (list) for (const auto& item : list->items()) nodes.push_back(&item);
  else nodes.push_back(&root);
  for (const ConfigNode* node : nodes) {
    auto manifest = declared(shared, *node);
    if (!manifest) return manifest.status();
    for (const auto& earlier : manifests)
      if (earlier.id == manifest->id)
        return Status(StatusCode::invalid_config, "id '" + manifest->id + "' is declared twice",
                      node->find("id")->where().to_string());
    manifests.push_back(std::move(manifest.value()));
  }
  std::vector<std::string> ids;
  for (const auto& manifest : manifests) ids.push_back(manifest.id);
  for (auto& manifest : manifests) manifest.library_ids = ids;
  return manifests;
}

Result<PluginManifest> read_manifest(const std::string& manifest_path) {
  auto manifests = read_manifests(manifest_path);
  if (!manifests) return manifests.status();
  if (manifests->size() != 1)
    return Status(StatusCode::invalid_config,
                  "declares " + std::to_string(manifests->size()) + " plugins; read_manifests() reads each of them",
                  manifest_path);
  return std::move(manifests->front());
}

ManifestScan scan_manifests(const std::vector<std::string>& search_paths) {
  ManifestScan scan;
  std::vector<std::string> seen;
  auto take = [&](const fs::path& manifest_path) {
    std::string key = fs::weakly_canonical(manifest_path).string();
    for (const auto& done : seen)
      if (done == key) return;
    seen.push_back(key);
    auto manifests = read_manifests(manifest_path.string());
    if (!manifests) scan.errors.push_back(manifests.status());
    else for (auto& manifest : *manifests) scan.manifests.push_back(std::move(manifest));
  };
  for (const auto& folder : search_paths) {
    std::error_code error;
    if (!fs::is_directory(folder, error)) continue;
    if (fs::exists(fs::path(folder) / "plugin.yaml")) {
      take(fs::path(folder) / "plugin.yaml");
      continue;
    }
    std::vector<fs::path> children;
    for (const auto& child : fs::directory_iterator(folder, error))
      if (child.is_directory() && fs::exists(child.path() / "plugin.yaml")) children.push_back(child.path());
    std::sort(children.begin(), children.end());
    for (const auto& child : children) take(child / "plugin.yaml");
  }
  return scan;
}

}  // namespace tritongym::plugins
