// The GPU lock of the triton executors: evaluations share a GPU while they check, a timing takes it alone,
// and a waiting timing goes before evaluations that ask after it. The turns on the GPU (a child hands its share
// back while Triton compiles) rely on the last two.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "gpu_lock.hpp"

namespace tritongym::triton_executor {
namespace {

using namespace std::chrono_literals;

// What happened, in order, across threads.
struct Events {
  std::mutex mutex;
  std::vector<std::string> said;
  void add(const std::string& what) {
    std::lock_guard lock(mutex);
    said.push_back(what);
  }
  std::vector<std::string> all() {
    std::lock_guard lock(mutex);
    return said;
  }
};

TEST(GpuLock, ChecksShareTheGpu) {
  GpuLock gpu;
  std::shared_lock first(gpu);
  std::atomic<bool> second_in{false};
  std::thread other([&] {
    std::shared_lock second(gpu);
    second_in = true;
  });
  other.join();
  EXPECT_TRUE(second_in);  // got in while the first share was held
}

TEST(GpuLock, AWaitingTimingGoesBeforeLaterChecks) {
  GpuLock gpu;
  Events events;
  std::shared_lock checking(gpu);
  std::thread timing([&] {
    std::unique_lock alone(gpu);
    events.add("timed");
  });
  std::this_thread::sleep_for(50ms);  // the timing now waits for the check
  std::thread later_check([&] {
    std::shared_lock share(gpu);
    events.add("later check");
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_TRUE(events.all().empty());  // the timing waits for the check; the later check waits for the timing
  checking.unlock();
  timing.join();
  later_check.join();
  EXPECT_EQ(events.all(), (std::vector<std::string>{"timed", "later check"}));
}

TEST(GpuLock, AShareHandedBackLetsATimingInAndIsTakenAgainAfterIt) {
  GpuLock gpu;
  Events events;
  std::shared_lock child(gpu);  // a child checking
  std::thread timing([&] {
    std::unique_lock alone(gpu);
    events.add("timing starts");
    std::this_thread::sleep_for(50ms);
    events.add("timing ends");
  });
  std::this_thread::sleep_for(50ms);
  child.unlock();  // gpu_idle: it compiles; the timing need not wait for the compile
  std::this_thread::sleep_for(20ms);
  child.lock();  // gpu_wanted: waits for the timing to end
  events.add("child checks again");
  timing.join();
  EXPECT_EQ(events.all(), (std::vector<std::string>{"timing starts", "timing ends", "child checks again"}));
}

TEST(GpuLock, AfterItsTimedCallsATimingSharesTheGpuWithoutLettingAWaitingTimingInBetween) {
  GpuLock gpu;
  Events events;
  std::unique_lock timed(gpu);  // a child's timed calls
  std::thread next_timing([&] {
    std::unique_lock alone(gpu);
    events.add("next timing");
  });
  std::this_thread::sleep_for(50ms);  // the next timing waits
  timed.release();
  gpu.unlock_and_lock_shared();  // the timed calls are done: determinism check and hand-over, shared
  std::shared_lock after(gpu, std::adopt_lock);
  std::this_thread::sleep_for(50ms);
  events.add("checks after timing");  // still before the next timing: the share was never let go
  after.unlock();
  next_timing.join();
  EXPECT_EQ(events.all(), (std::vector<std::string>{"checks after timing", "next timing"}));
}

TEST(GpuLock, AfterItsTimedCallsOtherChecksShareTheGpu) {
  GpuLock gpu;
  std::unique_lock timed(gpu);
  std::atomic<bool> other_in{false};
  std::thread other([&] {
    std::shared_lock share(gpu);
    other_in = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(other_in);  // the GPU is the timing's alone
  timed.release();
  gpu.unlock_and_lock_shared();
  other.join();  // got in while the timed child still holds its share
  EXPECT_TRUE(other_in);
  gpu.unlock_shared();
}

TEST(GpuLock, AnEvaluationWaitingForTheReferenceWorkerDoesNotHoldItsShare) {
  GpuLock gpu;
  std::mutex reference;
  Events events;
  std::unique_lock busy(reference);  // another evaluation's request
  double waited = 0.0;
  std::thread evaluation([&] {
    std::shared_lock share(gpu, std::defer_lock);
    auto held = lock_with_share(share, reference, waited);
    EXPECT_TRUE(share.owns_lock());
    events.add("prepared");
  });
  std::this_thread::sleep_for(50ms);  // it waits for the reference worker
  {
    std::unique_lock alone(gpu);  // a timing gets in meanwhile
    events.add("timed");
  }
  busy.unlock();
  evaluation.join();
  EXPECT_EQ(events.all(), (std::vector<std::string>{"timed", "prepared"}));
  EXPECT_GE(waited, 0.04);
}

TEST(GpuLock, AShareHeldAlreadyIsKeptWhenTheReferenceWorkerIsFree) {
  GpuLock gpu;
  std::mutex reference;
  std::shared_lock share(gpu);
  double waited = 0.0;
  auto held = lock_with_share(share, reference, waited);
  EXPECT_TRUE(share.owns_lock());
  EXPECT_TRUE(held.owns_lock());
}

// A checking child whose share is suspendable: suspend() and resume() as a timing calls them.
struct Child {
  Events& events;
  std::string name;
  bool can_be_held = true;
  std::atomic<int> held{0};
  GpuLock::Suspendable how() {
    return {[this] {
              if (!can_be_held) return false;
              ++held;
              events.add(name + " held");
              return true;
            },
            [this] {
              --held;
              events.add(name + " let go");
            }};
  }
};

// A child checking beside the timings of a test: its share held, and marked suspendable.
class GpuLockSuspension : public ::testing::Test {
 protected:
  void start_checking() {
    checking = std::shared_lock(gpu);
    token = gpu.mark_suspendable(child.how());
  }
  void stop_checking() {
    gpu.unmark_suspendable(token);
    checking.unlock();
  }

  GpuLock gpu;
  Events events;
  Child child{events, "child"};
  std::shared_lock<GpuLock> checking;
  int token = 0;
};

TEST_F(GpuLockSuspension, ATimingSuspendsACheckingChildInsteadOfWaitingForItsChecks) {
  start_checking();
  {
    std::unique_lock alone(gpu);  // would wait for the check to end; the child is held instead
    events.add("timed");
    EXPECT_EQ(child.held, 1);
  }
  EXPECT_EQ(child.held, 0);
  EXPECT_EQ(events.all(), (std::vector<std::string>{"child held", "timed", "child let go"}));
  stop_checking();
}

TEST_F(GpuLockSuspension, AShareThatCannotBeSuspendedIsWaitedFor) {
  Child attached{events, "attached"};
  attached.can_be_held = false;  // the driver refuses (CUPTI attached) or the work outlasts the timeout
  std::shared_lock refused_share(gpu);
  int refused = gpu.mark_suspendable(attached.how());
  start_checking();
  std::shared_lock reference(gpu);  // unmarked: the reference worker's
  std::thread timing([&] {
    std::unique_lock alone(gpu);
    events.add("timed");
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(events.all(), (std::vector<std::string>{"child held"}));  // still waits for the other two
  reference.unlock();
  gpu.unmark_suspendable(refused);
  refused_share.unlock();
  timing.join();
  EXPECT_EQ(events.all(), (std::vector<std::string>{"child held", "timed", "child let go"}));
  stop_checking();
}

TEST_F(GpuLockSuspension, AShareMarkedWhileATimingWaitsIsSuspendedThen) {
  checking = std::shared_lock(gpu);
  std::thread timing([&] {
    std::unique_lock alone(gpu);
    events.add("timed");
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_TRUE(events.all().empty());  // unmarked: waited for
  token = gpu.mark_suspendable(child.how());  // the child said who it is (gpu_wanted)
  timing.join();
  EXPECT_EQ(events.all(), (std::vector<std::string>{"child held", "timed", "child let go"}));
  stop_checking();
}

TEST_F(GpuLockSuspension, AChildReleasingItsShareWhileSuspendedIsStillLetGoOnceByTheTiming) {
  start_checking();
  std::unique_lock alone(gpu);  // suspended it
  std::thread child_thread([&] {
    stop_checking();  // it said "idle" (no CUDA call needed for that)
    std::shared_lock again(gpu);  // "wanted": waits for the timing
    events.add("child checks again");
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(child.held, 1);
  alone.unlock();
  child_thread.join();
  EXPECT_EQ(child.held, 0);
  auto said = events.all();
  ASSERT_EQ(said.size(), 3u);
  EXPECT_EQ(said[0], "child held");
  EXPECT_EQ(std::count(said.begin(), said.end(), "child let go"), 1);
}

TEST_F(GpuLockSuspension, EachTimingSuspendsTheChildAfresh) {
  start_checking();
  for (int i = 0; i < 2; ++i) {
    std::unique_lock alone(gpu);
    EXPECT_EQ(child.held, 1);
  }
  EXPECT_EQ(events.all(), (std::vector<std::string>{"child held", "child let go", "child held", "child let go"}));
  stop_checking();
}

TEST_F(GpuLockSuspension, AfterItsTimedCallsATimingResumesTheChildrenItSuspended) {
  start_checking();
  gpu.lock();
  EXPECT_EQ(child.held, 1);
  gpu.unlock_and_lock_shared();  // its determinism check shares the GPU with the checks again
  EXPECT_EQ(child.held, 0);
  gpu.unlock_shared();
  stop_checking();
}

}  // namespace
}  // namespace tritongym::triton_executor
