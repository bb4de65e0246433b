// IdleHold: a timed child's word "idle" is enforced through the driver, and a child that said it with its GPU work
// still running is flagged. The driver is stood in for here; the GPU tests hold real children (BenchmarkTimesOnTheGpu,
// and tests/fixtures/adversarial/idle_while_busy.py through EveryAdversarialCandidateIsCaughtForItsReason).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "idle_hold.hpp"
#include "process_holds.hpp"
#include "stand_in_driver.hpp"

namespace tritongym::triton_executor {
namespace {

using StandIn = StandInDriver;

TEST(IdleHoldTest, AnHonestChildIsHeldUntilItHasItsShareAgain) {
  StandIn driver;
  ProcessHolds holds(driver.driver());
  IdleHold idle(holds);
  EXPECT_TRUE(idle.hold(4242, 60));
  idle.release();
  idle.release();  // once let go, not again
  EXPECT_EQ(driver.calls(), (std::vector<std::string>{"lock 4242 within 60", "unlock 4242"}));
  EXPECT_TRUE(idle.flags().empty());
  auto record = idle.record();
  EXPECT_EQ(record.at("holds").as_int64(), 1);
  EXPECT_TRUE(record.at("enforced").as_bool());
  EXPECT_FALSE(record.contains("error"));
}

TEST(IdleHoldTest, WorkLeftRunningIsWaitedForAndFlagged) {
  StandIn driver;
  driver.lock_seconds = 0.4;  // the lock waited for the child's kernels
  ProcessHolds holds(driver.driver());
  IdleHold idle(holds);
  EXPECT_TRUE(idle.hold(7, 60));  // the share may go: the work has finished, and the child is held
  ASSERT_EQ(idle.flags().size(), 1u);
  EXPECT_NE(idle.flags()[0].find("said it was idle with GPU work still running (400 ms"), std::string::npos)
      << idle.flags()[0];
  EXPECT_NE(idle.flags()[0].find("released only when the work had finished"), std::string::npos);
}

TEST(IdleHoldTest, WorkStillRunningAtTheTimeoutKeepsTheShare) {
  StandIn driver;
  driver.lock_seconds = 5.0;
  driver.lock_status = Status(StatusCode::deadline_exceeded, "still running");
  ProcessHolds holds(driver.driver());
  IdleHold idle(holds);
  EXPECT_FALSE(idle.hold(7, 5));
  ASSERT_EQ(idle.flags().size(), 1u);
  EXPECT_NE(idle.flags()[0].find("more than 5000 ms"), std::string::npos) << idle.flags()[0];
  EXPECT_NE(idle.flags()[0].find("was kept"), std::string::npos);
  idle.release();
  EXPECT_EQ(driver.calls(), (std::vector<std::string>{"lock 7 within 5"}));  // never held, so never let go
}

TEST(IdleHoldTest, AHoldTheDriverRefusesLeavesTheWordTrustedAndSaysSo) {
  StandIn driver;
  driver.lock_seconds = 0.4;  // slow to refuse: not a sign of the child's work
  driver.lock_status = Status(StatusCode::internal, "cuCheckpointProcessLock of process 7 failed with CUresult 801");
  ProcessHolds holds(driver.driver());
  IdleHold idle(holds);
  EXPECT_TRUE(idle.hold(7, 60));
  EXPECT_TRUE(idle.flags().empty());
  auto record = idle.record();
  EXPECT_FALSE(record.at("enforced").as_bool());
  EXPECT_NE(std::string(record.at("error").as_string()).find("CUresult 801"), std::string::npos);
  EXPECT_EQ(record.at("holds").as_int64(), 0);
}

TEST(IdleHoldTest, WithoutADriverOrAPidNothingIsHeld) {
  ProcessHolds::Driver none;
  none.unavailable = "libcuda.so.1 cannot be loaded";
  ProcessHolds without_driver_holds(none);
  IdleHold without_driver(without_driver_holds);
  EXPECT_TRUE(without_driver.hold(7, 60));
  EXPECT_EQ(std::string(without_driver.record().at("error").as_string()), "libcuda.so.1 cannot be loaded");

  StandIn driver;
  ProcessHolds without_pid_holds(driver.driver());
  IdleHold without_pid(without_pid_holds);
  EXPECT_TRUE(without_pid.hold(0, 60));
  EXPECT_TRUE(driver.calls().empty());
  EXPECT_FALSE(without_pid.record().at("enforced").as_bool());
}

TEST(IdleHoldTest, AHeldChildIsLetGoWhenTheHoldEnds) {
  StandIn driver;
  {
    ProcessHolds holds(driver.driver());
    IdleHold idle(holds);
    EXPECT_TRUE(idle.hold(99, 60));
    EXPECT_TRUE(idle.hold(99, 60));  // "idle" twice: let go and held again, never held twice
  }
  EXPECT_EQ(driver.calls(),
            (std::vector<std::string>{"lock 99 within 60", "unlock 99", "lock 99 within 60", "unlock 99"}));
}

TEST(IdleHoldTest, AChildATimingHoldsAlreadyIsHeldAtOnceAndLetGoOnlyWhenBothHaveLetGo) {
  StandIn driver;
  driver.lock_seconds = 0.4;  // the timing's hold waited for the child's checks' kernels: not the idle hold's
  ProcessHolds holds(driver.driver());
  double seconds = 0.0;
  ASSERT_TRUE(holds.hold(5, 1, &seconds).is_ok());  // a timing suspended the child while it checked
  {
    IdleHold idle(holds);
    EXPECT_TRUE(idle.hold(5, 60));  // then it said "idle"
    EXPECT_TRUE(idle.flags().empty());
    EXPECT_EQ(holds.holders(5), 2);
    ASSERT_TRUE(holds.release(5).is_ok());  // the timing ended: still held, for the idle hold
    EXPECT_EQ(driver.calls(), (std::vector<std::string>{"lock 5 within 1"}));
  }
  EXPECT_EQ(driver.calls(), (std::vector<std::string>{"lock 5 within 1", "unlock 5"}));
}

}  // namespace
}  // namespace tritongym::triton_executor
