#include "serve/candidate_body.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include "tritongym/sdk/did_you_mean.hpp"

namespace tritongym::serve {
namespace {

constexpr const char* kWhere = "in the body of POST /v1/evaluations";

const char* kind_of(const boost::json::value& value) {
  switch (value.kind()) {
    case boost::json::kind::null: return "null";
    case boost::json::kind::bool_: return "a boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
    case boost::json::kind::double_: return "a number";
    case boost::json::kind::string: return "a string";
    case boost::json::kind::array: return "an array";
    case boost::json::kind::object: return "an object";
  }
  return "a value";
}

ApiError bad(const std::string& message) { return ApiError{400, message}; }

ApiError mistyped(const std::string& field, const char* wanted, const boost::json::value& value) {
  return bad(std::string("field '") + field + "' " + kWhere + " must be " + wanted + ", not " + kind_of(value));
}

// An integer, also when written 3.0; nullopt for anything else.
std::optional<int64_t> integer_of(const boost::json::value& value) {
  if (value.is_int64()) return value.as_int64();
  if (value.is_uint64() && value.as_uint64() <= static_cast<uint64_t>(INT64_MAX))
    return static_cast<int64_t>(value.as_uint64());
  if (value.is_double() && std::trunc(value.as_double()) == value.as_double() && std::abs(value.as_double()) < 1e15)
    return static_cast<int64_t>(value.as_double());
  return std::nullopt;
}

}  // namespace

std::variant<CandidateBody, ApiError> parse_candidate_body(const std::string& body, const std::vector<TaskSpec>& tasks,
                                                           const ApiLimits& limits) {
  boost::system::error_code error;
  boost::json::value parsed = boost::json::parse(body, error);
  if (error) return bad(std::string("the body of POST /v1/evaluations is not JSON: ") + error.message());
  if (!parsed.is_object())
    return bad(std::string("the body of POST /v1/evaluations must be a JSON object, not ") + kind_of(parsed));
  const boost::json::object& fields = parsed.as_object();
  static const std::vector<std::string> kFields = {"task", "code", "stage", "seeds", "timeout", "wait"};
  for (const auto& [key, value] : fields)
    if (std::find(kFields.begin(), kFields.end(), std::string(key)) == kFields.end())
      return bad("unknown field '" + std::string(key) + "' " + kWhere + did_you_mean(key, kFields) +
                 " (fields: task, code, stage, seeds, timeout, wait)");

  CandidateBody out;
  for (const char* required : {"task", "code"}) {
    const auto* value = fields.if_contains(required);
    if (!value) return bad(std::string("field '") + required + "' is missing " + kWhere);
    if (!value->is_string()) return mistyped(required, "a string", *value);
  }
  out.request.task_id = std::string(fields.at("task").as_string());
  out.request.code = std::string(fields.at("code").as_string());
  if (out.request.code.size() > limits.max_code_bytes)
    return ApiError{413, "field 'code' " + std::string(kWhere) + " is " + std::to_string(out.request.code.size()) +
                             " bytes, over the limit of " + std::to_string(limits.max_code_bytes) +
                             " (--max-code-bytes)"};
  if (const auto* stage = fields.if_contains("stage")) {
    if (!stage->is_string()) return mistyped("stage", "a string", *stage);
    const std::string name(stage->as_string());
    auto parsed_stage = stage_from_name(name);
    if (!parsed_stage)
      return bad("field 'stage' " + std::string(kWhere) + " is '" + name + "', not a stage" +
                 did_you_mean(name, {"compile", "test", "benchmark", "profile", "final"}) +
                 " (compile, test, benchmark, profile, final)");
    out.request.stage = *parsed_stage;
  }
  if (const auto* seeds = fields.if_contains("seeds")) {
    auto count = integer_of(*seeds);
    if (!count) return mistyped("seeds", "an integer", *seeds);
    if (*count < 1 || *count > 1000)
      return bad("field 'seeds' " + std::string(kWhere) + " is " + std::to_string(*count) + ": it must be 1 to 1000");
    out.request.seeds = *count;
  }
  if (const auto* timeout = fields.if_contains("timeout")) {
    if (!timeout->is_number()) return mistyped("timeout", "a number of seconds", *timeout);
    double seconds = timeout->to_number<double>();
    if (!(seconds > 0.0) || seconds > limits.max_timeout_s)
      return bad("field 'timeout' " + std::string(kWhere) + " is " + boost::json::serialize(*timeout) +
                 ": it must be over 0 and at most " + boost::json::serialize(boost::json::value(limits.max_timeout_s)) +
                 " seconds (--max-timeout)");
    out.request.timeout_s = seconds;
  }
  if (const auto* wait = fields.if_contains("wait")) {
    if (!wait->is_bool()) return mistyped("wait", "a boolean", *wait);
    out.wait = wait->as_bool();
  }
  std::vector<std::string> ids;
  for (const auto& task : tasks) {
    if (task.id == out.request.task_id) {
      out.task = &task;
      return out;
    }
    ids.push_back(task.id);
  }
  return ApiError{404, "no task '" + out.request.task_id + "' " + kWhere + did_you_mean(out.request.task_id, ids) +
                           " (GET /v1/tasks lists the loaded ones)"};
}

}  // namespace tritongym::serve
