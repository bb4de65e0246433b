// A configuration tree that remembers where every value came from (file:line:column), so that every
// error about a run file can point at the exact spot. yaml-cpp stays inside the loader.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tritongym::config {

struct SourceLocation {
  std::string file;  // path as given, or "<command line>"
  int64_t line = 0;  // 1-based; 0 when unknown
  int64_t column = 0;

  std::string to_string() const;  // "runs/exp.yaml:12:5"
};

struct ConfigEntry;

class ConfigNode {
 public:
  enum class Kind { null, scalar, sequence, mapping };

  ConfigNode() = default;
  static ConfigNode null_at(SourceLocation where);
  // `quoted` scalars are always strings; plain ones may read as numbers and booleans.
  static ConfigNode scalar_at(std::string text, bool quoted, SourceLocation where);
  static ConfigNode sequence_at(SourceLocation where);
  static ConfigNode mapping_at(SourceLocation where);

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::null; }
  bool is_scalar() const { return kind_ == Kind::scalar; }
  bool is_sequence() const { return kind_ == Kind::sequence; }
  bool is_mapping() const { return kind_ == Kind::mapping; }
  const SourceLocation& where() const { return where_; }
  const char* kind_name() const;  // "a mapping", "a list", "a scalar", "null"

  // Scalars.
  const std::string& text() const { return text_; }
  bool quoted() const { return quoted_; }
  std::optional<bool> as_bool() const;        // true/false/yes/no/on/off (plain scalars only)
  std::optional<int64_t> as_int() const;      // plain decimal integers only
  std::optional<double> as_double() const;    // plain numbers only

  // Sequences.
  const std::vector<ConfigNode>& items() const { return items_; }
  std::vector<ConfigNode>& items() { return items_; }
  void push_back(ConfigNode item) { items_.push_back(std::move(item)); }

  // Mappings keep insertion order; keys carry their own locations (for "unknown key" errors).
  using Entry = ConfigEntry;
  const std::vector<Entry>& entries() const { return entries_; }
  std::vector<Entry>& entries() { return entries_; }
  const ConfigNode* find(const std::string& key) const;
  ConfigNode* find(const std::string& key);
  const Entry* find_entry(const std::string& key) const;
  // Inserts or replaces; keeps the position of an existing key.
  void set(const std::string& key, SourceLocation key_where, ConfigNode value);
  bool erase(const std::string& key);
  std::vector<std::string> keys() const;

 private:
  Kind kind_ = Kind::null;
  SourceLocation where_;
  std::string text_;
  bool quoted_ = false;
  std::vector<ConfigNode> items_;
  std::vector<Entry> entries_;
};

struct ConfigEntry {
  std::string key;
  SourceLocation key_where;
  ConfigNode value;
};

// Deep merge: mappings merge key by key (overlay wins), everything else is replaced by the overlay.
ConfigNode merge(ConfigNode base, const ConfigNode& overlay);

// YAML text of a tree (for the resolved config written beside each run's results).
std::string to_yaml(const ConfigNode& node);

}  // namespace tritongym::config
