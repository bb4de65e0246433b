// The verdict stage alone: from the reference worker's comparison entries to a verdict per shape, and what a
// candidate's own process may report of itself.
#include <gtest/gtest.h>

#include "verdict.hpp"

namespace tritongym::triton_executor {
namespace {

boost::json::object entry(bool passed, double abs_error, const std::string& mismatch = "") {
  return {{"passed", passed}, {"max_abs_error", abs_error}, {"max_rel_error", abs_error / 2},
          {"first_mismatch", mismatch}};
}

TEST(Verdict, EveryCaseOfEveryShapePassingPasses) {
  std::vector<CaseLabel> cases{{"visible-0", {{"N", 8}}}, {"visible-0", {{"N", 8}}}, {"held-out-0", {{"N", 9}}},
                               {"held-out-0", {{"N", 9}}}};
  boost::json::array compared{entry(true, 1e-6), entry(true, 3e-6), entry(true, 2e-6), entry(true, 0)};
  ShapesJudged judged = judge_shapes(cases, compared);
  EXPECT_EQ(judged.verdict, Verdict::passed);
  ASSERT_EQ(judged.shapes.size(), 2u);
  EXPECT_EQ(judged.shapes[0].shape, "visible-0");
  EXPECT_DOUBLE_EQ(judged.shapes[0].max_abs_error, 3e-6);
  EXPECT_NE(judged.message.find("passed 2 shape(s) x 2 random input set(s)"), std::string::npos) << judged.message;
  EXPECT_EQ(judged.comparison.size(), 4u);
  EXPECT_TRUE(judged.recheck.empty());
}

TEST(Verdict, OneFailingSeedFailsItsShapeAndNamesItsFirstMismatch) {
  std::vector<CaseLabel> cases{{"visible-0", {{"M", 4}, {"N", 8}}}, {"visible-0", {{"M", 4}, {"N", 8}}},
                               {"held-out-0", {{"M", 5}, {"N", 9}}}};
  boost::json::array compared{entry(true, 0), entry(false, 0.5, "[1, 2]: 1.5 vs 1.0"), entry(true, 0)};
  ShapesJudged judged = judge_shapes(cases, compared);
  EXPECT_EQ(judged.verdict, Verdict::wrong_answer);
  EXPECT_FALSE(judged.shapes[0].passed);
  EXPECT_TRUE(judged.shapes[1].passed);
  EXPECT_NE(judged.message.find("wrong answer on 1 of 2 shape(s)"), std::string::npos) << judged.message;
  EXPECT_NE(judged.message.find("visible-0 (M=4, N=8) [1, 2]: 1.5 vs 1.0"), std::string::npos) << judged.message;
}

TEST(Verdict, AProblemOfTheOutputIsNamedBeforeItsMismatch) {
  auto bad = entry(false, 0);
  bad["problem"] = "the output has shape (4,) where (8,) was expected";
  ShapesJudged judged = judge_shapes({{"visible-0", {{"N", 8}}}}, {bad});
  EXPECT_NE(judged.message.find("the output has shape (4,)"), std::string::npos) << judged.message;
}

TEST(Verdict, TheEntriesAfterTheCasesAreTheTimedOutputsRecheck) {
  boost::json::array compared{entry(true, 0), entry(true, 0), entry(false, 1.0)};
  ShapesJudged judged = judge_shapes({{"visible-0", {{"N", 8}}}}, compared);
  EXPECT_EQ(judged.verdict, Verdict::passed) << "a timed output is judged by the timing's recheck, not here";
  EXPECT_EQ(judged.comparison.size(), 1u);
  EXPECT_EQ(judged.recheck.size(), 2u);
}

TEST(Verdict, NothingComparedIsTheHarnessesFaultNotAPass) {
  ShapesJudged judged = judge_shapes({{"visible-0", {{"N", 8}}}}, {});
  EXPECT_EQ(judged.verdict, Verdict::harness_error);
  EXPECT_NE(judged.message.find("compared none of the 1 case(s)"), std::string::npos) << judged.message;
}

TEST(Verdict, ACandidateCannotReportItsOwnPass) {
  EXPECT_EQ(reported_failure("passed", false), Verdict::runtime_error);
  EXPECT_EQ(reported_failure("passed", true), Verdict::runtime_error);
  EXPECT_EQ(reported_failure("no such verdict", false), Verdict::runtime_error);
  EXPECT_EQ(reported_failure("timeout", false), Verdict::timeout);
  EXPECT_EQ(reported_failure("not_judged", true), Verdict::not_judged);
  EXPECT_EQ(reported_failure("not_judged", false), Verdict::runtime_error) << "not_judged comes from the interpreter only";
}

TEST(Verdict, AnUnconfinedChildIsNamedWithWhatItLacked) {
  EXPECT_EQ(unconfined_warning({{"sandbox", {{"confined", true}}}}), "");
  EXPECT_EQ(unconfined_warning({}), "");
  const std::string warning =
      unconfined_warning({{"sandbox", {{"confined", false}, {"missing", {"network namespace", "seccomp"}}}}});
  EXPECT_EQ(warning.rfind("[unconfined]", 0), 0u) << warning;
  EXPECT_NE(warning.find("network namespace; seccomp"), std::string::npos) << warning;
}

TEST(Verdict, FlagsTurnAPassIntoFlaggedAndStandBesideAFailure) {
  EvaluationResult passed;
  passed.verdict = Verdict::passed;
  add_flags(passed, {"the timed calls overlapped"});
  EXPECT_EQ(passed.verdict, Verdict::flagged);
  EXPECT_NE(passed.message.find("\n  - the timed calls overlapped"), std::string::npos);
  EvaluationResult failed;
  failed.verdict = Verdict::wrong_answer;
  failed.message = "wrong";
  add_flags(failed, {"x"});
  EXPECT_EQ(failed.verdict, Verdict::wrong_answer);
  EXPECT_EQ(failed.message, "wrong\nalso flagged: x");
  EXPECT_EQ(failed.flags.size(), 1u);
}

}  // namespace
}  // namespace tritongym::triton_executor
