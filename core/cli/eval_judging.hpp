// What `tritongym eval` needs for one candidate, by hand or in a batch: the task by id, the candidate's source,
// and the judging itself (the task's DSL checks first, then the executor).
#pragma once

#include <boost/json/object.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "cli/commands.hpp"
#include "plugins/registry.hpp"
#include "tritongym/sdk/executor.hpp"

namespace tritongym::cli {

// The tasks of the suites folder `root`, loaded once, on first use (a batch looks up every line's task).
class TaskFinder {
 public:
  TaskFinder(const CliContext& context, plugins::Registry& registry, std::string root)
      : context_(context), registry_(registry), root_(std::move(root)) {}
  // not_found names the id, suggests a near one and says where to list them; other errors are the suite's.
  Result<TaskSpec> find(const std::string& id);
  // Every task of the folder, in the suite's order; an error is the suite's.
  Result<std::vector<TaskSpec>> all();

 private:
  const Result<std::vector<TaskSpec>>& loaded();  // with mutex_ held
  const CliContext& context_;
  plugins::Registry& registry_;
  std::string root_;
  std::mutex mutex_;
  std::optional<Result<std::vector<TaskSpec>>> tasks_;
};

// The file's text; not_found names the path.
Result<std::string> read_candidate(const std::string& path);

struct JudgeOptions {
  EvaluationStage stage = EvaluationStage::test;
  int64_t seeds = 3;
  double timeout_s = 120.0;
};

// Under the task's DSL rule (judging/dsl_rule.hpp), as the tools and a run's final score: the DSL plugin
// (tritongym.dsl.<dsl>), when one is loaded, checks the source first (a refusal is a compile_error result), then
// the executor judges it, told the frontend every kernel must come from. Safe to call from several threads.
Result<EvaluationResult> judge(const CliContext& context, plugins::Registry& registry, Executor& executor,
                               const TaskSpec& task, const std::string& code, const JudgeOptions& options);

// What `tritongym eval --json` prints for a judged candidate: evaluation_json (sdk/result_json.hpp) with the
// executor's id and why it was chosen, its record under "record". Also the body `tritongym serve` answers with.
boost::json::object eval_result_json(const EvaluationResult& result, const std::string& executor_id,
                                     const std::string& executor_reason);

// The request judge() hands the executor (also what a batch says is coming: Executor::expect).
EvaluationRequest judging_request(const TaskSpec& task, const std::string& code, const JudgeOptions& options);

}  // namespace tritongym::cli
