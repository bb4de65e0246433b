// A task as JSON: what `tritongym tasks list|show --json` prints and what a run's store keeps for
// `tritongym export` (one form for both).
#pragma once

#include <boost/json.hpp>

#include "tritongym/sdk/types.hpp"

namespace tritongym::tasks {

// id, suite, split, category, dsl, entry_function, dtypes, visible/held-out shapes, tags, directory;
// `full` adds the entry parameters, description, inputs, small shapes, tolerance, FLOP and byte
// formulas, allowed library kernels, and the paths of reference.py and oracle.py.
boost::json::object task_json(const TaskSpec& task, bool full = true);

}  // namespace tritongym::tasks
