// Parses one task.yaml into a TaskSpec. The format is documented in docs/task-format.md.
#pragma once

#include <string>

#include "tritongym/sdk/status.hpp"
#include "tritongym/sdk/types.hpp"

namespace tritongym::suite_directory {

// `suite` is the suite folder's name; the task's id becomes "<suite>/<id>".
// Errors name "task.yaml:line:column" and the key.
Result<TaskSpec> parse_task_yaml(const std::string& task_yaml_path, const std::string& suite);

}  // namespace tritongym::suite_directory
