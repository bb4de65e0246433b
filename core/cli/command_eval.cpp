// `tritongym eval --task ID --code FILE`: judge one candidate file by hand, as the tools would; `--batch` judges
// many through one warm executor (eval_batch.hpp).
#include <boost/json.hpp>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <iostream>
#include <sstream>
#include <vector>

#include "cli/arguments.hpp"
#include "cli/eval_batch.hpp"
#include "cli/eval_judging.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "cli/plugin_loading.hpp"
#include "environment/executor_choice.hpp"
#include "tritongym/sdk/result_json.hpp"

namespace tritongym::cli {

namespace po = boost::program_options;

namespace {

boost::json::object result_json(const EvaluationResult& result, const std::string& executor, const std::string& reason) {
  boost::json::object out = evaluation_json(result);
  out["executor_reason"] = reason;
  out["executor"] = executor;
  return out;
}

void print_text(const EvaluationResult& result) {
  std::cout << verdict_name(result.verdict) << ": " << result.message << "\n";
  if (!result.shapes.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& shape : result.shapes) {
      std::ostringstream abs_error, rel_error;
      abs_error << shape.max_abs_error;
      rel_error << shape.max_rel_error;
      rows.push_back({shape.shape, shape.passed ? "pass" : "FAIL", abs_error.str(), rel_error.str(), shape.first_mismatch});
    }
    std::cout << "\n";
    print_table(std::cout, {"shape", "result", "max abs err", "max rel err", "first mismatch"}, rows);
  }
  auto tail = [](const std::string& label, const std::string& text) {
    if (text.empty()) return;
    std::cout << "\n" << label << ":\n" << (text.size() > 2000 ? "..." + text.substr(text.size() - 2000) : text);
    if (text.back() != '\n') std::cout << "\n";
  };
  tail("candidate stdout", result.stdout_text);
  tail("candidate stderr", result.stderr_text);
}

}  // namespace

int command_eval(const CliContext& context, const Arguments& arguments) {
  po::options_description options("eval options");
  options.add_options()("task", po::value<std::string>(), "task id, e.g. standard/softmax")(
      "code", po::value<std::string>(), "the candidate: one Python file")(
      "batch", po::value<std::string>(),
      "a file of 'TASK_ID PATH' lines judged by one warm executor, one JSON line each in their order; '-': lines "
      "read from stdin as they come, for as long as it is open")(
      "in-order", "with --batch: start the candidates in the lines' order (default: those that autotune first)")(
      "executor", po::value<std::string>()->default_value("auto"), "executor id, or auto")(
      "executor-config", po::value<std::string>()->default_value("{}"),
      "the executor's config as JSON, e.g. '{\"timing_seconds\": 0.1}' (keys: its plugin.yaml)")(
      "stage", po::value<std::string>()->default_value("test"),
      "compile, test, benchmark, profile or final (visible + held-out shapes)")(
      "seeds", po::value<int64_t>()->default_value(3), "random input sets per shape")(
      "timeout", po::value<double>()->default_value(120.0), "seconds the candidate may run")(
      "root", po::value<std::string>(), "suites folder (default: <project>/tasks)")("json", "print the result as JSON");
  int exit_code = kExitOk;
  std::string usage =
      "tritongym eval (--task ID --code FILE | --batch FILE|- [--in-order]) [--executor ID|auto] "
      "[--stage compile|test|benchmark|profile|final] [--json]";
  auto values = parse_arguments(usage, options, {}, arguments, exit_code);
  if (!values) return exit_code;
  bool batch = values->count("batch") > 0;
  if (!batch && (!values->count("task") || !values->count("code"))) {
    std::cerr << "error: eval needs --task and --code, or --batch\nusage: " << usage << "\n";
    return kExitUsage;
  }
  auto stage = parse_stage((*values)["stage"].as<std::string>());
  if (!stage) {
    std::cerr << "error: unknown stage '" << (*values)["stage"].as<std::string>()
              << "' (compile, test, benchmark, profile, final)\n";
    return kExitUsage;
  }
  Result<std::string> code = batch ? Result<std::string>(std::string()) : read_candidate((*values)["code"].as<std::string>());
  if (!code) {
    print_error(code.status());
    return kExitUsage;
  }

  plugins::Registry registry;
  load_registry(context, registry);
  std::string root = values->count("root") ? (*values)["root"].as<std::string>()
                                           : (std::filesystem::path(context.project_root) / "tasks").string();
  TaskFinder tasks(context, registry, root);
  Result<TaskSpec> task = batch ? Result<TaskSpec>(TaskSpec{}) : tasks.find((*values)["task"].as<std::string>());
  if (!task) {
    print_error(task.status());
    return task.status().code() == StatusCode::not_found ? kExitUsage : kExitConfigError;
  }
  const std::string executor_config = (*values)["executor-config"].as<std::string>();
  auto choice = environment::choose_executor(registry, (*values)["executor"].as<std::string>(), [&](const std::string& id) {
    return plugin_context(context, registry, id, executor_config, "--executor-config");
  });
  if (!choice) return executor_not_made(choice.status());
  spdlog::info("executor {}: {}", choice->id, choice->reason);
  JudgeOptions judging{*stage, (*values)["seeds"].as<int64_t>(), (*values)["timeout"].as<double>()};
  if (batch)
    return evaluate_batch(context, registry, *choice->executor, tasks, (*values)["batch"].as<std::string>(), judging,
                          values->count("in-order") ? BatchOrder::lines : BatchOrder::autotuners_first);

  auto result = judge(context, registry, *choice->executor, *task, *code, judging);
  if (!result) {
    print_error(result.status());
    return result.status().code() == StatusCode::unimplemented ? kExitNotAvailable : kExitFailure;
  }
  if (values->count("json")) print_json(std::cout, result_json(*result, choice->id, choice->reason));
  else print_text(*result);
  return result->verdict == Verdict::passed ? kExitOk : kExitFailure;
}

}  // namespace tritongym::cli
