#include "config/overrides.hpp"

#include <string>
#include <vector>

#include "config/yaml_loader.hpp"

namespace tritongym::config {

bool is_override(std::string_view argument) {
  size_t equals = argument.find('=');
  if (equals == std::string_view::npos || equals == 0) return false;
  return argument.substr(0, equals).find('/') == std::string_view::npos;
}

Status apply_override(ConfigNode& root, std::string_view assignment) {
  std::string origin = "<command line: " + std::string(assignment) + ">";
  size_t equals = assignment.find('=');
  if (equals == std::string_view::npos || equals == 0)
    return Status(StatusCode::invalid_argument, "an override must look like key.sub=value", origin);
  std::string_view path = assignment.substr(0, equals);
  auto parsed = parse_yaml(assignment.substr(equals + 1), origin);
  if (!parsed) return parsed.status();
  ConfigNode value = std::move(parsed.value());

  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t dot = path.find('.', start);
    if (dot == std::string_view::npos) dot = path.size();
    if (dot == start) return Status(StatusCode::invalid_argument, "empty key in override path", origin);
    parts.emplace_back(path.substr(start, dot - start));
    start = dot + 1;
  }

  SourceLocation where{origin, 0, 0};
  ConfigNode* node = &root;
  std::string walked;
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    bool last = i + 1 == parts.size();
    walked += (walked.empty() ? "" : ".") + part;
    if (node->is_sequence()) {
      size_t index = 0;
      try {
        index = std::stoul(part);
      } catch (...) {
        return Status(StatusCode::invalid_argument,
                      "'" + walked + "': a list is indexed by number, not '" + part + "'", origin);
      }
      if (index >= node->items().size())
        return Status(StatusCode::invalid_argument,
                      "'" + walked + "': index out of range, the list has " +
                          std::to_string(node->items().size()) + " items",
                      origin);
      if (last) node->items()[index] = value;
      else node = &node->items()[index];
      continue;
    }
    if (node->is_null()) *node = ConfigNode::mapping_at(where);
    if (!node->is_mapping())
      return Status(StatusCode::invalid_argument,
                    "'" + walked + "': cannot set a key inside " + std::string(node->kind_name()) +
                        " (defined at " + node->where().to_string() + ")",
                    origin);
    if (last) {
      node->set(part, where, value);
    } else {
      if (!node->find(part)) node->set(part, where, ConfigNode::mapping_at(where));
      node = node->find(part);
    }
  }
  return {};
}

}  // namespace tritongym::config
