// `tritongym tasks list`: the tasks the directory suite finds under tasks/ (or --root).
#include <boost/json.hpp>

#include <filesystem>
#include <iostream>

#include "cli/arguments.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "cli/plugin_loading.hpp"

namespace tritongym::cli {

namespace po = boost::program_options;

namespace {

constexpr const char* kDirectorySuite = "tritongym.suite.directory";

boost::json::array shapes_json(const std::vector<ShapeSpec>& shapes) {
  boost::json::array out;
  for (const auto& shape : shapes) {
    boost::json::object dims;
    for (const auto& [name, size] : shape.dims) dims[name] = size;
    out.push_back({{"name", shape.name}, {"dims", dims}});
  }
  return out;
}

boost::json::object task_json(const TaskSpec& task) {
  boost::json::array dtypes(task.dtypes.begin(), task.dtypes.end());
  boost::json::array tags(task.tags.begin(), task.tags.end());
  return {{"id", task.id},
          {"suite", task.suite},
          {"split", task.split},
          {"category", task.category},
          {"dsl", task.dsl},
          {"entry_function", task.entry_function},
          {"dtypes", dtypes},
          {"visible_shapes", shapes_json(task.visible_shapes)},
          {"held_out_shapes", shapes_json(task.held_out_shapes)},
          {"tags", tags},
          {"directory", task.directory}};
}

}  // namespace

int command_tasks(const CliContext& context, const Arguments& arguments) {
  po::options_description options("tasks options");
  options.add_options()("action", po::value<std::string>(), "list")("json", "print JSON")(
      "split", po::value<std::string>(), "only this split: standard, ood, dsl, community")(
      "root", po::value<std::string>(), "suites folder (default: <project>/tasks)");
  po::positional_options_description positional;
  positional.add("action", 1);
  int exit_code = kExitOk;
  std::string usage = "tritongym tasks list [--json] [--split SPLIT] [--root DIR]";
  auto values = parse_arguments(usage, options, positional, arguments, exit_code);
  if (!values) return exit_code;
  std::string action = values->count("action") ? (*values)["action"].as<std::string>() : "";
  if (action != "list") {
    std::cerr << "error: " << (action.empty() ? "missing action" : "unknown action '" + action + "'")
              << (action == "show" || action == "check" ? " (lands with the task-suite issue)" : "")
              << "\nusage: " << usage << "\n";
    return action == "show" || action == "check" ? kExitNotAvailable : kExitUsage;
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
  auto tasks = (*suite)->load_tasks();
  if (!tasks) {
    print_error(tasks.status());
    return kExitConfigError;
  }
  std::string split = values->count("split") ? (*values)["split"].as<std::string>() : "";
  std::vector<const TaskSpec*> shown;
  for (const auto& task : tasks.value())
    if (split.empty() || task.split == split) shown.push_back(&task);

  if (values->count("json")) {
    boost::json::array out;
    for (const auto* task : shown) out.push_back(task_json(*task));
    print_json(std::cout, out);
  } else {
    std::vector<std::vector<std::string>> rows;
    for (const auto* task : shown)
      rows.push_back({task->id, task->split, task->category, task->dsl,
                      std::to_string(task->visible_shapes.size()) + "+" + std::to_string(task->held_out_shapes.size())});
    print_table(std::cout, {"id", "split", "category", "dsl", "shapes (visible+held-out)"}, rows);
    std::cout << "\n" << shown.size() << " tasks\n";
  }
  return kExitOk;
}

}  // namespace tritongym::cli
