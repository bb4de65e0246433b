// Verdict names: every verdict has one, and verdict_from_name reads each back (executors parse their workers'
// replies with it; an unknown name is no verdict).
#include <gtest/gtest.h>

#include "tritongym/sdk/types.hpp"

namespace tritongym {
namespace {

TEST(VerdictNames, EveryVerdictReadsBackFromItsName) {
  for (Verdict verdict : {Verdict::passed, Verdict::compile_error, Verdict::runtime_error, Verdict::timeout,
                          Verdict::crash, Verdict::oom, Verdict::wrong_answer, Verdict::flagged, Verdict::harness_error,
                          Verdict::not_judged}) {
    auto read = verdict_from_name(verdict_name(verdict));
    ASSERT_TRUE(read.has_value()) << verdict_name(verdict);
    EXPECT_EQ(*read, verdict);
  }
  EXPECT_STREQ(verdict_name(Verdict::not_judged), "not_judged");
  EXPECT_FALSE(verdict_from_name("unknown").has_value());
  EXPECT_FALSE(verdict_from_name("").has_value());
  EXPECT_FALSE(verdict_from_name("Passed").has_value());
}

}  // namespace
}  // namespace tritongym
