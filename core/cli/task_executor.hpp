// The executor `tasks check` and `tasks audit` judge oracles with: the one --executor names (or auto), with
// --executor-config, and the baselines the command times by default where the executor lets it choose.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "environment/executor_choice.hpp"
#include "plugins/registry.hpp"

namespace tritongym::cli {

// `default_baselines`: set as the config's `baselines` when --executor-config names none and the executor has
// that key. Errors: a config that is not a JSON object (invalid_config), or why no executor was made.
Result<environment::ExecutorChoice> make_task_executor(const CliContext& context, plugins::Registry& registry,
                                                       const std::string& executor_id,
                                                       const std::string& executor_config,
                                                       const std::vector<std::string>& default_baselines);

// Why `executor` cannot run `task`'s oracle (its ExecutorInfo::dsls lacks the task's DSL: the interpreter runs no
// Gluon), or nothing when it can. The one place the task commands decide it.
std::optional<std::string> executor_skips(const environment::ExecutorChoice& executor, const TaskSpec& task);

// Whether `executor` runs plain Triton, and so the task's triton_baseline.py where it cannot run the oracle.
bool runs_plain_triton(const environment::ExecutorChoice& executor, const TaskSpec& task);

}  // namespace tritongym::cli
