// `tritongym eval --task ID --code FILE`: judge one candidate file by hand, as the tools would.
#include <boost/json.hpp>
#include <spdlog/spdlog.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <iomanip>
#include <thread>
#include <vector>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/arguments.hpp"
#include "cli/exit_codes.hpp"
#include "tritongym/sdk/result_json.hpp"
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
  boost::json::object out = evaluation_json(result);
  out["executor_reason"] = reason;
  out["record"] = out["executor"];
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

// The task's DSL plugin (tritongym.dsl.<dsl>), when one is loaded, checks the source first, as the tools
// do; a refusal is a compile_error result.
Result<EvaluationResult> judge(const CliContext& context, plugins::Registry& registry, Executor& executor,
                               const TaskSpec& task, const std::string& code, EvaluationStage stage, int64_t seeds,
                               double timeout_s) {
  std::string dsl_id = "tritongym.dsl." + task.dsl;
  if (registry.contains(plugins::PluginKind::dsl, dsl_id)) {
    static std::mutex dsl_mutex;  // --batch judges several candidates at once; a DSL plugin is made per check
    std::lock_guard lock(dsl_mutex);
    auto dsl = registry.create<Dsl>(dsl_id, plugin_context(context, registry, dsl_id, "{}", "eval"));
    if (!dsl) return dsl.status();
    if (Status rules = (*dsl)->check_source(code); !rules.is_ok()) {
      EvaluationResult refused;
      refused.verdict = Verdict::compile_error;
      refused.message = rules.message();
      return refused;
    }
  }
  EvaluationRequest request;
  request.task = task;
  request.source_code = code;
  request.stage = stage;
  request.shapes = stage == EvaluationStage::final_score ? ShapeSet::held_out : ShapeSet::visible;
  request.seeds_per_shape = seeds;
  request.timeout_s = timeout_s;
  return executor.evaluate(request);
}

Result<std::string> read_text(const std::string& path) {
  std::ifstream file(path);
  if (!file) return Status(StatusCode::not_found, "cannot read candidate file '" + path + "'");
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// When this process started, near enough: set as the program is loaded.
const auto kProcessStart = std::chrono::steady_clock::now();

// --batch FILE: one "TASK_ID PATH" per line, all through one warm executor; one JSON line per candidate, in
// the file's order. As many candidates are judged at once as the executor has slots (its workers): on
// triton-cuda their checks overlap while timing takes each GPU alone.
int evaluate_batch(const CliContext& context, plugins::Registry& registry, Executor& executor, const std::string& root,
                   const std::string& batch_path, EvaluationStage stage, int64_t seeds, double timeout_s) {
  std::ifstream batch(batch_path);
  if (!batch) {
    print_error(Status(StatusCode::not_found, "cannot read batch file '" + batch_path + "'"));
    return kExitUsage;
  }
  struct Item {
    std::string task_id, path, code;
    TaskSpec task;
    std::optional<Result<EvaluationResult>> result;
    double host_seconds = 0.0;
    double started_s = 0.0;  // when it was started, in seconds since judging began
  };
  std::vector<Item> items;  // every line is read and checked before anything is judged
  std::string line;
  int line_number = 0;
  while (std::getline(batch, line)) {
    ++line_number;
    std::istringstream fields(line);
    Item item;
    if (!(fields >> item.task_id) || item.task_id[0] == '#') continue;
    if (!(fields >> item.path)) {
      print_error(Status(StatusCode::invalid_argument, "expected 'TASK_ID PATH'", batch_path + ":" + std::to_string(line_number)));
      return kExitUsage;
    }
    auto task = find_task(context, registry, root, item.task_id);
    auto code = read_text(item.path);
    if (!task || !code) {
      print_error(!task ? task.status() : code.status());
      return kExitUsage;
    }
    item.task = std::move(task.value());
    item.code = std::move(code.value());
    items.push_back(std::move(item));
  }
  (void)executor.availability();  // starts the executor (if choosing it did not), which then knows its slots
  const size_t slots = static_cast<size_t>(std::max<int64_t>(executor.info().parallel_slots, 1));
  // On stderr, beside the results on stdout: what a throughput measurement needs to tell start-up (loading
  // plugins, starting the workers) from judging.
  const double start_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - kProcessStart).count();
  std::cerr << "batch: " << items.size() << " candidates, " << std::min(slots, items.size())
            << " at once; the executor started in " << std::fixed << std::setprecision(2) << start_seconds
            << " s (since the process did)" << std::endl;
  const auto judging_started = std::chrono::steady_clock::now();
  std::mutex mutex;
  std::condition_variable done;
  size_t next = 0, printed = 0;
  bool failed = false;
  auto work = [&] {
    for (;;) {
      size_t index;
      {
        std::lock_guard lock(mutex);
        if (next == items.size() || failed) return;
        index = next++;
      }
      Item& item = items[index];
      auto started = std::chrono::steady_clock::now();
      item.started_s = std::chrono::duration<double>(started - judging_started).count();
      Result<EvaluationResult> result = Status(StatusCode::internal, "not judged");
      try {
        result = judge(context, registry, executor, item.task, item.code, stage, seeds, timeout_s);
      } catch (const std::exception& error) {
        result = Status(StatusCode::internal, item.path + ": judging it failed: " + error.what());
      }
      {
        std::lock_guard lock(mutex);
        item.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        failed = failed || !result;
        item.result = std::move(result);
      }
      done.notify_all();
    }
  };
  std::vector<std::thread> threads;
  for (size_t i = 0; i < std::min(slots, items.size()); ++i) threads.emplace_back(work);
  int exit_code = kExitOk;
  try {
    std::unique_lock lock(mutex);
    while (printed < items.size()) {
      done.wait(lock, [&] { return items[printed].result.has_value() || (failed && next <= printed); });
      if (!items[printed].result) break;  // a failure stopped the batch before this one was started
      Item& item = items[printed++];
      if (!*item.result) {
        print_error(item.result->status());
        exit_code = kExitFailure;
        continue;
      }
      boost::json::object out = evaluation_json(item.result->value());
      // Where the time went (prepare, candidate, compare, baselines, inside the candidate's child, and its
      // turns on a shared GPU: compiles off it, time held during others' timings), what its autotuner chose,
      // and how its timing report compared with the device's counters: the part of the record kept.
      // Moved out of the record first: inserting into `out` may move its values, the record among them.
      boost::json::value record = out.contains("executor") ? std::move(out["executor"]) : boost::json::value();
      out.erase("executor");
      if (record.is_object())
        for (const char* key : {"phase_seconds", "candidate_phases", "compiles_off_gpu", "autotune_compiled",
                                "autotune_choices", "autotune_benchmarks", "turns", "report_check"})
          if (auto* value = record.as_object().if_contains(key)) out[key] = std::move(*value);
      out.erase("stdout");
      out.erase("stderr");
      out["task"] = item.task_id;
      out["code"] = item.path;
      out["host_seconds"] = item.host_seconds;
      out["started_s"] = item.started_s;
      std::cout << boost::json::serialize(out) << std::endl;
    }
  } catch (const std::exception& error) {  // said, and the running evaluations finish before the batch ends
    print_error(Status(StatusCode::internal, std::string("the batch stopped: ") + error.what()));
    std::lock_guard lock(mutex);
    failed = true;
  }
  for (auto& thread : threads) thread.join();
  return failed ? kExitFailure : exit_code;
}

}  // namespace

