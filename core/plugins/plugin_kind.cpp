#include "plugins/plugin_kind.hpp"

namespace tritongym::plugins {

const std::vector<std::string>& kind_names() {
  static const std::vector<std::string> names = {"backend", "tool", "executor", "suite", "dsl", "workflow"};
  return names;
}

const char* kind_name(PluginKind kind) { return kind_names()[static_cast<size_t>(kind)].c_str(); }

std::optional<PluginKind> parse_kind(std::string_view name) {
  const auto& names = kind_names();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<PluginKind>(i);
  return std::nullopt;
}

}  // namespace tritongym::plugins
