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

const Schema& manifest_schema() {
  static const Schema schema = [] {
    Schema field = Schema::object();
    field.field("type", Schema::string().one_of({"boolean", "integer", "number", "string", "list", "mapping", "any"}), true)
        .field("default", Schema::any())
        .field("description", Schema::string());
    Schema conformance = Schema::object();
    conformance.field("config", Schema::any());
    Schema manifest = Schema::object();
    manifest.field("id", Schema::string(), true, "namespaced, e.g. acme.workflow.greedy")
        .field("kind", Schema::string().one_of(kind_names()), true)
        .field("version", Schema::string(), true)
        .field("library", Schema::string(), true, "the shared library file beside plugin.yaml")
        .field("description", Schema::string(), true)
        .field("config", Schema::map_of(field))
        .field("conformance", conformance);
    return manifest;
  }();
  return schema;
}

}  // namespace

Result<PluginManifest> read_manifest(const std::string& manifest_path) {
  auto loaded = config::load_yaml_file(manifest_path);
  if (!loaded) return loaded.status();
  const ConfigNode& root = loaded.value();
  Status valid = manifest_schema().validate(root);
  if (!valid.is_ok()) return valid;

  PluginManifest manifest;
  manifest.manifest_path = fs::absolute(manifest_path).lexically_normal().string();
  manifest.directory = fs::path(manifest.manifest_path).parent_path().string();
  manifest.id = root.find("id")->text();
  manifest.kind = *parse_kind(root.find("kind")->text());
  manifest.version = root.find("version")->text();
  manifest.library = root.find("library")->text();
  manifest.description = root.find("description")->text();
  while (!manifest.description.empty() && std::isspace(static_cast<unsigned char>(manifest.description.back())))
    manifest.description.pop_back();

  static const std::regex id_pattern(R"(^[a-z0-9][a-z0-9_-]*\.([a-z]+)\.[a-z0-9][a-z0-9._-]*$)");
  std::smatch match;
  if (!std::regex_match(manifest.id, match, id_pattern) || match[1] != kind_name(manifest.kind))
    return Status(StatusCode::invalid_config,
                  "id '" + manifest.id + "' must look like <vendor>." + kind_name(manifest.kind) +
                      ".<name> (lower case; the middle part is the kind)",
                  root.find("id")->where().to_string());
  if (manifest.library.find('/') != std::string::npos)
    return Status(StatusCode::invalid_config, "library must be a file name beside plugin.yaml, not a path",
                  root.find("library")->where().to_string());

  if (const ConfigNode* fields = root.find("config")) {
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
  if (const ConfigNode* conformance = root.find("conformance"))
    if (const ConfigNode* config_node = conformance->find("config"))
      manifest.conformance_config_json = boost::json::serialize(config::to_json(*config_node));
  return manifest;
}

ManifestScan scan_manifests(const std::vector<std::string>& search_paths) {
  ManifestScan scan;
  std::vector<std::string> seen;
  auto take = [&](const fs::path& manifest_path) {
    std::string key = fs::weakly_canonical(manifest_path).string();
    for (const auto& done : seen)
      if (done == key) return;
    seen.push_back(key);
    auto manifest = read_manifest(manifest_path.string());
    if (manifest) scan.manifests.push_back(std::move(manifest.value()));
    else scan.errors.push_back(manifest.status());
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
