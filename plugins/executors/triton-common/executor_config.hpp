// The configuration both Triton executors share (plugin.yaml documents each key).
#pragma once

#include <string>
#include <vector>

#include "tritongym/sdk/config.hpp"

namespace tritongym::triton_executor {

struct TritonExecutorConfig {
  int64_t workers = 0;             // candidate workers; 0: one per GPU (cuda) or 2 (interpreter)
  int64_t recycle_after = 50;      // evaluations before a worker is replaced
  int64_t secret_seeds = 8;        // size of the run's pool of input seeds (drawn at start, never shown)
  int64_t memory_limit_mb = 8192;  // address-space cap of a candidate's process (interpreter only)
  double worker_start_timeout_s = 300;
  std::string python;              // overrides the host's choice of Python
  std::string temp_dir;            // "" -> the system's temporary folder
  std::vector<std::string> pass_environment;  // host variables workers may also see (never secrets)
  bool keep_folders = false;       // keep worker folders after the run, for debugging

  static constexpr auto fields() {
    return std::make_tuple(
        field("workers", &TritonExecutorConfig::workers), field("recycle_after", &TritonExecutorConfig::recycle_after),
        field("secret_seeds", &TritonExecutorConfig::secret_seeds),
        field("memory_limit_mb", &TritonExecutorConfig::memory_limit_mb),
        field("worker_start_timeout_s", &TritonExecutorConfig::worker_start_timeout_s),
        field("python", &TritonExecutorConfig::python), field("temp_dir", &TritonExecutorConfig::temp_dir),
        field("pass_environment", &TritonExecutorConfig::pass_environment),
        field("keep_folders", &TritonExecutorConfig::keep_folders));
  }
};

}  // namespace tritongym::triton_executor
