// CheckSuspension: a checking child's share, suspended by a timing through ProcessHolds (the driver stood in for),
// and counted for the evaluation's record. The GPU test ATimingSuspendsTheChecksBesideItInsteadOfWaitingForThem
// holds a real child.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "check_suspension.hpp"
#include "stand_in_driver.hpp"

namespace tritongym::triton_executor {
namespace {

using namespace std::chrono_literals;

using StandIn = StandInDriver;

TEST(CheckSuspensionTest, ATimingHoldsTheMarkedChildAndLetsItGoWhenItEnds) {
  StandIn driver;
  ProcessHolds holds(driver.driver());
  GpuLock gpu;
  std::shared_lock share(gpu);
  CheckSuspension checking(gpu, holds, true);
  checking.mark(42);
  {
    std::unique_lock alone(gpu);  // does not wait for the share: the child is held
    EXPECT_EQ(holds.holders(42), 1);
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(holds.holders(42), 0);
  EXPECT_EQ(driver.calls(), (std::vector<std::string>{"lock 42 within 1", "unlock 42"}));
  auto record = checking.record();
  EXPECT_EQ(record.at("suspensions").as_int64(), 1);
  EXPECT_GE(record.at("suspended_s").as_double(), 0.015);
  EXPECT_EQ(record.at("refused").as_int64(), 0);
  checking.unmark();
}

TEST(CheckSuspensionTest, ARefusalIsCountedAndTheShareWaitedFor) {
  StandIn driver;
  driver.lock_status = Status(StatusCode::internal, "cuCheckpointProcessLock of process 42 failed with CUresult 801");
  ProcessHolds holds(driver.driver());
  GpuLock gpu;
  std::shared_lock share(gpu);
  CheckSuspension checking(gpu, holds, true);
  checking.mark(42);
  std::atomic<bool> timed{false};
  std::thread timing([&] {
    std::unique_lock alone(gpu);
    timed = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(timed);  // refused: the timing waits for the share
  checking.unmark();
  share.unlock();
  timing.join();
  auto record = checking.record();
  EXPECT_EQ(record.at("suspensions").as_int64(), 0);
  EXPECT_EQ(record.at("refused").as_int64(), 1);
  EXPECT_NE(std::string(record.at("error").as_string()).find("801"), std::string::npos);
}

TEST(CheckSuspensionTest, TurnedOffOrWithoutADriverNothingIsMarked) {
  StandIn driver;
  ProcessHolds holds(driver.driver());
  ProcessHolds none(ProcessHolds::Driver{});
  for (auto* setup : {&holds, &none}) {
    GpuLock gpu;
    std::shared_lock share(gpu);
    CheckSuspension checking(gpu, *setup, setup == &none);  // off, then on without a driver
    checking.mark(42);
    std::atomic<bool> timed{false};
    std::thread timing([&] {
      std::unique_lock alone(gpu);
      timed = true;
    });
    std::this_thread::sleep_for(30ms);
    EXPECT_FALSE(timed);
    share.unlock();
    timing.join();
    EXPECT_EQ(checking.record().at("suspensions").as_int64(), 0);
  }
  EXPECT_TRUE(driver.calls().empty());
}

// The fork server learns how long its child was held from the held file: "<seconds before> <since>", since the
// CLOCK_MONOTONIC seconds the hold in force began (0: none). A timing that lets the child go after the
// evaluation has ended writes nothing: that pid may be another process's by then.
TEST(CheckSuspensionTest, TheHeldFileSaysHowLongTheChildWasHeldAndWhetherItIsHeldNow) {
  namespace fs = std::filesystem;
  const fs::path folder = fs::temp_directory_path() / ("tritongym-held-" + std::to_string(::getpid()));
  fs::remove_all(folder);
  const std::string file = (folder / "holds" / "42").string();
  auto read = [&file] {
    std::ifstream in(file);
    double before = -1.0, since = -1.0;
    in >> before >> since;
    return std::pair{before, since};
  };
  StandIn driver;
  ProcessHolds holds(driver.driver());
  GpuLock gpu;
  std::shared_lock share(gpu);
  std::optional<std::unique_lock<GpuLock>> late;
  {
    CheckSuspension checking(gpu, holds, true);
    checking.mark(42, std::make_shared<HeldClock>(file));
    EXPECT_FALSE(fs::exists(file));  // not held yet
    {
      std::unique_lock alone(gpu);
      auto [before, since] = read();
      EXPECT_EQ(before, 0.0);
      const double now = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
      EXPECT_GT(since, now - 1.0);
      EXPECT_LE(since, now);
      std::this_thread::sleep_for(20ms);
    }
    auto [before, since] = read();
    EXPECT_GE(before, 0.015);
    EXPECT_EQ(since, 0.0);
    EXPECT_NEAR(before, checking.record().at("suspended_s").as_double(), 1e-6);  // written to the microsecond
    // A second hold adds to it, and the evaluation ends while the timing still holds the child.
    fs::remove(file);
    late.emplace(gpu);
    EXPECT_GT(read().second, 0.0);
    fs::remove(file);
  }
  late.reset();  // lets the child go after its evaluation ended: no file
  EXPECT_FALSE(fs::exists(file));
  EXPECT_EQ(driver.calls(), (std::vector<std::string>{"lock 42 within 1", "unlock 42", "lock 42 within 1", "unlock 42"}));
  fs::remove_all(folder);
}

}  // namespace
}  // namespace tritongym::triton_executor
