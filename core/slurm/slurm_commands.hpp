// Slurm's own client commands (sbatch, squeue, sacct, scancel), found on PATH and run as child processes.
// TritonGym schedules nothing across machines itself: every job is Slurm's, submitted, watched and cancelled
// through these commands, so a cluster's own policies (partitions, QOS, fair share, preemption) apply.
#pragma once

#include <string>
#include <vector>

#include "tritongym/sdk/status.hpp"

namespace tritongym::slurm {

// The programs one use needs: submitting needs sbatch and squeue; watching needs squeue (sacct is optional:
// a cluster without accounting still works); resuming needs sbatch, squeue and scancel; cancelling, squeue and
// scancel.
enum class SlurmUse { submit, watch, resume, cancel };

class SlurmCommands {
 public:
  // Finds the programs `use` needs on PATH. unavailable when one is missing, with a message that names it
  // and says what to do.
  static Result<SlurmCommands> locate(SlurmUse use);

  // `sbatch --parsable ARGS... SCRIPT`: the job id sbatch printed (an array's id is the array's job id).
  Result<std::string> submit(const std::vector<std::string>& arguments, const std::string& script) const;
  // `scancel JOB...`.
  Status cancel(const std::vector<std::string>& job_ids) const;
  // `squeue --noheader --array --user USER --format %i|%F|%K|%T|%r`: one `ID|ARRAY_JOB|TASK|STATE|REASON`
  // line per job or array task of this user that Slurm holds as active (pending, running, suspended,
  // completing, requeued); with `finished_too`, also those that ended recently enough that slurmctld still
  // keeps them (`--states all`, MinJobAge).
  Result<std::vector<std::string>> queue_lines(bool finished_too) const;
  // `sacct --noheader --parsable2 --allocations --jobs ...`: `JOBID|STATE|EXITCODE` lines. unavailable when
  // sacct is not installed or the cluster keeps no accounting (its message says which).
  Result<std::vector<std::string>> accounting_lines(const std::vector<std::string>& job_ids) const;

 private:
  std::string sbatch_, squeue_, sacct_, scancel_;
};

}  // namespace tritongym::slurm
