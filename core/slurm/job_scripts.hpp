// The two batch scripts `tritongym slurm` submits for a run:
//  - shards.sbatch, a job array with one task per shard: task I runs `tritongym run RUN_DIR/slurm/run.yaml
//    --shard I/N` into RUN_DIR/shard-I-of-N, or `tritongym resume` of that folder when an earlier attempt
//    (preempted and requeued, out of time, cancelled, a node that failed) left a store there;
//  - merge.sbatch, one job: `tritongym merge` of every shard store there is into RUN_DIR/merged (made anew
//    each time: it holds nothing the shards do not), the report, and `tritongym slurm status`, whose exit
//    code fails the job while the run is not complete.
// Both are plain bash with #SBATCH lines, readable and resubmittable by hand.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tritongym/sdk/status.hpp"

namespace tritongym::slurm {

struct SlurmJobOptions {
  std::string partition;                  // "" leaves Slurm's default
  std::string account;
  std::string time_limit;                 // Slurm's --time format ("4:00:00", "1-0"), "" for the default
  int64_t gpus_per_shard = 0;             // --gres=gpu:G on the shard tasks; 0 asks for none
  std::vector<std::string> extra_sbatch;  // whole options ("--qos=high"), one #SBATCH line each, on both scripts
  // With a time limit: seconds before it at which Slurm sends SIGTERM to the shard's tritongym alone
  // (--signal=B:TERM@S), so that it starts no new episode and records the running ones before the limit.
  int64_t stop_seconds_before_limit = 0;
};

struct JobScriptInputs {
  std::string run_name;
  std::string run_dir;      // absolute
  std::string working_dir;  // absolute: where the jobs run (relative paths of the run resolve as at submission)
  int64_t shard_count = 1;
  std::vector<std::string> tritongym;  // the executable (absolute) and the global options to pass on
  SlurmJobOptions options;
  std::string written_at;   // ISO 8601 UTC, for the scripts' header
  std::string source;       // the run file and overrides they came from, for the header
};

// A word the shell reads back as exactly `text`: 'text', with ' written as '\''.
std::string shell_quote(const std::string& text);

// A bash array of `words`, each quoted: ('/bin/tritongym' '--log-level' 'debug').
std::string command_array(const std::vector<std::string>& words);

// Array indices as sbatch's --array takes them: {0,1,2,5} -> "0-2,5".
std::string array_spec(std::vector<int64_t> indices);

// #SBATCH lines take no quoting: a value with whitespace, quotes, '%' (a filename pattern) or a newline is
// invalid_argument, naming `what`.
Status check_sbatch_value(const std::string& value, const std::string& what);

// A time limit in Slurm's formats (minutes, minutes:seconds, hours:minutes:seconds, days-hours,
// days-hours:minutes, days-hours:minutes:seconds), in seconds; invalid_argument for anything else.
Result<int64_t> parse_time_limit_seconds(const std::string& text);

// Splits the --extra-sbatch text on whitespace into options; each must start with '-'.
Result<std::vector<std::string>> parse_extra_sbatch(const std::vector<std::string>& texts);

// The #SBATCH lines of `options` that every job of a cluster takes: --partition, --account, --time (those given);
// and the --extra-sbatch options, one line each.
std::string cluster_sbatch_lines(const SlurmJobOptions& options);
std::string extra_sbatch_lines(const SlurmJobOptions& options);

std::string shard_array_script(const JobScriptInputs& inputs);
std::string merge_script(const JobScriptInputs& inputs);

// The logs: RUN_DIR/slurm/logs/shard-I.log (every attempt of shard I, appended) and merge.log.
std::string logs_folder(const std::string& run_dir);

}  // namespace tritongym::slurm
