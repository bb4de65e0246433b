// A small declarative schema for host-side config files (run files, workflow files, plugin.yaml),
// checked with file:line:column and did-you-mean errors. Plugin configs are checked inside the
// plugin by the SDK's parse_config<T>() instead.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/config_node.hpp"
#include "tritongym/sdk/status.hpp"

namespace tritongym::config {

class Schema {
 public:
  enum class Type { any, string, integer, number, boolean, list, mapping };

  static Schema any() { return Schema(Type::any); }
  static Schema string() { return Schema(Type::string); }
  static Schema integer(std::optional<int64_t> minimum = std::nullopt);
  static Schema number(std::optional<double> minimum = std::nullopt);
  static Schema boolean() { return Schema(Type::boolean); }
  static Schema list_of(Schema item);
  // A mapping whose keys are free (a table of values that share one schema).
  static Schema map_of(Schema value);
  // A mapping with known keys; others are errors with a did-you-mean.
  static Schema object();
  // Either a string (e.g. a file path or a plugin id) or the object form of this schema.
  Schema& or_string();

  Schema& field(std::string name, Schema schema, bool required = false, std::string help = {});
  Schema& one_of(std::vector<std::string> allowed);  // for strings

  // Checks `node`; `path` names it in messages ("models[0].backend"). First error wins.
  Status validate(const ConfigNode& node, const std::string& path = {}) const;

 private:
  explicit Schema(Type type) : type_(type) {}
  struct Field {
    std::string name;
    std::shared_ptr<Schema> schema;
    bool required;
    std::string help;
  };
  Type type_;
  bool accepts_string_ = false;
  bool free_keys_ = false;
  std::optional<int64_t> int_minimum_;
  std::optional<double> number_minimum_;
  std::vector<Field> fields_;
  std::shared_ptr<Schema> item_;
  std::vector<std::string> allowed_;
};

}  // namespace tritongym::config
