// `tritongym export RUN_DIR EPISODE_KEY --to DIR`: a solved kernel as a standalone module, ready to drop
// into a project: kernel.py (the candidate as scored), reference.py (the task's PyTorch reference),
// task_inputs.py (the task's shapes, dtypes and tolerances) with tritongym_inputs.py (a copy of the
// worker's input generator), test_kernel.py (pytest,
// kernel vs reference at the task's visible shapes), bench_kernel.py (triton.testing.do_bench, kernel vs
// reference) and README.md.
#pragma once

#include <string>
#include <vector>

#include "tritongym/sdk/status.hpp"

namespace tritongym::run {

struct ExportOutcome {
  std::string task_id;
  std::vector<std::string> files;  // absolute paths written
};

// Refuses an episode that did not pass (failed_precondition, naming its verdict) and an unknown key
// (not_found, with a did-you-mean). `input_generator_path` is the worker's tritongym_worker/inputs.py.
Result<ExportOutcome> export_episode(const std::string& run_dir, const std::string& episode_key,
                                     const std::string& to_dir, const std::string& input_generator_path);

}  // namespace tritongym::run
