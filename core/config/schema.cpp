#include "config/schema.hpp"

#include "tritongym/sdk/did_you_mean.hpp"

namespace tritongym::config {
namespace {

Status error_at(const SourceLocation& where, const std::string& path, const std::string& message) {
  std::string subject = path.empty() ? "" : "'" + path + "': ";
  return Status(StatusCode::invalid_config, subject + message, where.to_string());
}

std::string join_path(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

}  // namespace

Schema Schema::integer(std::optional<int64_t> minimum) {
  Schema schema(Type::integer);
  schema.int_minimum_ = minimum;
  return schema;
}

Schema Schema::number(std::optional<double> minimum) {
  Schema schema(Type::number);
  schema.number_minimum_ = minimum;
  return schema;
}

Schema Schema::list_of(Schema item) {
  Schema schema(Type::list);
  schema.item_ = std::make_shared<Schema>(std::move(item));
  return schema;
}

Schema Schema::map_of(Schema value) {
  Schema schema(Type::mapping);
  schema.free_keys_ = true;
  schema.item_ = std::make_shared<Schema>(std::move(value));
  return schema;
}

Schema Schema::object() { return Schema(Type::mapping); }

Schema& Schema::or_string() {
  accepts_string_ = true;
  return *this;
}

Schema& Schema::field(std::string name, Schema schema, bool required, std::string help) {
  fields_.push_back({std::move(name), std::make_shared<Schema>(std::move(schema)), required, std::move(help)});
  return *this;
}

Schema& Schema::one_of(std::vector<std::string> allowed) {
  allowed_ = std::move(allowed);
  return *this;
}

Status Schema::validate(const ConfigNode& node, const std::string& path) const {
  const SourceLocation& where = node.where();
  switch (type_) {
    case Type::any:
      return {};
    case Type::string:
      if (!node.is_scalar()) return error_at(where, path, std::string("expected a string, got ") + node.kind_name());
      if (!allowed_.empty()) {
        for (const auto& allowed : allowed_)
          if (node.text() == allowed) return {};
        std::string list;
        for (const auto& allowed : allowed_) list += (list.empty() ? "" : ", ") + allowed;
        return error_at(where, path, "'" + node.text() + "' is not one of: " + list + did_you_mean(node.text(), allowed_));
      }
      return {};
    case Type::integer: {
      auto value = node.as_int();
      if (!value) return error_at(where, path, "expected an integer, got '" + node.text() + "'");
      if (int_minimum_ && *value < *int_minimum_)
        return error_at(where, path, "must be at least " + std::to_string(*int_minimum_));
      return {};
    }
    case Type::number: {
      auto value = node.as_double();
      if (!value) return error_at(where, path, "expected a number, got '" + node.text() + "'");
      if (number_minimum_ && *value < *number_minimum_)
        return error_at(where, path, "must be at least " + std::to_string(*number_minimum_));
      return {};
    }
    case Type::boolean:
      if (!node.as_bool()) return error_at(where, path, "expected true or false, got '" + node.text() + "'");
      return {};
    case Type::list: {
      if (!node.is_sequence()) return error_at(where, path, std::string("expected a list, got ") + node.kind_name());
      size_t index = 0;
      for (const auto& item : node.items()) {
        Status status = item_->validate(item, path + "[" + std::to_string(index++) + "]");
        if (!status.is_ok()) return status;
      }
      return {};
    }
    case Type::mapping:
      break;
  }

  if (node.is_scalar() && accepts_string_) return {};
  if (!node.is_mapping())
    return error_at(where, path, std::string("expected a mapping, got ") + node.kind_name());
  if (free_keys_) {
    for (const auto& entry : node.entries()) {
      Status status = item_->validate(entry.value, join_path(path, entry.key));
      if (!status.is_ok()) return status;
    }
    return {};
  }
  std::vector<std::string> known;
  for (const auto& field : fields_) known.push_back(field.name);
  for (const auto& entry : node.entries()) {
    const Field* field = nullptr;
    for (const auto& candidate : fields_)
      if (candidate.name == entry.key) field = &candidate;
    if (!field)
      return error_at(entry.key_where, path, "unknown key '" + entry.key + "'" + did_you_mean(entry.key, known));
    if (entry.value.is_null() && !field->required) continue;  // `key:` with no value keeps the default
    Status status = field->schema->validate(entry.value, join_path(path, entry.key));
    if (!status.is_ok()) return status;
  }
  for (const auto& field : fields_) {
    if (field.required && !node.find(field.name))
      return error_at(where, path, "missing required key '" + field.name + "'" +
                                       (field.help.empty() ? "" : " (" + field.help + ")"));
  }
  return {};
}

}  // namespace tritongym::config
