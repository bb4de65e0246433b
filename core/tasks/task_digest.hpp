// A digest of the files that define a task (task.yaml, reference.py, oracle.py, triton_baseline.py where there is
// one), so that a resumed run
// can tell which tasks changed since their episodes were recorded.
#pragma once

#include <string>

#include "tritongym/sdk/types.hpp"

namespace tritongym::tasks {

// 16 hex digits (FNV-1a, 64 bits) over each file's name and bytes; a missing file counts as empty.
std::string task_files_digest(const TaskSpec& task);

}  // namespace tritongym::tasks
