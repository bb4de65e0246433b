// One evaluation's turn on its GPU: a share while it checks, the GPU alone while it is timed, and back to a share
// without another evaluation's timing slipping in between.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "gpu_turn.hpp"

namespace tritongym::triton_executor {
namespace {

using namespace std::chrono_literals;

TEST(GpuTurn, TakesAShareOnceAndTheGpuAloneFromIt) {
  GpuLock lock;
  GpuTurn turn(lock);
  EXPECT_EQ(turn.share_for_requests(true), &turn.share());
  turn.take_share();
  EXPECT_TRUE(turn.shared());
  EXPECT_EQ(turn.take_share(), 0.0) << "a share held is not taken twice";
  turn.take_alone();
  EXPECT_TRUE(turn.alone());
  EXPECT_FALSE(turn.shared());
  EXPECT_EQ(turn.share_for_requests(true), nullptr) << "alone, a reference request takes no share";
  EXPECT_EQ(turn.share_for_requests(false), nullptr);
}

TEST(GpuTurn, AloneToShareLetsNoWaitingTimingIn) {
  GpuLock lock;
  GpuTurn turn(lock);
  turn.take_alone();
  std::atomic<bool> other_alone{false};
  std::thread other([&] {
    std::unique_lock alone(lock);
    other_alone = true;
  });
  std::this_thread::sleep_for(100ms);
  turn.alone_to_share();
  EXPECT_TRUE(turn.shared());
  std::this_thread::sleep_for(100ms);
  EXPECT_FALSE(other_alone.load()) << "the other timing ran while this evaluation still held its share";
  turn.drop_share();
  other.join();
  EXPECT_TRUE(other_alone.load());
}

TEST(GpuTurn, ATurnThatEndsGivesTheGpuBack) {
  GpuLock lock;
  {
    GpuTurn turn(lock);
    turn.take_alone();
  }
  std::atomic<bool> taken{false};
  std::thread other([&] {
    std::unique_lock alone(lock);
    taken = true;
  });
  other.join();  // would hang if the ended turn still held the GPU
  EXPECT_TRUE(taken.load());
}

}  // namespace
}  // namespace tritongym::triton_executor
