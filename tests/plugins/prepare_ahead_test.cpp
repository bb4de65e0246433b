// PrepareAhead (prepare_ahead.hpp): hinted evaluations' steps run in the order hinted, one at a time, never
// while an evaluation wants the reference worker; an evaluation that begins drops its hint's remaining steps.
#include "prepare_ahead.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tritongym::triton_executor {
namespace {

using namespace std::chrono_literals;

// Steps that record their name when they run.
struct Log {
  std::mutex mutex;
  std::vector<std::string> ran;
  PrepareAhead::Step step(const std::string& name, bool ok = true) {
    return [this, name, ok] {
      std::lock_guard guard(mutex);
      ran.push_back(name);
      return ok;
    };
  }
  std::vector<std::string> seen() {
    std::lock_guard guard(mutex);
    return ran;
  }
};

TEST(PrepareAhead, RunsEveryStepOfEveryHintInTheOrderHinted) {
  Log log;
  PrepareAhead ahead(4);
  EXPECT_TRUE(ahead.hint("a", {log.step("a1"), log.step("a2")}));
  EXPECT_TRUE(ahead.hint("b", {log.step("b1")}));
  ahead.wait_idle();
  EXPECT_EQ(log.seen(), (std::vector<std::string>{"a1", "a2", "b1"}));
  auto counts = ahead.counts();
  EXPECT_EQ(counts.hinted, 2);
  EXPECT_EQ(counts.steps, 3);
  EXPECT_EQ(counts.failed, 0);
}

TEST(PrepareAhead, NoStepStartsWhileAnEvaluationWantsTheReferenceWorker) {
  Log log;
  PrepareAhead ahead(4);
  ahead.want();  // an evaluation waits for the reference worker, or uses it
  ahead.hint("a", {log.step("a1")});
  std::this_thread::sleep_for(200ms);
  EXPECT_TRUE(log.seen().empty());
  ahead.wanted();  // it has done with it
  ahead.wait_idle();
  EXPECT_EQ(log.seen(), (std::vector<std::string>{"a1"}));
}

TEST(PrepareAhead, AnEvaluationThatBeginsDropsTheStepsNotRunYet) {
  Log log;
  PrepareAhead ahead(4);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> first_started{false};
  // The first step blocks until the test lets it go: a2 and a3 are still waiting when "a" is taken.
  PrepareAhead::Step blocking = [&] {
    first_started = true;
    released.wait();
    std::lock_guard guard(log.mutex);
    log.ran.push_back("a1");
    return true;
  };
  ahead.hint("a", {blocking, log.step("a2"), log.step("a3")});
  ahead.hint("b", {log.step("b1")});
  while (!first_started) std::this_thread::sleep_for(1ms);
  ahead.taken("a");
  release.set_value();
  ahead.wait_idle();
  EXPECT_EQ(log.seen(), (std::vector<std::string>{"a1", "b1"}));
  EXPECT_TRUE(ahead.hint("a", {log.step("a again")}));  // taken: a later hint of it counts again
  ahead.wait_idle();
  EXPECT_EQ(log.seen().back(), "a again");
}

TEST(PrepareAhead, AHintThatIsWaitingIsDroppedWholeWhenItsEvaluationBegins) {
  Log log;
  PrepareAhead ahead(4);
  ahead.want();
  ahead.hint("a", {log.step("a1")});
  ahead.hint("b", {log.step("b1")});
  ahead.taken("b");
  ahead.wanted();
  ahead.wait_idle();
  EXPECT_EQ(log.seen(), (std::vector<std::string>{"a1"}));
  EXPECT_EQ(ahead.counts().taken, 1);
}

TEST(PrepareAhead, AKnownHintOrOneBeyondTheRoomIsIgnored) {
  Log log;
  PrepareAhead ahead(2);
  ahead.want();  // nothing runs, so the queue fills
  EXPECT_TRUE(ahead.hint("a", {log.step("a1")}));
  EXPECT_FALSE(ahead.hint("a", {log.step("a1 again")}));
  EXPECT_TRUE(ahead.hint("b", {log.step("b1")}));
  EXPECT_FALSE(ahead.hint("c", {log.step("c1")}));  // the nearest two are the ones to prepare
  ahead.wanted();
  ahead.wait_idle();
  EXPECT_EQ(log.seen(), (std::vector<std::string>{"a1", "b1"}));
  EXPECT_FALSE(ahead.hint("a", {log.step("a1 once more")}));  // done, and not taken yet: still known
  EXPECT_EQ(ahead.counts().ignored, 3);
}

TEST(PrepareAhead, AFailedStepDropsTheRestOfItsHintOnly) {
  Log log;
  PrepareAhead ahead(4);
  ahead.hint("a", {log.step("a1", false), log.step("a2")});
  ahead.hint("b", {log.step("b1")});
  ahead.wait_idle();
  EXPECT_EQ(log.seen(), (std::vector<std::string>{"a1", "b1"}));
  EXPECT_EQ(ahead.counts().failed, 1);
}

TEST(PrepareAhead, StoppingEndsAfterTheStepInProgressAndIgnoresLaterHints) {
  Log log;
  PrepareAhead ahead(4);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> started{false};
  ahead.hint("a", {[&] {
                     started = true;
                     released.wait();
                     return true;
                   },
                   log.step("a2")});
  while (!started) std::this_thread::sleep_for(1ms);
  std::thread stopping([&] { ahead.stop(); });
  std::this_thread::sleep_for(50ms);
  release.set_value();
  stopping.join();
  EXPECT_TRUE(log.seen().empty());  // a2 never ran
  EXPECT_FALSE(ahead.hint("b", {log.step("b1")}));
}

}  // namespace
}  // namespace tritongym::triton_executor
