#include "config/json_bridge.hpp"

namespace tritongym::config {
namespace {

std::string escape(const std::string& token) {
  std::string out;
  for (char c : token) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

boost::json::value convert(const ConfigNode& node, const std::string& pointer, SourceMap* map) {
  if (map) map->add(pointer, node.where());
  switch (node.kind()) {
    case ConfigNode::Kind::null:
      return nullptr;
    case ConfigNode::Kind::scalar:
      if (!node.quoted()) {
        if (auto integer = node.as_int()) return *integer;
        if (auto boolean = node.as_bool()) return *boolean;
        if (auto number = node.as_double()) return *number;
      }
      return boost::json::string(node.text());
    case ConfigNode::Kind::sequence: {
      boost::json::array array;
      size_t index = 0;
      for (const auto& item : node.items())
        array.push_back(convert(item, pointer + "/" + std::to_string(index++), map));
      return array;
    }
    case ConfigNode::Kind::mapping: {
      boost::json::object object;
      for (const auto& entry : node.entries()) {
        std::string child = pointer + "/" + escape(entry.key);
        object[entry.key] = convert(entry.value, child, map);
        if (map) map->add(child, entry.key_where);
      }
      return object;
    }
  }
  return nullptr;
}

}  // namespace

SourceLocation SourceMap::locate(const std::string& pointer) const {
  std::string probe = pointer;
  while (true) {
    auto found = spots_.find(probe);
    if (found != spots_.end()) return found->second;
    if (probe.empty()) return {};
    size_t slash = probe.rfind('/');
    probe = slash == std::string::npos ? std::string() : probe.substr(0, slash);
  }
}

boost::json::value to_json(const ConfigNode& node, SourceMap* source_map) {
  return convert(node, "", source_map);
}

Status locate_config_error(const Status& status, const SourceMap& source_map, const std::string& what) {
  if (status.is_ok()) return status;
  std::string pointer = status.location();
  SourceLocation where = source_map.locate(pointer);
  std::string key = pointer.empty() ? std::string() : " (key " + pointer + ")";
  return Status(status.code(), what + ": " + status.message() + key, where.to_string());
}

}  // namespace tritongym::config
