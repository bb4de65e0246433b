// ProcessHolds: the holds on a child's CUDA calls are counted, so that a timing's suspension and the idle hold
// can hold one child at once, and the driver, which locks a process once, sees one lock and one unlock. The
// driver is stood in for; the GPU tests hold real children.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "process_holds.hpp"
#include "stand_in_driver.hpp"

namespace tritongym::triton_executor {
namespace {

using namespace std::chrono_literals;

using StandIn = StandInDriver;

TEST(ProcessHoldsTest, TwoHoldersLockTheProcessOnceAndTheLastLetsItGo) {
  StandIn driver;
  ProcessHolds holds(driver.driver());
  double seconds = 1.0;
  ASSERT_TRUE(holds.hold(11, 1, &seconds).is_ok());
  ASSERT_TRUE(holds.hold(11, 1, &seconds).is_ok());
  EXPECT_EQ(seconds, 0.0);  // held already: at once
  EXPECT_EQ(holds.holders(11), 2);
  ASSERT_TRUE(holds.release(11).is_ok());
  EXPECT_EQ(driver.calls(), (std::vector<std::string>{"lock 11 within 1"}));
  ASSERT_TRUE(holds.release(11).is_ok());
  EXPECT_EQ(driver.calls(), (std::vector<std::string>{"lock 11 within 1", "unlock 11"}));
  EXPECT_EQ(holds.holders(11), 0);
  EXPECT_EQ(holds.release(11).code(), StatusCode::failed_precondition);  // never let go twice
}

TEST(ProcessHoldsTest, AHolderThatComesDuringALockWaitsForItAndDoesNotLockAgain) {
  StandIn driver;
  driver.lock_takes = 100ms;  // the driver waits for the child's queued work
  ProcessHolds holds(driver.driver());
  double first_seconds = 0.0, second_seconds = 1.0;
  std::thread first([&] { ASSERT_TRUE(holds.hold(3, 1, &first_seconds).is_ok()); });
  std::this_thread::sleep_for(30ms);
  auto started = std::chrono::steady_clock::now();
  ASSERT_TRUE(holds.hold(3, 1, &second_seconds).is_ok());
  EXPECT_GE(std::chrono::steady_clock::now() - started, 50ms);  // it waited for the first lock's outcome
  first.join();
  EXPECT_GE(first_seconds, 0.1);
  EXPECT_EQ(second_seconds, 0.0);
  EXPECT_EQ(holds.holders(3), 2);
  EXPECT_EQ(driver.calls(), (std::vector<std::string>{"lock 3 within 1"}));
}

TEST(ProcessHoldsTest, AFailedLockHoldsNothing) {
  StandIn driver;
  driver.lock_status = Status(StatusCode::deadline_exceeded, "still running");
  ProcessHolds holds(driver.driver());
  double seconds = 0.0;
  EXPECT_EQ(holds.hold(8, 1, &seconds).code(), StatusCode::deadline_exceeded);
  EXPECT_EQ(holds.holders(8), 0);
  driver.lock_status = Status();
  EXPECT_TRUE(holds.hold(8, 1, &seconds).is_ok());  // tried afresh, not counted on the failure
  EXPECT_EQ(driver.calls(), (std::vector<std::string>{"lock 8 within 1", "lock 8 within 1"}));
}

TEST(ProcessHoldsTest, WithoutADriverItSaysWhy) {
  ProcessHolds::Driver none;
  none.unavailable = "libcuda.so.1 cannot be loaded";
  ProcessHolds holds(none);
  double seconds = 0.0;
  EXPECT_EQ(holds.unavailable(), "libcuda.so.1 cannot be loaded");
  EXPECT_EQ(holds.hold(1, 1, &seconds).code(), StatusCode::unavailable);
  EXPECT_EQ(ProcessHolds(ProcessHolds::Driver{}).unavailable(), "no driver to hold processes");
}

TEST(ProcessHoldsTest, TheRealDriverIsEitherThereOrSaysWhyNot) {
  ProcessHolds::Driver real = ProcessHolds::cuda();
  EXPECT_NE(static_cast<bool>(real.lock), !real.unavailable.empty()) << real.unavailable;
}

}  // namespace
}  // namespace tritongym::triton_executor
