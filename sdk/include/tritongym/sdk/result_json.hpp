// TritonGym SDK: the JSON form of an evaluation result, as the tools hand it to the store and
// `tritongym eval --json` prints it. One shape for every consumer: verdict, message, per-shape
// correctness, timing and kernels, flags, warnings, captured output, and the executor's own record (`record`;
// `tritongym eval --json` adds `executor`, the id of the executor that judged it).
#pragma once

#include <boost/json.hpp>

#include <optional>

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

}  // namespace tritongym
