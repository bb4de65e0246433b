// What `tritongym slurm resume` submits: from the shards' stores (complete or not) and what Slurm still has
// in its queue, the shards to submit again, the jobs the new merge must also wait for, and the merge jobs
// it replaces. A pure function: the command reads the stores and the queue, this decides.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "slurm/job_states.hpp"
#include "slurm/shard_progress.hpp"
#include "slurm/submission_record.hpp"

namespace tritongym::slurm {

struct ResumePlan {
  std::vector<int64_t> resubmit;       // incomplete shards that no job of Slurm's will run: a new array of these
  std::vector<JobRef> still_queued;    // shards' jobs Slurm still holds (pending, running): the new merge waits for them
  std::vector<std::string> cancel;     // earlier merge jobs still waiting: the new merge replaces them
  bool submit_merge = false;
  std::vector<int64_t> empty_stores;   // shards to resubmit whose store holds no run: removed first
  std::vector<std::string> notes;      // one line each: why each thing is done or left alone
};

// `queued` must hold squeue's view (SlurmCommands::queue_lines); `merged` is RUN_DIR/merged's progress.
ResumePlan plan_resume(const SubmissionRecord& record, const std::vector<StoreProgress>& shards,
                       const StoreProgress& merged, const JobStates& queued);

}  // namespace tritongym::slurm
