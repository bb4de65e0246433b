#include "tasks/task_check.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace tritongym::tasks {
namespace {

double number(const boost::json::object& object, const char* key) {
  const auto* value = object.if_contains(key);
  if (!value) return 0.0;
  if (value->is_double()) return value->as_double();
  if (value->is_int64()) return static_cast<double>(value->as_int64());
  return 0.0;
}

std::string dims_label(const boost::json::value& dims) {
  std::string label;
  if (!dims.is_object()) return label;
  for (const auto& entry : dims.as_object())
    label += (label.empty() ? "" : ", ") + std::string(entry.key()) + "=" + boost::json::serialize(entry.value());
  return "(" + label + ")";
}

}  // namespace

std::vector<std::string> find_degeneracy(const boost::json::value& expected_outputs, const TaskSpec& task) {
  std::vector<std::string> problems;
  std::set<std::string> reported;
  auto report = [&](const std::string& problem) {
    if (reported.insert(problem).second) problems.push_back(problem);
  };
  if (!expected_outputs.is_array() || expected_outputs.as_array().empty()) {
    report("no description of the expected outputs came back from the reference worker");
    return problems;
  }
  // digests of each output, per shape, over the seeds: equal digests mean the output ignores the inputs
  std::map<std::string, std::map<size_t, std::set<std::string>>> digests;
  std::map<std::string, std::map<size_t, size_t>> seeds;
  for (const auto& entry : expected_outputs.as_array()) {
    const auto& item = entry.as_object();
    std::string shape = dims_label(item.at("dims"));
    const auto& outputs = item.at("outputs").as_array();
    for (size_t index = 0; index < outputs.size(); ++index) {
      const auto& output = outputs[index].as_object();
      std::string label = (outputs.size() > 1 ? "output " + std::to_string(index) : std::string("the output")) +
                          " at " + shape;
      std::string dtype = output.contains("dtype") ? std::string(output.at("dtype").as_string()) : "float32";
      auto tolerance = task.tolerance.find(dtype);
      double atol = tolerance != task.tolerance.end() ? tolerance->second.atol : 1e-5;
      double max_abs = number(output, "max_abs");
      double spread = number(output, "std");
      if (number(output, "non_finite") > 0) report(label + " holds NaN or Inf");
      size_t elements = 1;
      for (const auto& size : output.at("shape").as_array()) elements *= static_cast<size_t>(size.as_int64());
      if (max_abs <= 10 * atol) report(label + " is within tolerance of zero (max |value| " + std::to_string(max_abs) + ")");
      else if (elements > 1 && spread <= 10 * atol)
        report(label + " is nearly constant (std " + std::to_string(spread) + ")");
      if (const auto* axes = output.if_contains("constant_axes"); axes && !axes->as_array().empty())
        report(label + " does not vary along axis " + boost::json::serialize(*axes));
      digests[shape][index].insert(std::string(output.at("digest").as_string()));
      seeds[shape][index] += 1;
    }
  }
  for (const auto& [shape, per_output] : digests)
    for (const auto& [index, set] : per_output)
      if (seeds[shape][index] > 1 && set.size() == 1)
        report("output " + std::to_string(index) + " at " + shape + " is the same for different random inputs");
  return problems;
}

TaskCheck check_task(const TaskSpec& task, Executor& executor, bool oracle) {
  TaskCheck check;
  check.task_id = task.id;
  auto started = std::chrono::steady_clock::now();
  auto finish = [&] {
    check.passed = check.problems.empty();
    check.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return check;
  };
  if (task.reference_path.empty()) check.problems.push_back("reference.py is missing");
  if (task.oracle_path.empty()) check.problems.push_back("oracle.py is missing");
  if (!check.problems.empty()) return finish();

  if (!task.triton_baseline_path.empty()) {
    auto baseline = executor.evaluate(triton_baseline_request(task));
    if (!baseline) {
      check.problems.push_back("the executor could not judge triton_baseline.py: " + baseline.status().message());
    } else {
      check.triton_baseline_verdict = verdict_name(baseline->verdict);
      if (baseline->verdict != Verdict::passed)
        check.problems.push_back("triton_baseline.py does not pass: " + check.triton_baseline_verdict + ": " +
                                 baseline->message);
    }
  }
  if (!oracle) return finish();

  auto result = executor.evaluate(oracle_request(task));
  if (!result) {
    check.problems.push_back("the executor could not judge the oracle: " + result.status().message());
    return finish();
  }
  check.oracle_verdict = verdict_name(result->verdict);
  check.shapes_checked = result->shapes.size();
  if (result->verdict != Verdict::passed)
    check.problems.push_back("the oracle does not pass: " + std::string(verdict_name(result->verdict)) + ": " +
                             result->message);
  for (auto& problem : degenerate_outputs(*result, task)) check.problems.push_back("degenerate: " + problem);
  return finish();
}

std::vector<std::string> degenerate_outputs(const EvaluationResult& oracle_result, const TaskSpec& task) {
  boost::system::error_code error;
  const auto record = boost::json::parse(oracle_result.record_json, error);
  const boost::json::value* expected =
      !error && record.is_object() ? record.as_object().if_contains("expected_outputs") : nullptr;
  return find_degeneracy(expected ? *expected : boost::json::value(), task);
}

EvaluationRequest triton_baseline_request(const TaskSpec& task) {
  EvaluationRequest request;
  request.task = task;
  request.task.dsl = "triton";
  std::ifstream baseline(task.triton_baseline_path);
  std::stringstream code;
  code << baseline.rdbuf();
  request.source_code = code.str();
  request.required_kernel_frontend = "triton";
  request.stage = EvaluationStage::test;
  request.shapes = ShapeSet::held_out;
  request.seeds_per_shape = 2;
  request.timeout_s = 600;
  return request;
}

EvaluationRequest oracle_request(const TaskSpec& task) {
  EvaluationRequest request;
  request.task = task;
  if (!task.oracle_path.empty()) {
    std::ifstream oracle(task.oracle_path);
    std::stringstream code;
    code << oracle.rdbuf();
    request.source_code = code.str();
  }
  request.stage = EvaluationStage::final_score;
  request.shapes = ShapeSet::held_out;
  request.seeds_per_shape = 2;
  request.timeout_s = 600;
  return request;
}

}  // namespace tritongym::tasks
