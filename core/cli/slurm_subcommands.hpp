// The parts of `tritongym slurm` (command_slurm.cpp dispatches): submitting a run, resubmitting what is
// missing, showing where a submitted run stands; starting evaluation servers, stopping them, listing them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/commands.hpp"

namespace tritongym::cli {

int slurm_submit(const CliContext& context, const Arguments& arguments);
int slurm_resume(const CliContext& context, const Arguments& arguments);
int slurm_status(const CliContext& context, const Arguments& arguments);
int slurm_serve(const CliContext& context, const Arguments& arguments);  // `slurm serve stop` goes on to:
int slurm_serve_stop(const CliContext& context, const Arguments& arguments);
int slurm_endpoints(const CliContext& context, const Arguments& arguments);

// The tritongym executable (absolute) and the global options this invocation was given, for the job scripts.
std::vector<std::string> tritongym_command(const CliContext& context);

// "squeue -j 12,13", "sacct -j 12,13 -X": the commands that watch these jobs, and the status command.
void print_watch_hints(const std::string& run_dir, int64_t shard_count, const std::vector<std::string>& job_ids);

}  // namespace tritongym::cli
