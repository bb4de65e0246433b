// `tritongym tasks audit`: every chosen task against the bar (core/tasks/task_audit.hpp), one line per task on
// stderr as it ends, the table last (Markdown, or JSON with --json). --out DIR also writes audit.json and audit.md,
// again after each task, so that a sweep stopped by a time limit keeps what it measured; --resume keeps the tasks
// DIR/audit.json already holds (audited by the same executor, their files unchanged) and audits the rest.
// `jobs` tasks are audited at once (the table stays in the suite's order).
#pragma once

#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "plugins/registry.hpp"
#include "tritongym/sdk/types.hpp"

namespace tritongym::cli {

// Exit code: 0 when no task has a violation (exempt findings are listed, not violations), 1 otherwise.
// `suite`: the ids of every task the suites hold, chosen or not; a resumed table drops the rows of tasks gone from it.
int audit_tasks(const CliContext& context, plugins::Registry& registry, const std::vector<TaskSpec>& tasks,
                const std::vector<std::string>& suite, const std::string& executor_id,
                const std::string& executor_config, const std::string& out_dir, bool resume, size_t jobs, bool json);

}  // namespace tritongym::cli
