// Command-line overrides: `key.sub=value`, `models.0.name=x`, applied on top of a loaded run file.
#pragma once

#include <string_view>

#include "config/config_node.hpp"
#include "tritongym/sdk/status.hpp"

namespace tritongym::config {

// Whether an argument looks like an override (has '=' before any '/' and a non-empty key).
bool is_override(std::string_view argument);

// Sets the value at the dotted path, creating mappings as needed. Numeric path parts index lists.
// The value is parsed as YAML ("5" is an integer, "[a, b]" a list, "'5'" a string).
Status apply_override(ConfigNode& root, std::string_view assignment);

}  // namespace tritongym::config
