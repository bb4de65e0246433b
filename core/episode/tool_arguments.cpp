#include "episode/tool_arguments.hpp"

#include <boost/json.hpp>

namespace tritongym::episode {
namespace {

bool has_type(const boost::json::value& value, std::string_view type) {
  if (type == "string") return value.is_string();
  if (type == "integer") return value.is_int64() || value.is_uint64();
  if (type == "number") return value.is_number();
  if (type == "boolean") return value.is_bool();
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "null") return value.is_null();
  return true;  // unknown type keywords are not ours to judge
}

}  // namespace

Status check_tool_arguments(const std::string& arguments_json, const std::string& parameters_schema_json) {
  boost::system::error_code error;
  boost::json::value arguments = boost::json::parse(arguments_json.empty() ? "{}" : arguments_json, error);
  if (error)
    return Status(StatusCode::invalid_argument, "the arguments are not valid JSON (" + error.message() +
                                                    "); send one JSON object, e.g. {\"code\": \"...\"}");
  if (!arguments.is_object()) return Status(StatusCode::invalid_argument, "the arguments must be a JSON object");
  boost::json::value schema = boost::json::parse(parameters_schema_json, error);
  if (error || !schema.is_object()) return {};
  const auto& object = arguments.as_object();
  if (const auto* required = schema.as_object().if_contains("required"); required && required->is_array()) {
    for (const auto& name : required->as_array()) {
      if (name.is_string() && !object.contains(name.as_string()))
        return Status(StatusCode::invalid_argument,
                      "missing required argument '" + std::string(name.as_string()) + "'");
    }
  }
  const auto* properties = schema.as_object().if_contains("properties");
  if (!properties || !properties->is_object()) return {};
  for (const auto& entry : object) {
    const auto* property = properties->as_object().if_contains(entry.key());
    if (!property) {
      const auto* additional = schema.as_object().if_contains("additionalProperties");
      if (additional && additional->is_bool() && !additional->as_bool())
        return Status(StatusCode::invalid_argument, "unknown argument '" + std::string(entry.key()) + "'");
      continue;
    }
    if (!property->is_object()) continue;
    const auto* type = property->as_object().if_contains("type");
    if (type && type->is_string() && !has_type(entry.value(), type->as_string()))
      return Status(StatusCode::invalid_argument, "argument '" + std::string(entry.key()) + "' must be " +
                                                      (type->as_string() == "integer" ? "an " : "a ") +
                                                      std::string(type->as_string()));
  }
  return {};
}

}  // namespace tritongym::episode
