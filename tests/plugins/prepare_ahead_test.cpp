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

// A step that blocks until the test lets it go (`release`), then records `name` and returns `ok`; `started()`
// waits until it runs.
struct Gate {
  std::promise<void> opened;
  std::shared_future<void> open = opened.get_future().share();
  std::atomic<bool> entered{false};
  PrepareAhead::Step step(Log& log, const std::string& name, bool ok = true) {
    return [this, &log, name, ok] {
      entered = true;
      open.wait();
      std::lock_guard guard(log.mutex);
      log.ran.push_back(name);
      return ok;
    };
  }
  void started() const {
    while (!entered) std::this_thread::sleep_for(1ms);
  }
  void release() { opened.set_value(); }
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
  Gate gate;  // a1 blocks: a2 and a3 are still waiting when "a" is taken
  ahead.hint("a", {gate.step(log, "a1"), log.step("a2"), log.step("a3")});
  ahead.hint("b", {log.step("b1")});
  gate.started();
  ahead.taken("a");
  gate.release();
  ahead.wait_idle();
  EXPECT_EQ(log.seen(), (std::vector<std::string>{"a1", "b1"}));
  EXPECT_TRUE(ahead.hint("a", {log.step("a again")}));  // taken: a later hint of it counts again
  ahead.wait_idle();
  EXPECT_EQ(log.seen().back(), "a again");
}

TEST(PrepareAhead, AStepThatFailsAfterItsHintWasTakenAndHintedAgainLeavesTheNewHint) {
  Log log;
  PrepareAhead ahead(4);
  Gate gate;
  ahead.hint("a", {gate.step(log, "a1", false), log.step("a2")});
  gate.started();
  ahead.taken("a");                                      // its evaluation came ...
  EXPECT_TRUE(ahead.hint("a", {log.step("a again")}));  // ... and another of the same key is coming
  gate.release();                                        // a1 fails: only the old hint's a2 goes
  ahead.wait_idle();
  EXPECT_EQ(log.seen(), (std::vector<std::string>{"a1", "a again"}));
  EXPECT_EQ(ahead.counts().failed, 1);
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
  Gate gate;
  ahead.hint("a", {gate.step(log, "a1"), log.step("a2")});
  gate.started();
  std::thread stopping([&] { ahead.stop(); });
  std::this_thread::sleep_for(50ms);
  gate.release();
  stopping.join();
  EXPECT_EQ(log.seen(), (std::vector<std::string>{"a1"}));  // a2 never ran
  EXPECT_FALSE(ahead.hint("b", {log.step("b1")}));
}

}  // namespace
}  // namespace tritongym::triton_executor
