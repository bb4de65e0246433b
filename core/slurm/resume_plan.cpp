#include "slurm/resume_plan.hpp"

namespace tritongym::slurm {

ResumePlan plan_resume(const SubmissionRecord& record, const std::vector<StoreProgress>& shards,
                       const StoreProgress& merged, const JobStates& queued) {
  ResumePlan plan;
  for (size_t index = 0; index < shards.size(); ++index) {
    const StoreProgress& shard = shards[index];
    auto job = record.latest_shard_job(static_cast<int64_t>(index));
    std::string name = "shard " + std::to_string(index);
    if (job && queued.active(*job)) {
      // Running or waiting: resubmitting it would run the shard twice at once.
      plan.still_queued.push_back(*job);
      plan.notes.push_back(name + ": " + shard.describe() + "; job " + job->to_string() + " is " +
                           queued.find(*job)->describe() + " in Slurm, left to it");
      continue;
    }
    if (shard.complete()) continue;
    plan.resubmit.push_back(static_cast<int64_t>(index));
    if (shard.store_exists && !shard.has_run && shard.problem.empty())
      plan.empty_stores.push_back(static_cast<int64_t>(index));
    plan.notes.push_back(name + ": " + shard.describe() + (job ? "; its job " + job->to_string() + " has ended" : "") +
                         ", submitted again");
  }
  std::vector<std::string> waiting_merges;
  for (const auto& merge : record.merge_jobs())
    if (queued.active(JobRef{merge, std::nullopt})) waiting_merges.push_back(merge);

  if (!plan.resubmit.empty()) {
    plan.submit_merge = true;
    plan.cancel = waiting_merges;  // they would merge before the resubmitted shards end
  } else if (!waiting_merges.empty()) {
    plan.notes.push_back("the merge job " + waiting_merges.back() + " is still in Slurm and merges once the shards end");
  } else if (!plan.still_queued.empty() || !merged.complete()) {
    plan.submit_merge = true;
    if (plan.still_queued.empty())
      plan.notes.push_back("every shard is complete; the merged store is " +
                           (merged.store_exists ? merged.describe() : std::string("not there yet")) + ": merged again");
  } else {
    plan.notes.push_back("every shard is complete and merged (" + merged.describe() + "): nothing to submit");
  }
  return plan;
}

}  // namespace tritongym::slurm
