// Turns a ConfigNode subtree into the JSON text a plugin receives, and maps the JSON pointers a
// plugin reports back to the YAML spot they came from.
#pragma once

#include <map>
#include <string>

#include <boost/json/value.hpp>

#include "config/config_node.hpp"
#include "tritongym/sdk/status.hpp"

namespace tritongym::config {

// JSON pointer ("/replies/2/content") -> where it was written. Keys map to the key's own location.
class SourceMap {
 public:
  void add(const std::string& pointer, SourceLocation where) { spots_[pointer] = std::move(where); }
  // The location of `pointer`, or of its nearest ancestor that has one (an unknown key's parent).
  SourceLocation locate(const std::string& pointer) const;

 private:
  std::map<std::string, SourceLocation> spots_;
};

// Plain scalars become numbers, booleans or null where they read as such; quoted ones stay strings.
boost::json::value to_json(const ConfigNode& node, SourceMap* source_map = nullptr);

// A Status from a plugin's config parser, rewritten so that its location is "file:line:column"
// and its message names the key path.
Status locate_config_error(const Status& status, const SourceMap& source_map, const std::string& what);

}  // namespace tritongym::config
