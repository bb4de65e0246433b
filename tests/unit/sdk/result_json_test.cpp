// The JSON form of an evaluation result reads back into the same result (evaluation_from_json, the inverse of
// evaluation_json), and a result that is not one is refused with the key that is wrong.
#include <gtest/gtest.h>

#include "tritongym/sdk/result_json.hpp"

namespace tritongym {
namespace {

EvaluationResult timed_result() {
  EvaluationResult result;
  result.verdict = Verdict::flagged;
  result.message = "faster than the floor";
  result.stdout_text = "out";
  result.stderr_text = "err";
  result.record_json = R"({"phase_seconds":{"candidate":1.5}})";
  result.gpu_seconds = 0.25;
  result.wall_seconds = 3.5;
  result.flags = {"timing: faster than the speed-of-light floor"};
  result.warnings = {"torch in the entry path"};
  ShapeOutcome shape;
  shape.shape = "held-out-0";
  shape.passed = true;
  shape.max_abs_error = 1e-6;
  shape.max_rel_error = 2e-6;
  ShapeTiming timing;
  timing.median_us = 12.5;
  timing.repetitions = 100;
  timing.eager_us = 25.0;
  timing.speed_of_light_us = 13.0;
  timing.cold_l2 = false;
  shape.timing = timing;
  shape.kernels.push_back({"softmax_kernel", 1, 12.0, false, "128,1,1", "256,1,1", 32, 1024});
  result.shapes.push_back(shape);
  ShapeOutcome failed;
  failed.shape = "visible-0";
  failed.first_mismatch = "[3] 1.0 vs 2.0";
  result.shapes.push_back(failed);
  return result;
}

TEST(ResultJson, ReadsBackWhatItWrote) {
  const EvaluationResult written = timed_result();
  auto read = evaluation_from_json(boost::json::value(evaluation_json(written)));
  ASSERT_TRUE(read) << read.status().to_string();
  EXPECT_EQ(read->verdict, Verdict::flagged);
  EXPECT_EQ(read->message, written.message);
  EXPECT_EQ(read->stdout_text, "out");
  EXPECT_EQ(read->stderr_text, "err");
  EXPECT_EQ(read->flags, written.flags);
  EXPECT_EQ(read->warnings, written.warnings);
  EXPECT_DOUBLE_EQ(read->gpu_seconds, 0.25);
  EXPECT_DOUBLE_EQ(read->wall_seconds, 3.5);
  EXPECT_EQ(boost::json::parse(read->record_json), boost::json::parse(written.record_json));
  ASSERT_EQ(read->shapes.size(), 2u);
  const auto& shape = read->shapes[0];
  EXPECT_EQ(shape.shape, "held-out-0");
  EXPECT_TRUE(shape.passed);
  EXPECT_DOUBLE_EQ(shape.max_rel_error, 2e-6);
  ASSERT_TRUE(shape.timing.has_value());
  EXPECT_DOUBLE_EQ(shape.timing->median_us, 12.5);
  EXPECT_EQ(shape.timing->repetitions, 100);
  EXPECT_EQ(shape.timing->eager_us, 25.0);
  EXPECT_FALSE(shape.timing->compile_us.has_value());
  EXPECT_EQ(shape.timing->speed_of_light_us, 13.0);
  EXPECT_FALSE(shape.timing->cold_l2);
  ASSERT_EQ(shape.kernels.size(), 1u);
  EXPECT_EQ(shape.kernels[0].name, "softmax_kernel");
  EXPECT_EQ(shape.kernels[0].shared_memory_bytes, 1024);
  EXPECT_EQ(read->shapes[1].first_mismatch, "[3] 1.0 vs 2.0");
  EXPECT_FALSE(read->shapes[1].timing.has_value());
  // The same object written again is the same JSON.
  EXPECT_EQ(boost::json::value(evaluation_json(*read)), boost::json::value(evaluation_json(written)));
}

TEST(ResultJson, ReadsWhatEvalAndServePrint) {
  // `tritongym eval --json` and `tritongym serve` keep evaluation_json's "record" and add the judging executor's
  // id as "executor", which the reader ignores.
  boost::json::object served = evaluation_json(timed_result());
  served["executor"] = "tritongym.executor.triton-cuda";
  auto read = evaluation_from_json(served);
  ASSERT_TRUE(read);
  EXPECT_NE(read->record_json.find("phase_seconds"), std::string::npos);
}

TEST(ResultJson, RefusesWhatIsNotAResultNamingTheKey) {
  EXPECT_FALSE(evaluation_from_json(boost::json::parse("[1]")));
  auto no_verdict = evaluation_from_json(boost::json::parse(R"({"message": "hi"})"));
  ASSERT_FALSE(no_verdict);
  EXPECT_NE(no_verdict.status().message().find("verdict"), std::string::npos);
  auto bad_verdict = evaluation_from_json(boost::json::parse(R"({"verdict": "great"})"));
  ASSERT_FALSE(bad_verdict);
  EXPECT_NE(bad_verdict.status().message().find("great"), std::string::npos);
  auto bad_shape = evaluation_from_json(
      boost::json::parse(R"({"verdict": "passed", "shapes": [{"shape": "v", "passed": "yes"}]})"));
  ASSERT_FALSE(bad_shape);
  EXPECT_NE(bad_shape.status().message().find("result.shapes[0].passed"), std::string::npos) << bad_shape.status().message();
  auto bad_timing = evaluation_from_json(
      boost::json::parse(R"({"verdict": "passed", "shapes": [{"shape": "v", "timing": {"eager_us": "fast"}}]})"));
  ASSERT_FALSE(bad_timing);
  EXPECT_NE(bad_timing.status().message().find("timing.eager_us"), std::string::npos);
}

}  // namespace
}  // namespace tritongym
