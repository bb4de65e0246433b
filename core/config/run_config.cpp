#include "config/run_config.hpp"

#include <boost/json/serialize.hpp>

#include <filesystem>
#include <set>

#include "config/overrides.hpp"
#include "config/schema.hpp"
#include "config/yaml_loader.hpp"
#include "plugins/default_plugins.hpp"

namespace tritongym::config {
namespace {

namespace fs = std::filesystem;

Schema plugin_config_schema() { return Schema::any(); }

const Schema& run_schema() {
  static const Schema schema = [] {
    Schema suite = Schema::object();
    suite.field("plugin", Schema::string(), false, "a suite plugin id; default tritongym.suite.directory")
        .field("config", plugin_config_schema())
        .field("tasks", Schema::list_of(Schema::string()))
        .field("splits", Schema::list_of(Schema::string().one_of({"standard", "ood", "dsl", "community"})))
        .field("limit", Schema::integer(1));
    Schema model = Schema::object();
    model.field("name", Schema::string(), true, "a label for results tables")
        .field("backend", Schema::string(), true, "a backend plugin id")
        .field("config", plugin_config_schema());
    Schema workflow = Schema::object();
    workflow.or_string()
        .field("name", Schema::string(), true, "a label for results tables")
        .field("plugin", Schema::string(), true, "a workflow plugin id")
        .field("description", Schema::string())
        .field("config", plugin_config_schema());
    Schema tool = Schema::object();
    tool.or_string()
        .field("plugin", Schema::string(), true, "a tool plugin id, e.g. tritongym.tool.benchmark")
        .field("config", plugin_config_schema());
    Schema executor = Schema::object();
    executor.field("plugin", Schema::string(), false, "an executor plugin id or auto")
        .field("config", plugin_config_schema());
    Schema budget = Schema::object();
    budget.field("max_turns", Schema::integer(0))
        .field("max_tool_calls", Schema::integer(0))
        .field("max_calls_per_tool", Schema::map_of(Schema::integer(0)))
        .field("max_input_tokens", Schema::integer(0))
        .field("max_output_tokens", Schema::integer(0))
        .field("max_dollars", Schema::number(0))
        .field("max_gpu_seconds", Schema::number(0))
        .field("max_wall_seconds", Schema::number(0));
    Schema output = Schema::object();
    output.field("dir", Schema::string());
    Schema plugins = Schema::object();
    plugins.field("paths", Schema::list_of(Schema::string()));

    Schema run = Schema::object();
    run.field("name", Schema::string(), true, "names the run and its output folder")
        .field("description", Schema::string())
        .field("suites", Schema::list_of(suite), true)
        .field("models", Schema::list_of(model), true)
        .field("workflows", Schema::list_of(workflow), true)
        .field("executor", executor)
        .field("tools", Schema::list_of(tool))
        .field("budget", budget)
        .field("samples", Schema::integer(1))
        .field("max_concurrent_episodes", Schema::integer(1))
        .field("output", output)
        .field("plugins", plugins);
    return run;
  }();
  return schema;
}

std::string resolve_path(const std::string& relative, const std::string& base_dir, const std::string& project_root) {
  fs::path path(relative);
  if (path.is_absolute()) return path.lexically_normal().string();
  fs::path beside = fs::path(base_dir) / path;
  if (fs::exists(beside) || project_root.empty()) return fs::absolute(beside).lexically_normal().string();
  return (fs::path(project_root) / path).lexically_normal().string();
}

PluginChoice choose(const ConfigNode& owner, const std::string& id_key, const std::string& default_id) {
  PluginChoice choice;
  const ConfigNode::Entry* id = owner.find_entry(id_key);
  choice.id = id && id->value.is_scalar() ? id->value.text() : default_id;
  choice.id_where = id ? id->value.where() : owner.where();
  const ConfigNode* config = owner.find("config");
  if (config && !config->is_null()) {
    choice.config_json = boost::json::serialize(to_json(*config, &choice.config_sources));
    choice.config_origin = config->where().to_string();
  } else {
    choice.config_origin = owner.where().to_string();
  }
  return choice;
}

std::vector<std::string> strings(const ConfigNode* list) {
  std::vector<std::string> out;
  if (list)
    for (const auto& item : list->items()) out.push_back(item.text());
  return out;
}

template <class T>
void read_optional(const ConfigNode& parent, const char* key, std::optional<T>& out) {
  const ConfigNode* node = parent.find(key);
  if (!node || node->is_null()) return;
  if constexpr (std::is_same_v<T, double>) out = node->as_double();
  else out = node->as_int();
}

Status inline_workflow_files(ConfigNode& root, const std::string& base_dir, const std::string& project_root) {
  ConfigNode* workflows = root.find("workflows");
  if (!workflows || !workflows->is_sequence()) return {};
  for (auto& item : workflows->items()) {
    if (!item.is_scalar()) continue;
    std::string path = resolve_path(item.text(), base_dir, project_root);
    auto loaded = load_yaml_file(path);
    if (!loaded) {
      Status inner = loaded.status();
      if (inner.code() == StatusCode::not_found)
        return Status(StatusCode::invalid_config, "workflow file '" + item.text() + "' not found (looked at " + path + ")",
                      item.where().to_string());
      return inner;
    }
    Status valid = workflow_file_schema().validate(loaded.value(), path);
    if (!valid.is_ok()) return valid;
    item = std::move(loaded.value());
  }
  return {};
}

}  // namespace

const Schema& workflow_file_schema() {
  static const Schema schema = [] {
    Schema workflow = Schema::object();
    workflow.field("name", Schema::string(), true, "a label for results tables")
        .field("plugin", Schema::string(), true, "a workflow plugin id")
        .field("description", Schema::string())
        .field("config", Schema::any());
    return workflow;
  }();
  return schema;
}

Result<RunConfig> load_run_config(const std::string& path, const std::vector<std::string>& overrides,
                                  const std::string& project_root) {
  auto loaded = load_yaml_file(path);
  if (!loaded) return loaded.status();
  ConfigNode root = std::move(loaded.value());
  for (const auto& assignment : overrides) {
    Status status = apply_override(root, assignment);
    if (!status.is_ok()) return status;
  }
  std::string base_dir = fs::absolute(path).parent_path().string();
  Status inlined = inline_workflow_files(root, base_dir, project_root);
  if (!inlined.is_ok()) return inlined;
  Status valid = run_schema().validate(root);
  if (!valid.is_ok()) return valid;

  RunConfig run;
  run.source_file = path;
  run.name = root.find("name")->text();
  if (const ConfigNode* description = root.find("description")) run.description = description->text();

  for (const auto& suite : root.find("suites")->items()) {
    SuiteChoice choice;
    choice.plugin = choose(suite, "plugin", plugins::kDirectorySuite);
    choice.task_ids = strings(suite.find("tasks"));
    choice.splits = strings(suite.find("splits"));
    read_optional(suite, "limit", choice.limit);
    run.suites.push_back(std::move(choice));
  }

  std::set<std::string> names;
  auto unique = [&](const ConfigNode& entry, const std::string& kind) -> Status {
    const ConfigNode* name = entry.find("name");
    if (!names.insert(kind + "/" + name->text()).second)
      return Status(StatusCode::invalid_config, "two " + kind + "s are named '" + name->text() + "'; names label results and must differ",
                    name->where().to_string());
    return {};
  };
  for (const auto& model : root.find("models")->items()) {
    if (Status status = unique(model, "model"); !status.is_ok()) return status;
    run.models.push_back({model.find("name")->text(), choose(model, "backend", "")});
  }
  for (const auto& workflow : root.find("workflows")->items()) {
    if (Status status = unique(workflow, "workflow"); !status.is_ok()) return status;
    const ConfigNode* description = workflow.find("description");
    run.workflows.push_back({workflow.find("name")->text(), description ? description->text() : "",
                             choose(workflow, "plugin", "")});
  }
  if (const ConfigNode* executor = root.find("executor"))
    run.executor = choose(*executor, "plugin", "auto");
  else
    run.executor.id = "auto";
  if (const ConfigNode* tools = root.find("tools")) {
    for (const auto& tool : tools->items()) {
      PluginChoice choice;
      if (tool.is_scalar()) {  // a bare id: the tool with its defaults
        choice.id = tool.text();
        choice.id_where = tool.where();
        choice.config_origin = tool.where().to_string();
      } else {
        choice = choose(tool, "plugin", "");
      }
      for (const auto& other : run.tools)
        if (other.id == choice.id)
          return Status(StatusCode::invalid_config, "tools: '" + choice.id + "' is listed twice", choice.id_where.to_string());
      run.tools.push_back(std::move(choice));
    }
  }

  if (const ConfigNode* budget = root.find("budget")) {
    read_optional(*budget, "max_turns", run.budget.max_turns);
    read_optional(*budget, "max_tool_calls", run.budget.max_tool_calls);
    read_optional(*budget, "max_input_tokens", run.budget.max_input_tokens);
    read_optional(*budget, "max_output_tokens", run.budget.max_output_tokens);
    read_optional(*budget, "max_dollars", run.budget.max_dollars);
    read_optional(*budget, "max_gpu_seconds", run.budget.max_gpu_seconds);
    read_optional(*budget, "max_wall_seconds", run.budget.max_wall_seconds);
    if (const ConfigNode* per_tool = budget->find("max_calls_per_tool"))
      for (const auto& entry : per_tool->entries()) run.budget.max_calls_per_tool[entry.key] = *entry.value.as_int();
  }
  if (const ConfigNode* samples = root.find("samples")) run.samples = *samples->as_int();
  if (const ConfigNode* concurrency = root.find("max_concurrent_episodes"))
    run.max_concurrent_episodes = *concurrency->as_int();

  std::string output = "runs/" + run.name;
  if (const ConfigNode* out = root.find("output"))
    if (const ConfigNode* dir = out->find("dir")) output = dir->text();
  run.output_dir = fs::path(output).is_absolute() ? output : fs::absolute(output).lexically_normal().string();
  if (const ConfigNode* plugins = root.find("plugins"))
    for (const auto& extra : strings(plugins->find("paths")))
      run.plugin_paths.push_back(resolve_path(extra, base_dir, project_root));

  run.resolved = std::move(root);
  return run;
}

}  // namespace tritongym::config
