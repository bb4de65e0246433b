// What Slurm says about jobs and array tasks, read from squeue and sacct output. squeue speaks for the jobs
// slurmctld still holds (active ones, and finished ones for MinJobAge); sacct, where the cluster keeps
// accounting, for older ones. squeue's word wins where both speak: it is the controller's current view.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tritongym::slurm {

// A job as Slurm names it: a plain job ("124"), or one task of a job array ("123" task 4, shown "123_4").
struct JobRef {
  std::string job;                   // the job id; for an array task, the array's job id
  std::optional<int64_t> task;       // the array index
  std::string to_string() const { return task ? job + "_" + std::to_string(*task) : job; }
  bool operator<(const JobRef& other) const {
    return job != other.job ? job < other.job : task.value_or(-1) < other.task.value_or(-1);
  }
};

struct JobState {
  std::string state;   // Slurm's state name: PENDING, RUNNING, COMPLETED, CANCELLED, TIMEOUT, FAILED, ...
  std::string reason;  // squeue's reason (Resources, Dependency, ...), "" when none or from sacct
  std::string source;  // "squeue" or "sacct"
  std::string describe() const { return reason.empty() || reason == "None" ? state : state + " (" + reason + ")"; }
};

// PENDING, RUNNING, SUSPENDED, COMPLETING, CONFIGURING, REQUEUED and the like: the job may still run.
bool is_active_state(const std::string& state);

class JobStates {
 public:
  // `ID|ARRAY_JOB|TASK|STATE|REASON` lines (SlurmCommands::queue_lines). Malformed lines are skipped.
  void add_queue_lines(const std::vector<std::string>& lines);
  // `JOBID|STATE|EXITCODE` lines (SlurmCommands::accounting_lines): "123", "123_4", "123_[5-7,9%2]" (pending
  // tasks, compressed), "CANCELLED by 1000". Never overrides what squeue said.
  void add_accounting_lines(const std::vector<std::string>& lines);

  const JobState* find(const JobRef& job) const;
  bool active(const JobRef& job) const;

 private:
  void put(const JobRef& job, JobState state);
  std::map<JobRef, JobState> states_;
};

}  // namespace tritongym::slurm
