// `tritongym eval --task ID --code FILE`: judge one candidate file by hand, as the tools would.
#include <boost/json.hpp>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/arguments.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "cli/plugin_loading.hpp"
#include "environment/executor_choice.hpp"

namespace tritongym::cli {

namespace po = boost::program_options;

namespace {

Result<TaskSpec> find_task(const CliContext& context, plugins::Registry& registry, const std::string& root,
                           const std::string& id) {
  const std::string suite_id = "tritongym.suite.directory";
  boost::json::object config{{"root", std::filesystem::absolute(root).string()}};
  auto suite = registry.create<Suite>(suite_id, plugin_context(context, registry, suite_id,
                                                               boost::json::serialize(config), "--root"));
  if (!suite) return suite.status();
  auto tasks = (*suite)->load_tasks();
  if (!tasks) return tasks.status();
  std::vector<std::string> ids;
  for (auto& task : tasks.value()) {
    if (task.id == id) return task;
    ids.push_back(task.id);
  }
  return Status(StatusCode::not_found, "no task '" + id + "'" + did_you_mean(id, ids) + " (see `tritongym tasks list`)");
}

std::optional<EvaluationStage> parse_stage(const std::string& name) {
  for (EvaluationStage stage : {EvaluationStage::compile, EvaluationStage::test, EvaluationStage::benchmark,
                                EvaluationStage::profile, EvaluationStage::final_score})
    if (name == stage_name(stage) || (name == "final" && stage == EvaluationStage::final_score)) return stage;
  return std::nullopt;
}

boost::json::object result_json(const EvaluationResult& result, const std::string& executor, const std::string& reason) {
  boost::json::array shapes;
  for (const auto& shape : result.shapes)
    shapes.push_back({{"shape", shape.shape}, {"passed", shape.passed}, {"max_abs_error", shape.max_abs_error},
                      {"max_rel_error", shape.max_rel_error}, {"first_mismatch", shape.first_mismatch}});
  boost::system::error_code error;
  boost::json::value record = boost::json::parse(result.record_json, error);
  return {{"verdict", verdict_name(result.verdict)}, {"message", result.message}, {"executor", executor},
          {"executor_reason", reason}, {"shapes", shapes}, {"stdout", result.stdout_text},
          {"stderr", result.stderr_text}, {"wall_seconds", result.wall_seconds},
          {"record", error ? boost::json::value(nullptr) : record}};
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
      "executor", po::value<std::string>()->default_value("auto"), "executor id, or auto")(
      "stage", po::value<std::string>()->default_value("test"), "compile, test or final (visible + held-out shapes)")(
      "seeds", po::value<int64_t>()->default_value(3), "random input sets per shape")(
      "timeout", po::value<double>()->default_value(120.0), "seconds the candidate may run")(
      "root", po::value<std::string>(), "suites folder (default: <project>/tasks)")("json", "print the result as JSON");
  int exit_code = kExitOk;
  std::string usage = "tritongym eval --task ID --code FILE [--executor ID|auto] [--stage compile|test|final] [--json]";
  auto values = parse_arguments(usage, options, {}, arguments, exit_code);
  if (!values) return exit_code;
  if (!values->count("task") || !values->count("code")) {
    std::cerr << "error: eval needs --task and --code\nusage: " << usage << "\n";
    return kExitUsage;
  }
  std::string code_path = (*values)["code"].as<std::string>();
  std::ifstream code_file(code_path);
  if (!code_file) {
    print_error(Status(StatusCode::not_found, "cannot read candidate file '" + code_path + "'"));
    return kExitUsage;
  }
  std::stringstream code;
  code << code_file.rdbuf();
  auto stage = parse_stage((*values)["stage"].as<std::string>());
  if (!stage) {
    std::cerr << "error: unknown stage '" << (*values)["stage"].as<std::string>() << "' (compile, test, final)\n";
    return kExitUsage;
  }

  plugins::Registry registry;
  load_registry(context, registry);
  std::string root = values->count("root") ? (*values)["root"].as<std::string>()
                                           : (std::filesystem::path(context.project_root) / "tasks").string();
  auto task = find_task(context, registry, root, (*values)["task"].as<std::string>());
  if (!task) {
    print_error(task.status());
    return task.status().code() == StatusCode::not_found ? kExitUsage : kExitConfigError;
  }
  // The task's DSL plugin (tritongym.dsl.<dsl>), when one is loaded, checks the source first, as the tools do.
  std::string dsl_id = "tritongym.dsl." + task->dsl;
  if (registry.contains(plugins::PluginKind::dsl, dsl_id)) {
    auto dsl = registry.create<Dsl>(dsl_id, plugin_context(context, registry, dsl_id, "{}", "eval"));
    if (!dsl) {
      print_error(dsl.status());
      return kExitPluginError;
    }
    if (Status rules = (*dsl)->check_source(code.str()); !rules.is_ok()) {
      std::cout << "compile_error: " << rules.message() << "\n";
      return kExitFailure;
    }
  }
  auto choice = environment::choose_executor(registry, (*values)["executor"].as<std::string>(), [&](const std::string& id) {
    return plugin_context(context, registry, id, "{}", "--executor");
  });
  if (!choice) {
    print_error(choice.status());
    return choice.status().code() == StatusCode::not_found ? kExitPluginError : kExitMissingRequirement;
  }
  spdlog::info("executor {}: {}", choice->id, choice->reason);

  EvaluationRequest request;
  request.task = task.value();
  request.source_code = code.str();
  request.stage = *stage;
  request.shapes = *stage == EvaluationStage::final_score ? ShapeSet::held_out : ShapeSet::visible;
  request.seeds_per_shape = (*values)["seeds"].as<int64_t>();
  request.timeout_s = (*values)["timeout"].as<double>();
  auto result = choice->executor->evaluate(request);
  if (!result) {
    print_error(result.status());
    return result.status().code() == StatusCode::unimplemented ? kExitNotAvailable : kExitFailure;
  }
  if (values->count("json")) print_json(std::cout, result_json(*result, choice->id, choice->reason));
  else print_text(*result);
  return result->verdict == Verdict::passed ? kExitOk : kExitFailure;
}

}  // namespace tritongym::cli
