// Lenient field reads for provider responses, whose optional fields may be absent or null.
#pragma once

#include <boost/json.hpp>

#include <cstdint>
#include <string>

namespace tritongym::http {

// The integer at `key`, 0 when absent or not an integer.
inline int64_t json_int(const boost::json::object& object, const char* key) {
  const auto* value = object.if_contains(key);
  return value && value->is_int64() ? value->as_int64() : 0;
}

// The string at `key`, "" when absent or not a string.
inline std::string json_text(const boost::json::object& object, const char* key) {
  const auto* value = object.if_contains(key);
  return value && value->is_string() ? std::string(value->as_string()) : std::string();
}

}  // namespace tritongym::http
