// The configuration both Triton executors share (plugin.yaml documents each key).
#pragma once

#include <string>
#include <vector>

#include "tritongym/sdk/config.hpp"

namespace tritongym::triton_executor {

// What `baselines` may name: PyTorch eager (the reference), torch.compile of it, the task's oracle, and the
// task's plain-Triton baseline (triton_baseline.py, which DSL tasks ship; nothing is timed for a task without it).
inline constexpr const char* kBaselineNames[] = {"eager", "compile", "oracle", "triton"};

struct TritonExecutorConfig {
  int64_t workers = 0;             // candidate workers; 0: automatic_workers() (cuda), up to 4 by CPU count (interpreter)
  int64_t recycle_after = 50;      // evaluations before a worker is replaced
  int64_t secret_seeds = 8;        // size of the run's pool of input seeds (drawn at start, never shown)
  int64_t memory_limit_mb = 8192;  // address-space cap of a candidate's process (interpreter only)
  double worker_start_timeout_s = 300;
  std::string python;              // overrides the host's choice of Python
  std::string temp_dir;            // "" -> the system's temporary folder
  std::vector<std::string> pass_environment;  // host variables workers may also see (never secrets)
  bool keep_folders = false;       // keep worker folders after the run, for debugging
  int64_t reference_cache_tasks = 4;  // tasks whose inputs and expected outputs stay on disk (files)
  // How data travels between the reference worker and candidates on triton-cuda: "gpu" (CUDA IPC,
  // docs/worker-protocol.md) or "files" (the interpreter's only transport).
  std::string data_plane = "gpu";
  double reference_memory_fraction = 0.3;  // of each GPU, for the reference worker's cases (gpu)
  // Evaluations a caller said are coming (Executor::expect) whose cases the reference worker makes ahead, while
  // no evaluation wants it; 0: none. On the file transport at most reference_cache_tasks - 1.
  int64_t prepare_ahead = 8;
  // Timing (triton-cuda; docs/timing.md).
  bool cold_l2 = true;             // false: warm-L2 timing, named in every result
  int64_t timing_input_sets = 4;   // input sets the timed calls rotate over (each re-checked afterwards)
  double timing_seconds = 0.4;     // GPU time to spend per shape and timed function
  double speed_of_light_margin = 0.7;  // flag a result faster than this fraction of the floor
  // Compare a candidate's checks while it waits to be timed, and time only one that passed them (false: time
  // it first and compare everything after, as before 2026-12-02).
  bool compare_before_timing = true;
  // The baselines timed beside a candidate (kBaselineNames): `tasks check` times none, since a loop that
  // torch.compile unrolls can take minutes. Each shape's speed-of-light floor is worked out either way.
  std::vector<std::string> baselines{"eager", "compile", "oracle", "triton"};
  // How long torch.compile of a task's reference may compile, per shape, before the compile baseline is given up
  // for the task (reported, not fatal). A baseline not in the cache is timed with the GPU held alone, compile
  // included, so this also bounds how long other evaluations on that GPU wait for it.
  double compile_seconds = 120.0;
  // A timing holds the children checking beside it on its GPU through the driver (their queued work done,
  // their CUDA calls waiting) rather than waiting for their checks to end (gpu_lock.hpp).
  bool suspend_checks = true;
  // Triton's autotuner in a candidate (triton-cuda; docs/timing.md, "Autotuning"): each config of a new key is
  // benchmarked with Triton's do_bench on this budget (0: the autotuner's own, 25 and 100 ms), unless the
  // kernel chose its own benchmark; in a timed run, with the GPU alone while it does.
  double autotune_warmup_ms = 2.0;
  double autotune_rep_ms = 10.0;
  bool autotune_alone = true;
  std::string cache_dir;           // baselines and ceilings; "" -> $XDG_CACHE_HOME/tritongym or ~/.cache/tritongym
  // The timing report held against the device's own counters in the candidate's turn alone (triton-cuda;
  // docs/anti-cheat.md, "The child's report"): tritongym-gpu-sampler samples each GPU every
  // report_check_interval_us, keeping up to report_check_max_window_s of samples; the report's busy time and the
  // device's may be report_check_margin (of the larger) and 0.5 ms apart. report_check_sampler: the program
  // ("" -> beside tritongym).
  bool report_check = true;
  double report_check_interval_us = 100.0;
  double report_check_max_window_s = 30.0;
  double report_check_margin = 0.05;
  double report_check_item_overhead_us = 2.4;  // busy time the device counts per kernel or copy beyond CUPTI's
  std::string report_check_sampler;
  // What a candidate's child must have given up before its code runs (docs/anti-cheat.md, "The sandbox"):
  // "required" (its files confined by Landlock and its network blocked by the seccomp filter, or the evaluation is a
  // harness_error that says what the machine lacks) or "best_effort" (it runs all the same, and its record and
  // warnings say what was missing).
  std::string sandbox = "required";

  static constexpr auto fields() {
    return std::make_tuple(
        field("workers", &TritonExecutorConfig::workers), field("recycle_after", &TritonExecutorConfig::recycle_after),
        field("secret_seeds", &TritonExecutorConfig::secret_seeds),
        field("memory_limit_mb", &TritonExecutorConfig::memory_limit_mb),
        field("worker_start_timeout_s", &TritonExecutorConfig::worker_start_timeout_s),
        field("python", &TritonExecutorConfig::python), field("temp_dir", &TritonExecutorConfig::temp_dir),
        field("pass_environment", &TritonExecutorConfig::pass_environment),
        field("keep_folders", &TritonExecutorConfig::keep_folders), field("cold_l2", &TritonExecutorConfig::cold_l2),
        field("reference_cache_tasks", &TritonExecutorConfig::reference_cache_tasks),
        field("data_plane", &TritonExecutorConfig::data_plane),
        field("reference_memory_fraction", &TritonExecutorConfig::reference_memory_fraction),
        field("prepare_ahead", &TritonExecutorConfig::prepare_ahead),
        field("timing_input_sets", &TritonExecutorConfig::timing_input_sets),
        field("timing_seconds", &TritonExecutorConfig::timing_seconds),
        field("speed_of_light_margin", &TritonExecutorConfig::speed_of_light_margin),
        field("compare_before_timing", &TritonExecutorConfig::compare_before_timing),
        field("baselines", &TritonExecutorConfig::baselines),
        field("compile_seconds", &TritonExecutorConfig::compile_seconds),
        field("suspend_checks", &TritonExecutorConfig::suspend_checks),
        field("autotune_warmup_ms", &TritonExecutorConfig::autotune_warmup_ms),
        field("autotune_rep_ms", &TritonExecutorConfig::autotune_rep_ms),
        field("autotune_alone", &TritonExecutorConfig::autotune_alone),
        field("cache_dir", &TritonExecutorConfig::cache_dir), field("report_check", &TritonExecutorConfig::report_check),
        field("report_check_interval_us", &TritonExecutorConfig::report_check_interval_us),
        field("report_check_max_window_s", &TritonExecutorConfig::report_check_max_window_s),
        field("report_check_margin", &TritonExecutorConfig::report_check_margin),
        field("report_check_item_overhead_us", &TritonExecutorConfig::report_check_item_overhead_us),
        field("report_check_sampler", &TritonExecutorConfig::report_check_sampler),
        field("sandbox", &TritonExecutorConfig::sandbox));
  }
};

}  // namespace tritongym::triton_executor
