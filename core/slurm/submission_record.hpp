// `<run dir>/slurm/submissions.json`: what `tritongym slurm` submitted for a run, so that `slurm status`
// and `slurm resume` know the shard count and which Slurm job last ran each shard. The scripts beside it
// (shards.sbatch, merge.sbatch) and the resolved run file every shard runs (run.yaml) are written once,
// at the first submission.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "slurm/job_states.hpp"
#include "tritongym/sdk/status.hpp"

namespace tritongym::slurm {

inline constexpr const char* kSlurmFolder = "slurm";
inline constexpr const char* kSubmissionsFile = "submissions.json";
inline constexpr const char* kRunFile = "run.yaml";
inline constexpr const char* kShardScript = "shards.sbatch";
inline constexpr const char* kMergeScript = "merge.sbatch";
inline constexpr const char* kMergedFolder = "merged";

// One sbatch round: a job array of some shards (none when only a merge was submitted) and its merge job.
struct Submission {
  std::string submitted_at;     // ISO 8601 UTC
  std::string array_job;        // "" when no shard was submitted
  std::vector<int64_t> shards;  // the array's indices (= shard indices)
  std::string merge_job;        // "" when the merge could not be submitted
};

struct SubmissionRecord {
  std::string run_name;
  std::string run_dir;  // absolute
  int64_t shard_count = 0;
  std::vector<Submission> submissions;  // oldest first

  // The array task that last ran (or runs) shard `index`; nullopt when none was submitted.
  std::optional<JobRef> latest_shard_job(int64_t index) const;
  // Every merge job submitted, oldest first.
  std::vector<std::string> merge_jobs() const;
  // Every job id (arrays and merges), for sacct.
  std::vector<std::string> job_ids() const;
};

std::string slurm_folder(const std::string& run_dir);

// not_found when the run folder holds no record (no submission through `tritongym slurm`); invalid_config
// when the file cannot be read as a record (the message names the file and what is wrong).
Result<SubmissionRecord> read_submission_record(const std::string& run_dir);
// Written to a temporary file and renamed over the old one: a reader never sees half a record.
Status write_submission_record(const SubmissionRecord& record);

}  // namespace tritongym::slurm
