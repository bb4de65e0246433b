#include "config/overrides.hpp"

#include <gtest/gtest.h>

#include "config/yaml_loader.hpp"

namespace tritongym::config {
namespace {

ConfigNode sample() {
  return parse_yaml("name: x\nbudget:\n  max_turns: 5\nmodels:\n  - name: a\n  - name: b\n", "run.yaml").value();
}

TEST(Overrides, SetsNestedValuesWithYamlTypes) {
  ConfigNode root = sample();
  ASSERT_TRUE(apply_override(root, "budget.max_turns=9"));
  ASSERT_TRUE(apply_override(root, "budget.max_dollars=1.5"));
  EXPECT_EQ(root.find("budget")->find("max_turns")->as_int(), 9);
  EXPECT_EQ(root.find("budget")->find("max_dollars")->as_double(), 1.5);
}

TEST(Overrides, CreatesMissingMappings) {
  ConfigNode root = sample();
  ASSERT_TRUE(apply_override(root, "output.dir=runs/elsewhere"));
  EXPECT_EQ(root.find("output")->find("dir")->text(), "runs/elsewhere");
  EXPECT_NE(root.find("output")->find("dir")->where().file.find("output.dir=runs/elsewhere"), std::string::npos);
}

TEST(Overrides, IndexesLists) {
  ConfigNode root = sample();
  ASSERT_TRUE(apply_override(root, "models.1.name=c"));
  EXPECT_EQ(root.find("models")->items()[1].find("name")->text(), "c");
}

TEST(Overrides, ValueCanBeAList) {
  ConfigNode root = sample();
  ASSERT_TRUE(apply_override(root, "suites=[a, b]"));
  EXPECT_EQ(root.find("suites")->items().size(), 2u);
}

TEST(Overrides, IndexOutOfRangeIsAnError) {
  ConfigNode root = sample();
  Status status = apply_override(root, "models.5.name=c");
  ASSERT_FALSE(status);
  EXPECT_NE(status.message().find("out of range"), std::string::npos);
}

TEST(Overrides, CannotDescendIntoAScalar) {
  ConfigNode root = sample();
  Status status = apply_override(root, "name.sub=1");
  ASSERT_FALSE(status);
  EXPECT_NE(status.message().find("run.yaml:1:7"), std::string::npos) << status.message();
}

TEST(Overrides, Recognition) {
  EXPECT_TRUE(is_override("a.b=1"));
  EXPECT_TRUE(is_override("a=x=y"));
  EXPECT_FALSE(is_override("run.yaml"));
  EXPECT_FALSE(is_override("=1"));
  EXPECT_FALSE(is_override("dir/a=b.yaml"));
}

}  // namespace
}  // namespace tritongym::config
