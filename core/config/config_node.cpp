#include "config/config_node.hpp"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cstdlib>

namespace tritongym::config {

std::string SourceLocation::to_string() const {
  if (line <= 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

ConfigNode ConfigNode::null_at(SourceLocation where) {
  ConfigNode node;
  node.where_ = std::move(where);
  return node;
}

ConfigNode ConfigNode::scalar_at(std::string text, bool quoted, SourceLocation where) {
  ConfigNode node;
  node.kind_ = Kind::scalar;
  node.text_ = std::move(text);
  node.quoted_ = quoted;
  node.where_ = std::move(where);
  return node;
}

ConfigNode ConfigNode::sequence_at(SourceLocation where) {
  ConfigNode node;
  node.kind_ = Kind::sequence;
  node.where_ = std::move(where);
  return node;
}

ConfigNode ConfigNode::mapping_at(SourceLocation where) {
  ConfigNode node;
  node.kind_ = Kind::mapping;
  node.where_ = std::move(where);
  return node;
}

const char* ConfigNode::kind_name() const {
  switch (kind_) {
    case Kind::null: return "null";
    case Kind::scalar: return "a scalar";
    case Kind::sequence: return "a list";
    case Kind::mapping: return "a mapping";
  }
  return "a value";
}

std::optional<bool> ConfigNode::as_bool() const {
  if (kind_ != Kind::scalar || quoted_) return std::nullopt;
  static const char* truthy[] = {"true", "True", "TRUE", "yes", "Yes", "on", "On"};
  static const char* falsy[] = {"false", "False", "FALSE", "no", "No", "off", "Off"};
  for (const char* word : truthy)
    if (text_ == word) return true;
  for (const char* word : falsy)
    if (text_ == word) return false;
  return std::nullopt;
}

std::optional<int64_t> ConfigNode::as_int() const {
  if (kind_ != Kind::scalar || quoted_ || text_.empty()) return std::nullopt;
  int64_t value = 0;
  const char* begin = text_.data();
  if (*begin == '+') ++begin;
  auto [end, error] = std::from_chars(begin, text_.data() + text_.size(), value);
  if (error != std::errc() || end != text_.data() + text_.size()) return std::nullopt;
  return value;
}

std::optional<double> ConfigNode::as_double() const {
  if (kind_ != Kind::scalar || quoted_ || text_.empty()) return std::nullopt;
  if (auto integer = as_int()) return static_cast<double>(*integer);
  char* end = nullptr;
  double value = std::strtod(text_.c_str(), &end);
  if (end != text_.c_str() + text_.size()) return std::nullopt;
  return value;
}

const ConfigNode::Entry* ConfigNode::find_entry(const std::string& key) const {
  for (const auto& entry : entries_)
    if (entry.key == key) return &entry;
  return nullptr;
}

const ConfigNode* ConfigNode::find(const std::string& key) const {
  const Entry* entry = find_entry(key);
  return entry ? &entry->value : nullptr;
}

ConfigNode* ConfigNode::find(const std::string& key) {
  for (auto& entry : entries_)
    if (entry.key == key) return &entry.value;
  return nullptr;
}

void ConfigNode::set(const std::string& key, SourceLocation key_where, ConfigNode value) {
  kind_ = Kind::mapping;
  for (auto& entry : entries_) {
    if (entry.key == key) {
      entry.key_where = std::move(key_where);
      entry.value = std::move(value);
      return;
    }
  }
  entries_.push_back({key, std::move(key_where), std::move(value)});
}

bool ConfigNode::erase(const std::string& key) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->key == key) {
      entries_.erase(it);
      return true;
    }
  }
  return false;
}

std::vector<std::string> ConfigNode::keys() const {
  std::vector<std::string> keys;
  for (const auto& entry : entries_) keys.push_back(entry.key);
  return keys;
}

ConfigNode merge(ConfigNode base, const ConfigNode& overlay) {
  if (!base.is_mapping() || !overlay.is_mapping()) return overlay;
  for (const auto& entry : overlay.entries()) {
    if (ConfigNode* existing = base.find(entry.key)) {
      *existing = merge(std::move(*existing), entry.value);
      // the overlay's key location wins: that is where the effective value was written
      for (auto& base_entry : base.entries())
        if (base_entry.key == entry.key) base_entry.key_where = entry.key_where;
    } else {
      base.set(entry.key, entry.key_where, entry.value);
    }
  }
  return base;
}

namespace {
void emit(YAML::Emitter& out, const ConfigNode& node) {
  switch (node.kind()) {
    case ConfigNode::Kind::null:
      out << YAML::Null;
      break;
    case ConfigNode::Kind::scalar:
      if (node.quoted()) out << YAML::DoubleQuoted << node.text();
      else out << node.text();
      break;
    case ConfigNode::Kind::sequence:
      out << YAML::BeginSeq;
      for (const auto& item : node.items()) emit(out, item);
      out << YAML::EndSeq;
      break;
    case ConfigNode::Kind::mapping:
      out << YAML::BeginMap;
      for (const auto& entry : node.entries()) {
        out << YAML::Key << entry.key << YAML::Value;
        emit(out, entry.value);
      }
      out << YAML::EndMap;
      break;
  }
}
}  // namespace

std::string to_yaml(const ConfigNode& node) {
  YAML::Emitter out;
  emit(out, node);
  return std::string(out.c_str()) + "\n";
}

}  // namespace tritongym::config
