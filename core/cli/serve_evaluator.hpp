// The evaluator `tritongym serve` judges with: the executor --executor names (or auto) and the judging of
// `tritongym eval` (eval_judging.hpp), so that a served result is what `eval --json` prints for the same
// candidate.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "environment/executor_choice.hpp"
#include "plugins/registry.hpp"
#include "serve/evaluator.hpp"

namespace tritongym::cli {

class ServeEvaluator : public serve::Evaluator {
 public:
  // The references must outlive the evaluator.
  ServeEvaluator(const CliContext& context, plugins::Registry& registry, std::vector<TaskSpec> tasks,
                 std::string executor_id, std::string executor_config);

  Status start() override;
  int64_t workers() const override { return workers_; }
  std::string executor_id() const override { return choice_ ? choice_->id : executor_id_; }
  const std::vector<TaskSpec>& tasks() const override { return tasks_; }
  Result<serve::JudgedCandidate> judge(const TaskSpec& task, const serve::CandidateRequest& request) override;
  void expect(const TaskSpec& task, const serve::CandidateRequest& request) override;

  // Why start() failed (ok before, and after a start that worked).
  const Status& start_error() const { return start_error_; }

 private:
  const CliContext& context_;
  plugins::Registry& registry_;
  std::vector<TaskSpec> tasks_;
  std::string executor_id_, executor_config_;
  std::optional<environment::ExecutorChoice> choice_;
  int64_t workers_ = 1;
  Status start_error_;
};

}  // namespace tritongym::cli
