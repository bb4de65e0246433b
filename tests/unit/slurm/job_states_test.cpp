#include "slurm/job_states.hpp"

#include <gtest/gtest.h>

namespace tritongym::slurm {
namespace {

TEST(JobStates, ReadsSqueueLines) {
  JobStates states;
  states.add_queue_lines({"12_0|12|0|RUNNING|None", "12_2|12|2|PENDING|Resources", "13|13|N/A|PENDING|Dependency",
                          "garbage"});
  ASSERT_NE(states.find({"12", 0}), nullptr);
  EXPECT_EQ(states.find({"12", 0})->describe(), "RUNNING");
  EXPECT_EQ(states.find({"12", 2})->describe(), "PENDING (Resources)");
  EXPECT_TRUE(states.active({"13", std::nullopt}));
  EXPECT_EQ(states.find({"12", 1}), nullptr);
  EXPECT_FALSE(states.active({"12", 1}));
}

TEST(JobStates, ReadsSacctLinesWithCompressedArrays) {
  JobStates states;
  states.add_accounting_lines({"20_0|COMPLETED|0:0", "20_1|CANCELLED by 1000|0:15", "20_[2-4,7%2]|PENDING|0:0",
                               "21|FAILED|1:0", "21.batch|FAILED|1:0"});
  EXPECT_EQ(states.find({"20", 0})->state, "COMPLETED");
  EXPECT_EQ(states.find({"20", 1})->state, "CANCELLED");
  for (int64_t index : {2, 3, 4, 7}) EXPECT_TRUE(states.active({"20", index})) << index;
  EXPECT_EQ(states.find({"20", 5}), nullptr);
  EXPECT_EQ(states.find({"21", std::nullopt})->state, "FAILED");
  EXPECT_FALSE(states.active({"21", std::nullopt}));
}

TEST(JobStates, SqueueWinsOverSacct) {
  JobStates states;
  states.add_queue_lines({"30_1|30|1|RUNNING|None"});
  states.add_accounting_lines({"30_1|PENDING|0:0"});
  EXPECT_EQ(states.find({"30", 1})->state, "RUNNING");
  EXPECT_EQ(states.find({"30", 1})->source, "squeue");
}

TEST(JobStates, ActiveStates) {
  for (const char* state : {"PENDING", "RUNNING", "REQUEUED", "COMPLETING", "SUSPENDED"}) EXPECT_TRUE(is_active_state(state));
  for (const char* state : {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "PREEMPTED", "NODE_FAIL", "OUT_OF_MEMORY"})
    EXPECT_FALSE(is_active_state(state));
}

}  // namespace
}  // namespace tritongym::slurm
