// The JSON the executor exchanges with its workers: a task as the workers read it, and fields of
// their replies (tolerant of missing keys and of ints for doubles).
#pragma once

#include <boost/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "tritongym/sdk/types.hpp"

namespace tritongym::triton_executor {

inline std::string text_of(const boost::json::object& object, const char* key) {
  const auto* value = object.if_contains(key);
  return value && value->is_string() ? std::string(value->as_string()) : std::string();
}

inline std::optional<double> optional_number(const boost::json::object& object, const char* key) {
  const auto* value = object.if_contains(key);
  if (!value) return std::nullopt;
  if (value->is_double()) return value->as_double();
  if (value->is_int64()) return static_cast<double>(value->as_int64());
  if (value->is_uint64()) return static_cast<double>(value->as_uint64());
  return std::nullopt;
}

inline double number_of(const boost::json::object& object, const char* key) {
  return optional_number(object, key).value_or(0.0);
}

// A shape's dimensions ({"M": 4096, ...}), as requests carry them.
inline boost::json::object dims_json(const std::map<std::string, int64_t>& dims) {
  boost::json::object out;
  for (const auto& [name, size] : dims) out[name] = size;
  return out;
}

inline boost::json::object task_json(const TaskSpec& task) {
  boost::system::error_code error;
  boost::json::value inputs = boost::json::parse(task.inputs_json.empty() ? "[]" : task.inputs_json, error);
  return {{"id", task.id},         {"reference_path", task.reference_path}, {"oracle_path", task.oracle_path},
          {"triton_baseline_path", task.triton_baseline_path},
          {"entry", task.entry_function}, {"flops", task.flops_formula},      {"bytes", task.bytes_formula},
          {"compute_unit", task.compute_unit},
          {"inputs", error ? boost::json::value(boost::json::array()) : inputs}};
}

}  // namespace tritongym::triton_executor
