#include "tasks/task_check.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace tritongym::tasks {
namespace {

TaskSpec float_task() {
  TaskSpec task;
  task.tolerance["float32"] = {1e-5, 1e-5};
  return task;
}

boost::json::value described(std::vector<std::pair<std::string, std::string>> cases) {
  // each case: (digest, extra JSON fields of its only output)
  boost::json::array out;
  for (const auto& [digest, extra] : cases) {
    boost::json::object output = boost::json::parse(
        R"({"shape":[8,16],"dtype":"float32","std":1.0,"max_abs":3.0,"non_finite":0,"constant_axes":[]})").as_object();
    boost::json::value overrides = boost::json::parse(extra);
    for (const auto& entry : overrides.as_object()) output[entry.key()] = entry.value();
    output["digest"] = digest;
    out.push_back({{"case", "c"}, {"dims", {{"M", 8}, {"N", 16}}}, {"outputs", boost::json::array{output}}});
  }
  return out;
}

TEST(TaskCheck, AHealthyOutputHasNoProblem) {
  EXPECT_TRUE(find_degeneracy(described({{"a", "{}"}, {"b", "{}"}}), float_task()).empty());
}

TEST(TaskCheck, NearZeroNearConstantAndNonFiniteAreProblems) {
  auto near_zero = find_degeneracy(described({{"a", R"({"max_abs":1e-9,"std":1e-10})"}}), float_task());
  ASSERT_EQ(near_zero.size(), 1u);
  EXPECT_NE(near_zero[0].find("within tolerance of zero"), std::string::npos);
  auto constant = find_degeneracy(described({{"a", R"({"std":1e-7})"}}), float_task());
  ASSERT_EQ(constant.size(), 1u);
  EXPECT_NE(constant[0].find("nearly constant"), std::string::npos);
  auto nan = find_degeneracy(described({{"a", R"({"non_finite":3})"}}), float_task());
  EXPECT_NE(nan.at(0).find("NaN or Inf"), std::string::npos);
}

TEST(TaskCheck, AnAxisWithoutVariationIsAProblem) {
  auto problems = find_degeneracy(described({{"a", R"({"constant_axes":[1]})"}}), float_task());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("does not vary along axis [1]"), std::string::npos);
}

TEST(TaskCheck, OutputsThatIgnoreTheInputsAreAProblem) {
  auto problems = find_degeneracy(described({{"same", "{}"}, {"same", "{}"}}), float_task());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("same for different random inputs"), std::string::npos);
}

TEST(TaskCheck, AScalarOutputIsNotNearlyConstantBecauseItIsOneValue) {
  auto problems = find_degeneracy(described({{"a", R"({"shape":[],"std":0.0})"}, {"b", R"({"shape":[],"std":0.0})"}}),
                                  float_task());
  EXPECT_TRUE(problems.empty()) << problems.front();
}

TEST(TaskCheck, MissingDescriptionIsAProblem) {
  EXPECT_FALSE(find_degeneracy(boost::json::value(), float_task()).empty());
}

}  // namespace
}  // namespace tritongym::tasks
