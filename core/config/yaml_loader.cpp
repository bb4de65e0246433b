#include "config/yaml_loader.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace tritongym::config {
namespace {

namespace fs = std::filesystem;

SourceLocation at(const std::string& file, const YAML::Mark& mark) {
  if (mark.is_null()) return {file, 0, 0};
  return {file, mark.line + 1, mark.column + 1};
}

ConfigNode convert(const YAML::Node& node, const std::string& file) {
  SourceLocation where = at(file, node.Mark());
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return ConfigNode::null_at(where);
    case YAML::NodeType::Scalar: {
      // yaml-cpp tags plain scalars "?" and quoted ones "!"; a plain "~" or "null" is null.
      bool quoted = node.Tag() == "!";
      const std::string& text = node.Scalar();
      if (!quoted && (text == "~" || text == "null" || text == "Null" || text == "NULL"))
        return ConfigNode::null_at(where);
      return ConfigNode::scalar_at(text, quoted, where);
    }
    case YAML::NodeType::Sequence: {
      ConfigNode sequence = ConfigNode::sequence_at(where);
      for (const auto& item : node) sequence.push_back(convert(item, file));
      return sequence;
    }
    case YAML::NodeType::Map: {
      ConfigNode mapping = ConfigNode::mapping_at(where);
      for (const auto& pair : node) {
        mapping.entries().push_back(
            {pair.first.as<std::string>(), at(file, pair.first.Mark()), convert(pair.second, file)});
      }
      return mapping;
    }
  }
  return ConfigNode::null_at(where);
}

Status yaml_error(const std::string& file, const YAML::Exception& error) {
  return Status(StatusCode::invalid_config, "invalid YAML: " + error.msg, at(file, error.mark).to_string());
}

Result<ConfigNode> load_recursive(const std::string& path, std::vector<std::string>& stack) {
  std::error_code error;
  fs::path canonical = fs::weakly_canonical(path, error);
  std::string key = error ? path : canonical.string();
  if (std::find(stack.begin(), stack.end(), key) != stack.end()) {
    std::string chain;
    for (const auto& file : stack) chain += file + " -> ";
    return Status(StatusCode::invalid_config, "`defaults:` include cycle: " + chain + key, path);
  }
  std::ifstream in(path);
  if (!in) return Status(StatusCode::not_found, "cannot read config file '" + path + "'", path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  auto parsed = parse_yaml(buffer.str(), path);
  if (!parsed) return parsed.status();
  ConfigNode own = std::move(parsed.value());
  if (!own.is_mapping()) {
    if (own.is_null()) return ConfigNode::mapping_at({path, 1, 1});
    return Status(StatusCode::invalid_config, "a config file must be a mapping of keys, got " +
                                                  std::string(own.kind_name()),
                  own.where().to_string());
  }

  const ConfigNode* defaults = own.find("defaults");
  if (!defaults) return own;

  std::vector<const ConfigNode*> includes;
  if (defaults->is_scalar()) includes.push_back(defaults);
  else if (defaults->is_sequence())
    for (const auto& item : defaults->items()) includes.push_back(&item);
  else
    return Status(StatusCode::invalid_config, "`defaults:` must be a path or a list of paths",
                  defaults->where().to_string());

  stack.push_back(key);
  ConfigNode merged = ConfigNode::mapping_at(own.where());
  for (const ConfigNode* include : includes) {
    if (!include->is_scalar())
      return Status(StatusCode::invalid_config, "`defaults:` entries must be file paths",
                    include->where().to_string());
    fs::path included = fs::path(path).parent_path() / include->text();
    auto loaded = load_recursive(included.lexically_normal().string(), stack);
    if (!loaded) {
      Status inner = loaded.status();
      if (inner.code() == StatusCode::not_found)
        return Status(StatusCode::invalid_config,
                      "included file '" + included.string() + "' cannot be read",
                      include->where().to_string());
      return inner;
    }
    merged = merge(std::move(merged), loaded.value());
  }
  stack.pop_back();
  own.erase("defaults");
  return merge(std::move(merged), own);
}

}  // namespace

Result<ConfigNode> parse_yaml(std::string_view text, const std::string& file_name) {
  try {
    YAML::Node root = YAML::Load(std::string(text));
    return convert(root, file_name);
  } catch (const YAML::Exception& error) {
    return yaml_error(file_name, error);
  }
}

Result<ConfigNode> load_yaml_file(const std::string& path) {
  std::vector<std::string> stack;
  return load_recursive(path, stack);
}

}  // namespace tritongym::config
