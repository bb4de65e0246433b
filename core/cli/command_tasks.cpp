// `tritongym tasks list|show|check|audit`: the tasks the directory suite finds under tasks/ (or --root).
#include <boost/json.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "cli/arguments.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "cli/plugin_loading.hpp"
#include "cli/task_executor.hpp"
#include "cli/tasks_audit.hpp"
#include "environment/executor_choice.hpp"
#include "plugins/default_plugins.hpp"
#include "tasks/task_check.hpp"
#include "tasks/task_json.hpp"

namespace tritongym::cli {

namespace po = boost::program_options;

namespace {

using plugins::kDirectorySuite;

std::string shapes_text(const std::vector<ShapeSpec>& shapes) {
  std::string text;
  for (const auto& shape : shapes) {
    std::string dims;
    for (const auto& [name, size] : shape.dims) dims += (dims.empty() ? "" : ", ") + name + "=" + std::to_string(size);
    text += (text.empty() ? "" : "; ") + dims;
  }
  return text.empty() ? "-" : text;
}

int list(const std::vector<TaskSpec>& tasks, bool json, bool full) {
  if (json) {
    boost::json::array out;
    for (const auto& task : tasks) out.push_back(tasks::task_json(task, full));
    print_json(std::cout, out);
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& task : tasks)
    rows.push_back({task.id, task.split, task.category, task.dsl,
                    std::to_string(task.visible_shapes.size()) + "+" + std::to_string(task.held_out_shapes.size())});
  print_table(std::cout, {"id", "split", "category", "dsl", "shapes (visible+held-out)"}, rows);
  std::cout << "\n" << tasks.size() << " tasks\n";
  return kExitOk;
}

int show(const TaskSpec& task, bool json) {
  if (json) {
    print_json(std::cout, tasks::task_json(task, true));
    return kExitOk;
  }
  std::string parameters;
  for (const auto& name : task.entry_parameters) parameters += (parameters.empty() ? "" : ", ") + name;
  std::string dtypes;
  for (const auto& dtype : task.dtypes) dtypes += (dtypes.empty() ? "" : " ") + dtype;
  std::vector<std::vector<std::string>> rows = {
      {"id", task.id}, {"split", task.split}, {"category", task.category}, {"dsl", task.dsl},
      {"entry", task.entry_function + "(" + parameters + ")"}, {"dtypes", dtypes},
      {"visible shapes", shapes_text(task.visible_shapes)}, {"held-out shapes", shapes_text(task.held_out_shapes)},
      {"small shapes", shapes_text(task.small_shapes)}, {"flops", task.flops_formula}, {"bytes", task.bytes_formula},
      {"inputs", task.inputs_json}, {"folder", task.directory}};
  print_table(std::cout, {"field", "value"}, rows);
  std::cout << "\n" << task.description << "\n";
  return kExitOk;
}

int check(const CliContext& context, plugins::Registry& registry, const std::vector<TaskSpec>& tasks,
          const std::string& executor_id, const std::string& executor_config, bool json) {
  // The check judges each oracle and times it (its flags are part of passing), but times no baselines where
  // the executor lets it choose (unless --executor-config says otherwise): torch.compile of a reference that
  // loops took up to 295 s a task on the H200.
  auto choice = make_task_executor(context, registry, executor_id, executor_config, {});
  if (!choice) return executor_not_made(choice.status());
  spdlog::info("executor {}: {}", choice->id, choice->reason);
  boost::json::array results;
  std::vector<std::vector<std::string>> rows;
  size_t failed = 0, skipped = 0, done = 0;
  // Each task's line on stderr as soon as it is checked: a sweep stopped partway (a time limit, Ctrl-C) keeps
  // what it found, where the table on stdout comes only at the end.
  auto progress = [&](const TaskSpec& task, const std::string& status, const std::string& seconds) {
    std::cerr << "tasks check: " << ++done << " of " << tasks.size() << " " << task.id << " " << status
              << (seconds.empty() ? "" : " in " + seconds + " s") << std::endl;
  };
  auto checked = [&](const TaskSpec& task) { return !executor_skips(*choice, task); };
  for (size_t i = 0; i < tasks.size(); ++i) {
    const TaskSpec& task = tasks[i];
    if (auto why = executor_skips(*choice, task)) {
      if (!task.triton_baseline_path.empty() && runs_plain_triton(*choice, task)) {
        // The oracle is not run here, but the task's plain-Triton baseline is (the interpreter's small shapes).
        tasks::TaskCheck result = tasks::check_task(task, *choice->executor, /*oracle=*/false);
        (result.passed ? skipped : failed) += 1;  // its oracle is still unchecked: skipped, unless the baseline fails
        std::string problems;
        for (const auto& problem : result.problems) problems += (problems.empty() ? "" : " | ") + problem;
        const std::string status = result.passed ? "triton_baseline.py ok, oracle skipped (" + *why + ")"
                                                 : "FAILED: " + problems;
        rows.push_back({task.id, result.passed ? "baseline ok" : "FAILED", "-", result.passed ? *why : problems});
        boost::json::array list(result.problems.begin(), result.problems.end());
        results.push_back({{"task", task.id}, {"status", result.passed ? "baseline_only" : "failed"},
                           {"reason", *why}, {"problems", list},
                           {"triton_baseline_verdict", result.triton_baseline_verdict}});
        progress(task, status, "");
        continue;
      }
      ++skipped;
      rows.push_back({task.id, "skipped", "-", *why});
      results.push_back({{"task", task.id}, {"status", "skipped"}, {"reason", *why}});
      progress(task, "skipped (" + *why + ")", "");
      continue;
    }
    spdlog::info("checking {}", task.id);
    // The next task's cases are made while this one is checked (the reference worker is mostly idle then).
    for (size_t next = i + 1; next < tasks.size(); ++next)
      if (checked(tasks[next]) && !tasks[next].reference_path.empty()) {
        choice->executor->expect(tasks::oracle_request(tasks[next]));
        break;
      }
    tasks::TaskCheck result = tasks::check_task(task, *choice->executor);
    failed += result.passed ? 0 : 1;
    std::string problems;
    for (const auto& problem : result.problems) problems += (problems.empty() ? "" : " | ") + problem;
    std::ostringstream seconds;
    seconds.precision(1);
    seconds << std::fixed << result.seconds;
    rows.push_back({task.id, result.passed ? "ok" : "FAILED", seconds.str(),
                    result.passed ? std::to_string(result.shapes_checked) + " shapes" : problems});
    boost::json::array list(result.problems.begin(), result.problems.end());
    results.push_back({{"task", task.id}, {"status", result.passed ? "ok" : "failed"}, {"problems", list},
                       {"oracle_verdict", result.oracle_verdict},
                       {"triton_baseline_verdict", result.triton_baseline_verdict}, {"shapes", result.shapes_checked},
                       {"seconds", result.seconds}});
    progress(task, result.passed ? "ok" : "FAILED: " + problems, seconds.str());
  }
  if (json) {
    print_json(std::cout, boost::json::object{{"executor", choice->id}, {"tasks", results}});
  } else {
    print_table(std::cout, {"task", "check", "seconds", "details"}, rows);
    std::cout << "\n" << tasks.size() - failed - skipped << " passed, " << failed << " failed, " << skipped
              << " skipped (executor " << choice->id << ")\n";
  }
  return failed == 0 ? kExitOk : kExitFailure;
}

}  // namespace

int command_tasks(const CliContext& context, const Arguments& arguments) {
  po::options_description options("tasks options");
  options.add_options()("action", po::value<std::string>(), "list | show | check | audit")(
      "ids", po::value<std::vector<std::string>>(), "task ids (show: one; check: any, default all)")(
      "json", "print JSON")("full", "list --json: every field, as tasks show gives it")("split", po::value<std::string>(), "only this split: standard, ood, dsl, community")(
      "root", po::value<std::string>(), "suites folder (default: <project>/tasks)")(
      "executor", po::value<std::string>()->default_value("auto"), "check: executor id, or auto")(
      "executor-config", po::value<std::string>()->default_value("{}"),
      "check, audit: the executor's config as JSON (baselines default to none for check, eager and "
      "torch.compile for audit)")("out", po::value<std::string>(), "audit: also write audit.json and audit.md here (after each task)")(
      "resume", "audit: keep the tasks --out's audit.json holds and audit the rest")(
      "jobs", po::value<size_t>()->default_value(1),
      "audit: tasks audited at once (one task's checks and compiles overlap another's timing, which the executor "
      "keeps exclusive)");
  po::positional_options_description positional;
  positional.add("action", 1).add("ids", -1);
  int exit_code = kExitOk;
  std::string usage =
      "tritongym tasks list|check|audit [ID...] [--split SPLIT] [--root DIR] [--executor ID] [--executor-config JSON] "
      "[--out DIR [--resume]] [--jobs N] [--json [--full]] | tasks show ID";
  auto values = parse_arguments(usage, options, positional, arguments, exit_code);
  if (!values) return exit_code;
  std::string action = values->count("action") ? (*values)["action"].as<std::string>() : "";
  if (action != "list" && action != "show" && action != "check" && action != "audit") {
    std::cerr << "error: " << (action.empty() ? "missing action" : "unknown action '" + action + "'")
              << did_you_mean(action, {"list", "show", "check", "audit"}) << "\nusage: " << usage << "\n";
    return kExitUsage;
  }

  plugins::Registry registry;
  load_registry(context, registry);
  std::string root = values->count("root") ? (*values)["root"].as<std::string>()
                                           : (std::filesystem::path(context.project_root) / "tasks").string();
  boost::json::object config{{"root", std::filesystem::absolute(root).string()}};
  auto suite = registry.create<Suite>(
      kDirectorySuite, plugin_context(context, registry, kDirectorySuite, boost::json::serialize(config), "--root"));
  if (!suite) {
    print_error(suite.status());
    return kExitPluginError;
  }
  auto loaded = (*suite)->load_tasks();
  if (!loaded) {
    print_error(loaded.status());
    return kExitConfigError;
  }
  std::vector<std::string> ids;
  if (values->count("ids")) ids = (*values)["ids"].as<std::vector<std::string>>();
  std::string split = values->count("split") ? (*values)["split"].as<std::string>() : "";
  std::vector<std::string> known;
  for (const auto& task : loaded.value()) known.push_back(task.id);
  for (const auto& id : ids) {
    if (std::find(known.begin(), known.end(), id) == known.end()) {
      print_error(Status(StatusCode::not_found, "no task '" + id + "'" + did_you_mean(id, known)));
      return kExitUsage;
    }
  }
  std::vector<TaskSpec> chosen;
  for (const auto& task : loaded.value()) {
    bool id_ok = ids.empty() || std::find(ids.begin(), ids.end(), task.id) != ids.end();
    if (id_ok && (split.empty() || task.split == split)) chosen.push_back(task);
  }
  bool json = values->count("json") > 0;
  if (action == "list") return list(chosen, json, values->count("full") > 0);
  if (action == "show") {
    if (ids.size() != 1) {
      std::cerr << "error: tasks show needs exactly one task id\n";
      return kExitUsage;
    }
    return show(chosen.front(), json);
  }
  if (action == "audit")
    return audit_tasks(context, registry, chosen, known, (*values)["executor"].as<std::string>(),
                       (*values)["executor-config"].as<std::string>(),
                       values->count("out") ? (*values)["out"].as<std::string>() : "", values->count("resume") > 0,
                       (*values)["jobs"].as<size_t>(), json);
  return check(context, registry, chosen, (*values)["executor"].as<std::string>(),
               (*values)["executor-config"].as<std::string>(), json);
}

}  // namespace tritongym::cli
