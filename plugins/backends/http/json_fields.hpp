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

// Copies the keys of `extra_body_json` (a backend's `extra_body` config, a JSON object) over `body`:
// provider options the backend does not model. Anything but an object is ignored.
inline void merge_extra_body(boost::json::object& body, const std::string& extra_body_json) {
  boost::system::error_code error;
  boost::json::value extra = boost::json::parse(extra_body_json, error);
  if (!error && extra.is_object())
    for (const auto& entry : extra.as_object()) body[entry.key()] = entry.value();
}

}  // namespace tritongym::http