int command_eval(const CliContext& context, const Arguments& arguments) {
  po::options_description options("eval options");
  options.add_options()("task", po::value<std::string>(), "task id, e.g. standard/softmax")(
      "code", po::value<std::string>(), "the candidate: one Python file")(
      "batch", po::value<std::string>(), "a file of 'TASK_ID PATH' lines, judged in order by one warm executor")(
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
      "tritongym eval (--task ID --code FILE | --batch FILE) [--executor ID|auto] "
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
  Result<std::string> code = batch ? Result<std::string>(std::string()) : read_text((*values)["code"].as<std::string>());
  if (!code) {
    print_error(code.status());
    return kExitUsage;
  }

  plugins::Registry registry;
  load_registry(context, registry);
  std::string root = values->count("root") ? (*values)["root"].as<std::string>()
                                           : (std::filesystem::path(context.project_root) / "tasks").string();
  Result<TaskSpec> task = batch ? Result<TaskSpec>(TaskSpec{}) : find_task(context, registry, root, (*values)["task"].as<std::string>());
  if (!task) {
    print_error(task.status());
    return task.status().code() == StatusCode::not_found ? kExitUsage : kExitConfigError;
  }
  const std::string executor_config = (*values)["executor-config"].as<std::string>();
  auto choice = environment::choose_executor(registry, (*values)["executor"].as<std::string>(), [&](const std::string& id) {
    return plugin_context(context, registry, id, executor_config, "--executor-config");
  });
  if (!choice) {
    const Status& status = choice.status();
    if (status.code() == StatusCode::invalid_config) {
      print_error(Status(status.code(), status.message(), "--executor-config " + status.location()));
      return kExitConfigError;
    }
    print_error(status);
    return status.code() == StatusCode::not_found ? kExitPluginError : kExitMissingRequirement;
  }
  spdlog::info("executor {}: {}", choice->id, choice->reason);
  int64_t seeds = (*values)["seeds"].as<int64_t>();
  double timeout_s = (*values)["timeout"].as<double>();
  if (batch)
    return evaluate_batch(context, registry, *choice->executor, root, (*values)["batch"].as<std::string>(), *stage,
                          seeds, timeout_s);

  auto result = judge(context, registry, *choice->executor, *task, *code, *stage, seeds, timeout_s);
  if (!result) {
    print_error(result.status());
    return result.status().code() == StatusCode::unimplemented ? kExitNotAvailable : kExitFailure;
  }
  if (values->count("json")) print_json(std::cout, result_json(*result, choice->id, choice->reason));
  else print_text(*result);
  return result->verdict == Verdict::passed ? kExitOk : kExitFailure;
}

}  // namespace tritongym::cli
