#include "cli/eval_judging.hpp"

#include <boost/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/plugin_loading.hpp"
#include "judging/dsl_rule.hpp"
#include "plugins/default_plugins.hpp"
#include "tritongym/sdk/did_you_mean.hpp"
#include "tritongym/sdk/dsl.hpp"
#include "tritongym/sdk/result_json.hpp"
#include "tritongym/sdk/suite.hpp"

namespace tritongym::cli {

const Result<std::vector<TaskSpec>>& TaskFinder::loaded() {
  if (!tasks_) {
    const std::string suite_id = plugins::kDirectorySuite;
    boost::json::object config{{"root", std::filesystem::absolute(root_).string()}};
    auto suite = registry_.create<Suite>(suite_id, plugin_context(context_, registry_, suite_id,
                                                                  boost::json::serialize(config), "--root"));
    tasks_ = suite ? (*suite)->load_tasks() : Result<std::vector<TaskSpec>>(suite.status());
  }
  return *tasks_;
}

Result<TaskSpec> TaskFinder::find(const std::string& id) {
  std::lock_guard lock(mutex_);
  const auto& tasks = loaded();
  if (!tasks) return tasks.status();
  std::vector<std::string> ids;
  for (const auto& task : tasks.value()) {
    if (task.id == id) return task;
    ids.push_back(task.id);
  }
  return Status(StatusCode::not_found, "no task '" + id + "'" + did_you_mean(id, ids) + " (see `tritongym tasks list`)");
}

Result<std::vector<TaskSpec>> TaskFinder::all() {
  std::lock_guard lock(mutex_);
  return loaded();
}

Result<std::string> read_candidate(const std::string& path) {
  std::ifstream file(path);
  if (!file) return Status(StatusCode::not_found, "cannot read candidate file '" + path + "'");
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

Result<EvaluationResult> judge(const CliContext& context, plugins::Registry& registry, Executor& executor,
                               const TaskSpec& task, const std::string& code, const JudgeOptions& options) {
  std::string dsl_id = plugins::dsl_plugin_id(task.dsl);
  std::unique_ptr<Dsl> dsl;
  if (registry.contains(plugins::PluginKind::dsl, dsl_id)) {
    static std::mutex dsl_mutex;  // a batch judges several candidates at once; a DSL plugin is made per check
    std::lock_guard lock(dsl_mutex);
    auto made = registry.create<Dsl>(dsl_id, plugin_context(context, registry, dsl_id, "{}", "eval"));
    if (!made) return made.status();
    dsl = std::move(made.value());
  }
  return judging::judge(executor, dsl.get(), judging_request(task, code, options));
}

boost::json::object eval_result_json(const EvaluationResult& result, const std::string& executor_id,
                                     const std::string& executor_reason) {
  boost::json::object out = evaluation_json(result);
  out["executor_reason"] = executor_reason;
  out["executor"] = executor_id;  // the executor's own record is evaluation_json's "record"
  return out;
}

EvaluationRequest judging_request(const TaskSpec& task, const std::string& code, const JudgeOptions& options) {
  EvaluationRequest request;
  request.task = task;
  request.source_code = code;
  request.stage = options.stage;
  request.shapes = options.stage == EvaluationStage::final_score ? ShapeSet::held_out : ShapeSet::visible;
  request.seeds_per_shape = options.seeds;
  request.timeout_s = options.timeout_s;
  return request;
}

}  // namespace tritongym::cli
