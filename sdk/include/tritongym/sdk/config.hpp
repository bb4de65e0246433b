// TritonGym SDK: typed plugin configuration.
//
// The host hands a plugin its configuration as JSON text (PluginContext::config_json). Declare a plain
// struct with defaults and list its fields; parse_config<T>() fills it and rejects unknown keys and
// wrong types with a JSON pointer in Status::location, which the host turns into "run.yaml:12:5":
//
//   struct GreedyConfig {
//     int64_t rounds = 3;                       // defaults live in the struct
//     std::optional<double> temperature;        // optional: absent stays empty
//     std::vector<std::string> stop_words;
//     static constexpr auto fields() {
//       return std::make_tuple(tritongym::field("rounds", &GreedyConfig::rounds),
//                              tritongym::field("temperature", &GreedyConfig::temperature),
//                              tritongym::field("stop_words", &GreedyConfig::stop_words));
//     }
//   };
//   auto config = tritongym::parse_config<GreedyConfig>(context.config_json);
//   if (!config) return config.status();
//
// Supported member types: bool, int64_t, int, double, std::string, JsonText (any JSON, kept as text),
// std::optional<T>, std::vector<T>, std::map<std::string, T>, and nested structs with fields().
// Boost.JSON is used inside the plugin only; no JSON object crosses the plugin boundary.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include <boost/json.hpp>

#include "tritongym/sdk/did_you_mean.hpp"
#include "tritongym/sdk/status.hpp"

namespace tritongym {

// A config value kept as JSON text, for free-form parts (a scripted reply list, a JSON Schema).
struct JsonText {
  std::string text = "null";
};

template <class Struct, class Member>
struct ConfigField {
  std::string_view name;
  Member Struct::*member;
};

template <class Struct, class Member>
constexpr ConfigField<Struct, Member> field(std::string_view name, Member Struct::*member) {
  return {name, member};
}

namespace config_detail {

template <class T, class = void>
struct has_fields : std::false_type {};
template <class T>
struct has_fields<T, std::void_t<decltype(T::fields())>> : std::true_type {};

template <class T> struct is_optional : std::false_type {};
template <class T> struct is_optional<std::optional<T>> : std::true_type {};
template <class T> struct is_vector : std::false_type {};
template <class T> struct is_vector<std::vector<T>> : std::true_type {};
template <class T> struct is_string_map : std::false_type {};
template <class T> struct is_string_map<std::map<std::string, T>> : std::true_type {};

inline std::string escape_pointer_token(std::string_view token) {
  std::string out;
  for (char c : token) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

inline const char* kind_name(const boost::json::value& value) {
  switch (value.kind()) {
    case boost::json::kind::null: return "null";
    case boost::json::kind::bool_: return "a boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64: return "an integer";
    case boost::json::kind::double_: return "a number";
    case boost::json::kind::string: return "a string";
    case boost::json::kind::array: return "a list";
    case boost::json::kind::object: return "a mapping";
  }
  return "a value";
}

inline Status type_error(const std::string& pointer, const char* expected, const boost::json::value& got) {
  return Status(StatusCode::invalid_config,
                std::string("expected ") + expected + ", got " + kind_name(got), pointer);
}

template <class T>
Status read(const boost::json::value& value, const std::string& pointer, T& out);

template <class Struct>
Status read_struct(const boost::json::value& value, const std::string& pointer, Struct& out) {
  if (!value.is_object()) return type_error(pointer, "a mapping", value);
  const auto& object = value.as_object();
  std::vector<std::string> known;
  std::apply([&](auto... f) { (known.emplace_back(f.name), ...); }, Struct::fields());
  for (const auto& entry : object) {
    std::string key(entry.key());
    bool is_known = false;
    for (const auto& name : known) is_known = is_known || name == key;
    if (!is_known) {
      return Status(StatusCode::invalid_config,
                    "unknown key '" + key + "'" + did_you_mean(key, known),
                    pointer + "/" + escape_pointer_token(key));
    }
  }
  Status status;
  std::apply(
      [&](auto... f) {
        auto one = [&](auto descriptor) {
          if (!status.is_ok()) return;
          auto found = object.find(descriptor.name);
          if (found == object.end()) return;  // keep the default
          status = read(found->value(), pointer + "/" + escape_pointer_token(descriptor.name),
                        out.*(descriptor.member));
        };
        (one(f), ...);
        (void)one;  // a config with no fields
      },
      Struct::fields());
  return status;
}

template <class T>
Status read(const boost::json::value& value, const std::string& pointer, T& out) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!value.is_bool()) return type_error(pointer, "a boolean (true or false)", value);
    out = value.as_bool();
  } else if constexpr (std::is_integral_v<T>) {
    if (value.is_int64()) out = static_cast<T>(value.as_int64());
    else if (value.is_uint64()) out = static_cast<T>(value.as_uint64());
    else return type_error(pointer, "an integer", value);
  } else if constexpr (std::is_floating_point_v<T>) {
    if (value.is_double()) out = value.as_double();
    else if (value.is_int64()) out = static_cast<T>(value.as_int64());
    else if (value.is_uint64()) out = static_cast<T>(value.as_uint64());
    else return type_error(pointer, "a number", value);
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!value.is_string()) return type_error(pointer, "a string", value);
    out = std::string(value.as_string());
  } else if constexpr (std::is_same_v<T, JsonText>) {
    out.text = boost::json::serialize(value);
  } else if constexpr (is_optional<T>::value) {
    if (value.is_null()) { out.reset(); return {}; }
    typename T::value_type inner{};
    Status status = read(value, pointer, inner);
    if (status.is_ok()) out = std::move(inner);
    return status;
  } else if constexpr (is_vector<T>::value) {
    if (!value.is_array()) return type_error(pointer, "a list", value);
    out.clear();
    size_t index = 0;
    for (const auto& item : value.as_array()) {
      typename T::value_type element{};
      Status status = read(item, pointer + "/" + std::to_string(index++), element);
      if (!status.is_ok()) return status;
      out.push_back(std::move(element));
    }
  } else if constexpr (is_string_map<T>::value) {
    if (!value.is_object()) return type_error(pointer, "a mapping", value);
    out.clear();
    for (const auto& entry : value.as_object()) {
      typename T::mapped_type element{};
      std::string key(entry.key());
      Status status = read(entry.value(), pointer + "/" + escape_pointer_token(key), element);
      if (!status.is_ok()) return status;
      out.emplace(std::move(key), std::move(element));
    }
  } else {
    static_assert(has_fields<T>::value,
                  "config member type must be bool, integer, double, std::string, JsonText, "
                  "std::optional, std::vector, std::map<std::string, T> or a struct with fields()");
    return read_struct(value, pointer, out);
  }
  return {};
}

}  // namespace config_detail

// Parse a plugin's JSON config text into Config (a struct with a static fields()). Missing keys keep
// the struct's defaults. Errors: invalid_config with the JSON pointer of the offending key.
template <class Config>
Result<Config> parse_config(std::string_view config_json) {
  boost::system::error_code error;
  boost::json::value value = boost::json::parse(config_json, error);
  if (error) return Status(StatusCode::invalid_config, "config is not valid JSON: " + error.message());
  if (value.is_null()) value = boost::json::object();
  Config config{};
  Status status = config_detail::read_struct(value, "", config);
  if (!status.is_ok()) return status;
  return config;
}

}  // namespace tritongym
