#include "slurm/resume_plan.hpp"

#include <gtest/gtest.h>

#include "slurm/submission_record.hpp"
#include "support/test_support.hpp"

namespace tritongym::slurm {
namespace {

StoreProgress complete_store() {
  StoreProgress progress;
  progress.store_exists = progress.has_run = true;
  progress.status = "finished";
  progress.recorded = progress.planned = 4;
  return progress;
}

StoreProgress interrupted_store() {
  StoreProgress progress = complete_store();
  progress.status = "interrupted";
  progress.recorded = 2;
  return progress;
}

SubmissionRecord three_shards() {
  SubmissionRecord record;
  record.run_name = "quickstart";
  record.run_dir = "/runs/quickstart";
  record.shard_count = 3;
  record.submissions.push_back({"2026-12-07T08:00:00Z", "12", {0, 1, 2}, "13"});
  return record;
}

TEST(ResumePlan, ResubmitsOnlyTheIncompleteShardsNoJobWillRun) {
  StoreProgress no_store;
  JobStates queued;  // nothing in Slurm any more
  auto plan = plan_resume(three_shards(), {complete_store(), interrupted_store(), no_store}, StoreProgress{}, queued);
  EXPECT_EQ(plan.resubmit, (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(plan.submit_merge);
  EXPECT_TRUE(plan.still_queued.empty());
  EXPECT_TRUE(plan.cancel.empty());
  EXPECT_TRUE(plan.empty_stores.empty());
}

TEST(ResumePlan, LeavesQueuedShardsToSlurmAndReplacesTheWaitingMerge) {
  JobStates queued;
  queued.add_queue_lines({"12_2|12|2|RUNNING|None", "13|13|N/A|PENDING|Dependency"});
  auto plan = plan_resume(three_shards(), {complete_store(), interrupted_store(), interrupted_store()}, StoreProgress{},
                          queued);
  EXPECT_EQ(plan.resubmit, (std::vector<int64_t>{1}));
  ASSERT_EQ(plan.still_queued.size(), 1u);
  EXPECT_EQ(plan.still_queued[0].to_string(), "12_2");
  EXPECT_EQ(plan.cancel, (std::vector<std::string>{"13"}));
  EXPECT_TRUE(plan.submit_merge);
}

TEST(ResumePlan, NothingWhileTheOnlyMissingShardIsStillQueuedWithItsMerge) {
  JobStates queued;
  queued.add_queue_lines({"12_1|12|1|PENDING|Resources", "13|13|N/A|PENDING|Dependency"});
  auto plan = plan_resume(three_shards(), {complete_store(), StoreProgress{}, complete_store()}, StoreProgress{}, queued);
  EXPECT_TRUE(plan.resubmit.empty());
  EXPECT_FALSE(plan.submit_merge);
  EXPECT_TRUE(plan.cancel.empty());
}

TEST(ResumePlan, MergesAgainWhenEveryShardIsCompleteButTheMergedStoreIsNot) {
  StoreProgress merged = interrupted_store();
  auto plan = plan_resume(three_shards(), {complete_store(), complete_store(), complete_store()}, merged, JobStates{});
  EXPECT_TRUE(plan.resubmit.empty());
  EXPECT_TRUE(plan.submit_merge);
  StoreProgress whole = complete_store();
  whole.planned = whole.recorded = 12;
  auto done = plan_resume(three_shards(), {complete_store(), complete_store(), complete_store()}, whole, JobStates{});
  EXPECT_FALSE(done.submit_merge);
  EXPECT_TRUE(done.resubmit.empty());
}

TEST(ResumePlan, AStoreWithoutARunIsRemovedBeforeItsShardIsSubmittedAgain) {
  StoreProgress empty;
  empty.store_exists = true;
  auto plan = plan_resume(three_shards(), {complete_store(), empty, complete_store()}, StoreProgress{}, JobStates{});
  EXPECT_EQ(plan.resubmit, (std::vector<int64_t>{1}));
  EXPECT_EQ(plan.empty_stores, (std::vector<int64_t>{1}));
}

TEST(ResumePlan, TheLatestSubmissionOfAShardCounts) {
  SubmissionRecord record = three_shards();
  record.submissions.push_back({"2026-12-07T09:00:00Z", "20", {1}, "21"});
  EXPECT_EQ(record.latest_shard_job(1)->to_string(), "20_1");
  EXPECT_EQ(record.latest_shard_job(2)->to_string(), "12_2");
  JobStates queued;
  queued.add_queue_lines({"20_1|20|1|RUNNING|None", "21|21|N/A|PENDING|Dependency"});
  auto plan = plan_resume(record, {complete_store(), interrupted_store(), complete_store()}, StoreProgress{}, queued);
  EXPECT_TRUE(plan.resubmit.empty());
  EXPECT_FALSE(plan.submit_merge);
}

TEST(SubmissionRecord, RoundTripsThroughItsFile) {
  testing::TemporaryDirectory folder;
  SubmissionRecord record = three_shards();
  record.run_dir = folder.path().string();
  std::filesystem::create_directories(slurm_folder(record.run_dir));
  record.submissions.push_back({"2026-12-07T09:00:00Z", "", {}, "22"});
  ASSERT_TRUE(write_submission_record(record).is_ok());
  auto read = read_submission_record(record.run_dir);
  ASSERT_TRUE(read) << read.status().message();
  EXPECT_EQ(read->shard_count, 3);
  ASSERT_EQ(read->submissions.size(), 2u);
  EXPECT_EQ(read->submissions[0].shards, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(read->merge_jobs(), (std::vector<std::string>{"13", "22"}));
  EXPECT_EQ(read->job_ids(), (std::vector<std::string>{"12", "13", "22"}));
}

TEST(SubmissionRecord, MissingAndBrokenRecordsSayWhere) {
  testing::TemporaryDirectory folder;
  auto missing = read_submission_record(folder.path().string());
  EXPECT_EQ(missing.status().code(), StatusCode::not_found);
  EXPECT_NE(missing.status().message().find("tritongym slurm RUN.yaml"), std::string::npos);
  std::string path = folder.write("slurm/submissions.json", "{\"schema\": \"tritongym.slurm.v1\"}");
  auto broken = read_submission_record(folder.path().string());
  EXPECT_EQ(broken.status().code(), StatusCode::invalid_config);
  EXPECT_NE(broken.status().message().find(path), std::string::npos);
  folder.write("slurm/submissions.json",
               "{\"schema\": \"tritongym.slurm.v1\", \"run_name\": \"q\", \"run_dir\": \"/r\", \"shard_count\": 2, "
               "\"submissions\": []}");
  auto empty = read_submission_record(folder.path().string());
  EXPECT_EQ(empty.status().code(), StatusCode::invalid_config);
  EXPECT_NE(empty.status().message().find("no submission"), std::string::npos);
}

}  // namespace
}  // namespace tritongym::slurm
