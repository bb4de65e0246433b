// `tritongym eval --batch SOURCE`: many candidates through one warm executor, judged as many at once as it has
// slots, one JSON line each on stdout in the order of their lines.
//   SOURCE a file: every line is read and checked first; a bad line stops the batch before anything is judged.
//   SOURCE "-": lines are read from stdin as they come, and each is judged as soon as a slot is free, for as long
//          as stdin is open: one process keeps its workers warm for a caller that sends candidates over time. A
//          bad line gets an error line in its place ({"line", "error"}) and the stream goes on.
#pragma once

#include <string>

#include "cli/eval_judging.hpp"

namespace tritongym::cli {

// The order in which free slots start the waiting candidates: the candidates that autotune first (they take
// longest), or the lines' own (`--in-order`, to measure what the first order gains). Results keep the lines'
// order either way.
enum class BatchOrder { autotuners_first, lines };

int evaluate_batch(const CliContext& context, plugins::Registry& registry, Executor& executor, TaskFinder& tasks,
                   const std::string& source, const JudgeOptions& options,
                   BatchOrder order = BatchOrder::autotuners_first);

}  // namespace tritongym::cli
