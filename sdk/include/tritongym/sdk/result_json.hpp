// TritonGym SDK: the JSON form of an evaluation result, as the tools hand it to the store and
// `tritongym eval --json` prints it. One shape for every consumer: verdict, message, per-shape
// correctness, timing and kernels, flags, warnings, captured output, and the executor's own record (`record`;
// `tritongym eval --json` adds `executor`, the id of the executor that judged it). evaluation_from_json reads it
// back (an executor that judges elsewhere, such as tritongym.executor.remote).
#pragma once

#include <boost/json.hpp>

#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "tritongym/sdk/status.hpp"

#include "tritongym/sdk/types.hpp"

namespace tritongym {

inline boost::json::value optional_json(const std::optional<double>& value) {
  return value ? boost::json::value(*value) : boost::json::value(nullptr);
}

inline boost::json::object shape_json(const ShapeOutcome& shape) {
  boost::json::object out{{"shape", shape.shape}, {"passed", shape.passed}, {"max_abs_error", shape.max_abs_error},
                          {"max_rel_error", shape.max_rel_error}, {"first_mismatch", shape.first_mismatch}};
  if (const auto& t = shape.timing) {
    out["timing"] = {{"median_us", t->median_us}, {"spread_pct", t->spread_pct}, {"repetitions", t->repetitions},
                     {"event_median_us", t->event_median_us}, {"wall_median_us", t->wall_median_us},
                     {"cold_l2", t->cold_l2}, {"eager_us", optional_json(t->eager_us)},
                     {"compile_us", optional_json(t->compile_us)}, {"oracle_us", optional_json(t->oracle_us)},
                     {"triton_us", optional_json(t->triton_us)},
                     {"speed_of_light_us", optional_json(t->speed_of_light_us)},
                     {"flop_count", optional_json(t->flop_count)}, {"byte_count", optional_json(t->byte_count)},
                     {"library_fraction", t->library_fraction}};
  }
  boost::json::array kernels;
  for (const auto& k : shape.kernels)
    kernels.push_back({{"name", k.name}, {"calls", k.calls}, {"total_us", k.total_us}, {"library", k.library},
                       {"grid", k.grid}, {"block", k.block}, {"registers", k.registers},
                       {"shared_memory_bytes", k.shared_memory_bytes}});
  if (!kernels.empty()) out["kernels"] = std::move(kernels);
  return out;
}

inline boost::json::object evaluation_json(const EvaluationResult& result) {
  boost::json::array shapes;
  for (const auto& shape : result.shapes) shapes.push_back(shape_json(shape));
  boost::system::error_code error;
  boost::json::value executor_record = boost::json::parse(result.record_json, error);
  boost::json::object record{{"verdict", verdict_name(result.verdict)}, {"message", result.message},
                             {"shapes", shapes}, {"stdout", result.stdout_text}, {"stderr", result.stderr_text},
                             {"flags", boost::json::value_from(result.flags)},
                             {"warnings", boost::json::value_from(result.warnings)},
                             {"wall_seconds", result.wall_seconds}, {"gpu_seconds", result.gpu_seconds},
                             {"record", error ? boost::json::value(nullptr) : executor_record}};
  return record;
}

// ---------------------------------------------------------------- reading it back

namespace result_json_detail {

// The member `key` of `object` as T, or `fallback` when absent or null; a member of another type is an
// invalid_argument naming `where` and the key.
template <class T>
Result<T> member(const boost::json::object& object, std::string_view key, const std::string& where, T fallback) {
  const boost::json::value* value = object.if_contains(key);
  if (!value || value->is_null()) return fallback;
  if constexpr (std::is_same_v<T, std::string>) {
    if (value->is_string()) return std::string(value->as_string());
  } else if constexpr (std::is_same_v<T, bool>) {
    if (value->is_bool()) return value->as_bool();
  } else if constexpr (std::is_same_v<T, double>) {
    if (value->is_number()) return value->to_number<double>();
  } else if constexpr (std::is_same_v<T, int64_t>) {
    if (value->is_int64()) return value->as_int64();
    if (value->is_uint64()) return static_cast<int64_t>(value->as_uint64());
    if (value->is_double()) return static_cast<int64_t>(value->as_double());
  }
  return Status(StatusCode::invalid_argument, where + "." + std::string(key) + " has the wrong type");
}

inline Result<std::optional<double>> optional_member(const boost::json::object& object, std::string_view key,
                                                     const std::string& where) {
  const boost::json::value* value = object.if_contains(key);
  if (!value || value->is_null()) return std::optional<double>();
  if (!value->is_number()) return Status(StatusCode::invalid_argument, where + "." + std::string(key) + " is not a number");
  return std::optional<double>(value->to_number<double>());
}

inline Result<std::vector<std::string>> strings(const boost::json::object& object, std::string_view key,
                                                const std::string& where) {
  std::vector<std::string> out;
  const boost::json::value* value = object.if_contains(key);
  if (!value || value->is_null()) return out;
  if (!value->is_array()) return Status(StatusCode::invalid_argument, where + "." + std::string(key) + " is not a list");
  for (const auto& item : value->as_array()) {
    if (!item.is_string()) return Status(StatusCode::invalid_argument, where + "." + std::string(key) + " holds a non-string");
    out.emplace_back(item.as_string());
  }
  return out;
}

#define TRITONGYM_RESULT_JSON_READ(target, expression) \
  do {                                                 \
    auto read_ = (expression);                         \
    if (!read_) return read_.status();                 \
    target = std::move(read_.value());                 \
  } while (false)

inline Result<ShapeTiming> timing_from_json(const boost::json::object& object, const std::string& where) {
  ShapeTiming t;
  TRITONGYM_RESULT_JSON_READ(t.median_us, member<double>(object, "median_us", where, 0.0));
  TRITONGYM_RESULT_JSON_READ(t.spread_pct, member<double>(object, "spread_pct", where, 0.0));
  TRITONGYM_RESULT_JSON_READ(t.repetitions, member<int64_t>(object, "repetitions", where, 0));
  TRITONGYM_RESULT_JSON_READ(t.event_median_us, member<double>(object, "event_median_us", where, 0.0));
  TRITONGYM_RESULT_JSON_READ(t.wall_median_us, member<double>(object, "wall_median_us", where, 0.0));
  TRITONGYM_RESULT_JSON_READ(t.cold_l2, member<bool>(object, "cold_l2", where, true));
  TRITONGYM_RESULT_JSON_READ(t.eager_us, optional_member(object, "eager_us", where));
  TRITONGYM_RESULT_JSON_READ(t.compile_us, optional_member(object, "compile_us", where));
  TRITONGYM_RESULT_JSON_READ(t.oracle_us, optional_member(object, "oracle_us", where));
  TRITONGYM_RESULT_JSON_READ(t.speed_of_light_us, optional_member(object, "speed_of_light_us", where));
  TRITONGYM_RESULT_JSON_READ(t.flop_count, optional_member(object, "flop_count", where));
  TRITONGYM_RESULT_JSON_READ(t.byte_count, optional_member(object, "byte_count", where));
  TRITONGYM_RESULT_JSON_READ(t.library_fraction, member<double>(object, "library_fraction", where, 0.0));
  return t;
}

inline Result<KernelRecord> kernel_from_json(const boost::json::object& object, const std::string& where) {
  KernelRecord k;
  TRITONGYM_RESULT_JSON_READ(k.name, member<std::string>(object, "name", where, ""));
  TRITONGYM_RESULT_JSON_READ(k.calls, member<int64_t>(object, "calls", where, 0));
  TRITONGYM_RESULT_JSON_READ(k.total_us, member<double>(object, "total_us", where, 0.0));
  TRITONGYM_RESULT_JSON_READ(k.library, member<bool>(object, "library", where, false));
  TRITONGYM_RESULT_JSON_READ(k.grid, member<std::string>(object, "grid", where, ""));
  TRITONGYM_RESULT_JSON_READ(k.block, member<std::string>(object, "block", where, ""));
  TRITONGYM_RESULT_JSON_READ(k.registers, member<int64_t>(object, "registers", where, 0));
  TRITONGYM_RESULT_JSON_READ(k.shared_memory_bytes, member<int64_t>(object, "shared_memory_bytes", where, 0));
  return k;
}

inline Result<ShapeOutcome> shape_from_json(const boost::json::value& value, const std::string& where) {
  if (!value.is_object()) return Status(StatusCode::invalid_argument, where + " is not an object");
  const auto& object = value.as_object();
  ShapeOutcome shape;
  TRITONGYM_RESULT_JSON_READ(shape.shape, member<std::string>(object, "shape", where, ""));
  TRITONGYM_RESULT_JSON_READ(shape.passed, member<bool>(object, "passed", where, false));
  TRITONGYM_RESULT_JSON_READ(shape.max_abs_error, member<double>(object, "max_abs_error", where, 0.0));
  TRITONGYM_RESULT_JSON_READ(shape.max_rel_error, member<double>(object, "max_rel_error", where, 0.0));
  TRITONGYM_RESULT_JSON_READ(shape.first_mismatch, member<std::string>(object, "first_mismatch", where, ""));
  if (const auto* timing = object.if_contains("timing"); timing && !timing->is_null()) {
    if (!timing->is_object()) return Status(StatusCode::invalid_argument, where + ".timing is not an object");
    TRITONGYM_RESULT_JSON_READ(shape.timing, timing_from_json(timing->as_object(), where + ".timing"));
  }
  if (const auto* kernels = object.if_contains("kernels"); kernels && !kernels->is_null()) {
    if (!kernels->is_array()) return Status(StatusCode::invalid_argument, where + ".kernels is not a list");
    for (size_t i = 0; i < kernels->as_array().size(); ++i) {
      const auto& kernel = kernels->as_array()[i];
      std::string at = where + ".kernels[" + std::to_string(i) + "]";
      if (!kernel.is_object()) return Status(StatusCode::invalid_argument, at + " is not an object");
      KernelRecord record;
      TRITONGYM_RESULT_JSON_READ(record, kernel_from_json(kernel.as_object(), at));
      shape.kernels.push_back(std::move(record));
    }
  }
  return shape;
}

}  // namespace result_json_detail

// An EvaluationResult from its JSON form (evaluation_json's output, or `tritongym eval --json`'s and
// `tritongym serve`'s, which add the judging executor's id as "executor"); the executor's record is "record".
// Keys it does not know are ignored; a missing or unknown verdict, or a known key of the wrong type, is an
// invalid_argument that names the key.
inline Result<EvaluationResult> evaluation_from_json(const boost::json::value& value) {
  using namespace result_json_detail;
  const std::string where = "result";
  if (!value.is_object()) return Status(StatusCode::invalid_argument, "the result is not a JSON object");
  const auto& object = value.as_object();
  EvaluationResult result;
  std::string verdict;
  TRITONGYM_RESULT_JSON_READ(verdict, member<std::string>(object, "verdict", where, ""));
  auto known = verdict_from_name(verdict);
  if (!known) return Status(StatusCode::invalid_argument, "result.verdict '" + verdict + "' is no verdict");
  result.verdict = *known;
  TRITONGYM_RESULT_JSON_READ(result.message, member<std::string>(object, "message", where, ""));
  TRITONGYM_RESULT_JSON_READ(result.stdout_text, member<std::string>(object, "stdout", where, ""));
  TRITONGYM_RESULT_JSON_READ(result.stderr_text, member<std::string>(object, "stderr", where, ""));
  TRITONGYM_RESULT_JSON_READ(result.wall_seconds, member<double>(object, "wall_seconds", where, 0.0));
  TRITONGYM_RESULT_JSON_READ(result.gpu_seconds, member<double>(object, "gpu_seconds", where, 0.0));
  TRITONGYM_RESULT_JSON_READ(result.flags, strings(object, "flags", where));
  TRITONGYM_RESULT_JSON_READ(result.warnings, strings(object, "warnings", where));
  if (const auto* shapes = object.if_contains("shapes"); shapes && !shapes->is_null()) {
    if (!shapes->is_array()) return Status(StatusCode::invalid_argument, "result.shapes is not a list");
    for (size_t i = 0; i < shapes->as_array().size(); ++i) {
      ShapeOutcome shape;
      TRITONGYM_RESULT_JSON_READ(shape, shape_from_json(shapes->as_array()[i], "result.shapes[" + std::to_string(i) + "]"));
      result.shapes.push_back(std::move(shape));
    }
  }
  const boost::json::value* record = object.if_contains("record");
  result.record_json = record && record->is_object() ? boost::json::serialize(*record) : "{}";
  return result;
}

#undef TRITONGYM_RESULT_JSON_READ

}  // namespace tritongym
