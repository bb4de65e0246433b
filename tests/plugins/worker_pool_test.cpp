// The candidate workers' pool and its lease, with real processes (a stand-in worker that answers every request):
// a lease returns its worker on every path, and the pool never runs more workers than its capacity.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "worker_pool.hpp"

namespace tritongym::triton_executor {
namespace {

using namespace std::chrono_literals;

class WorkerPoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("tritongym-pool-test-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  WorkerPool::Launch launch(const std::string& program = TRITONGYM_ANSWERING_WORKER) {
    return [this, program](int64_t slot) {
      ++started_;
      WorkerLaunch how;
      how.python = program;
      how.role = "candidate";
      how.root = (root_ / ("slot-" + std::to_string(slot))).string();
      how.environment = minimal_environment({});
      how.start_timeout_s = 20;
      return how;
    };
  }
  std::filesystem::path root_;
  std::atomic<int> started_{0};
};

int pid_of(WorkerLease& lease) {
  auto reply = lease->request({{"op", "hello"}}, 10);
  EXPECT_TRUE(reply.has_value()) << reply.status().message();
  return reply ? static_cast<int>(reply->at("pid").as_int64()) : -1;
}

TEST_F(WorkerPoolTest, AWorkerGivenBackToKeepServesTheNextLease) {
  WorkerPool pool(1, 50);
  int first_pid = 0;
  {
    auto lease = pool.acquire(launch());
    ASSERT_TRUE(lease.has_value()) << lease.status().message();
    first_pid = pid_of(lease.value());
    lease->give_back(true);
    EXPECT_FALSE(lease->held());
  }
  auto again = pool.acquire(launch());
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(pid_of(again.value()), first_pid);
  EXPECT_EQ(started_.load(), 1);
  EXPECT_EQ(pool.running(), 1);
}

TEST_F(WorkerPoolTest, ALeaseThatEndsWithoutAWordKillsItsWorkerAndFreesItsSlot) {
  WorkerPool pool(1, 50);
  int first_pid = 0;
  {
    auto lease = pool.acquire(launch());
    ASSERT_TRUE(lease.has_value());
    first_pid = pid_of(lease.value());
  }  // an early return or an exception: the worker's state is unknown
  EXPECT_EQ(pool.running(), 0);
  EXPECT_NE(::kill(first_pid, 0), 0) << "the worker of an abandoned lease still runs";
  auto next = pool.acquire(launch());
  ASSERT_TRUE(next.has_value());
  EXPECT_NE(pid_of(next.value()), first_pid);
  EXPECT_EQ(started_.load(), 2);
}

TEST_F(WorkerPoolTest, AWorkerDueForRecyclingIsNotKept) {
  WorkerPool pool(1, 2);
  auto lease = pool.acquire(launch());
  ASSERT_TRUE(lease.has_value());
  lease.value()->evaluations = 2;
  lease->give_back(true);
  EXPECT_EQ(pool.running(), 0);
}

TEST_F(WorkerPoolTest, AnAcquireBeyondTheCapacityWaitsForAWorkerToComeBack) {
  WorkerPool pool(1, 50);
  auto first = pool.acquire(launch());
  ASSERT_TRUE(first.has_value());
  std::atomic<bool> second_in{false};
  std::thread other([&] {
    auto second = pool.acquire(launch());
    EXPECT_TRUE(second.has_value());
    second_in = true;
    second->give_back(true);
  });
  std::this_thread::sleep_for(200ms);
  EXPECT_FALSE(second_in.load()) << "a second worker ran beside the first at capacity 1";
  first->give_back(true);
  other.join();
  EXPECT_TRUE(second_in.load());
  EXPECT_EQ(started_.load(), 1);
}

TEST_F(WorkerPoolTest, AWorkerThatCannotStartSaysWhyAndGivesItsSlotBack) {
  WorkerPool pool(1, 50);
  auto failed = pool.acquire(launch("/nonexistent/python"));
  ASSERT_FALSE(failed.has_value());
  EXPECT_NE(failed.status().message().find("cannot start '/nonexistent/python'"), std::string::npos) << failed.status().message();
  EXPECT_EQ(pool.running(), 0);
  auto next = pool.acquire(launch());
  EXPECT_TRUE(next.has_value()) << next.status().message();
}

TEST_F(WorkerPoolTest, PrestartedWorkersServeTheFirstLeases) {
  WorkerPool pool(2, 50);
  auto threads = pool.prestart(5, launch());
  EXPECT_EQ(threads.size(), 2u) << "prestart goes no further than the capacity";
  for (auto& thread : threads) thread.join();
  auto a = pool.acquire(launch());
  auto b = pool.acquire(launch());
  ASSERT_TRUE(a.has_value() && b.has_value());
  EXPECT_EQ(started_.load(), 2);
}

}  // namespace
}  // namespace tritongym::triton_executor
