// Reads YAML files into ConfigNode trees, resolving `defaults:` includes.
#pragma once

#include <string>
#include <string_view>

#include "config/config_node.hpp"
#include "tritongym/sdk/status.hpp"

namespace tritongym::config {

// Parses YAML text; `file_name` is used in locations and messages only.
Result<ConfigNode> parse_yaml(std::string_view text, const std::string& file_name);

// Loads a YAML file. A top-level `defaults:` (a path or a list of paths, relative to the including
// file) is loaded first, in order, and the file's own keys are merged on top. Cycles are errors.
// Error messages say "file:line:column: what".
Result<ConfigNode> load_yaml_file(const std::string& path);

}  // namespace tritongym::config
