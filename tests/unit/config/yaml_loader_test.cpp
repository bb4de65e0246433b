#include "config/yaml_loader.hpp"

#include <gtest/gtest.h>

#include "support/test_support.hpp"

namespace tritongym::config {
namespace {

using testing::TemporaryDirectory;

TEST(YamlLoader, RecordsLineAndColumnOfEveryValueAndKey) {
  TemporaryDirectory dir;
  std::string file = dir.write("run.yaml", "name: demo\nbudget:\n  max_turns: 5\n");
  auto loaded = load_yaml_file(file);
  ASSERT_TRUE(loaded) << loaded.status().to_string();
  const ConfigNode* budget = loaded->find("budget");
  ASSERT_NE(budget, nullptr);
  const ConfigNode::Entry* turns = budget->find_entry("max_turns");
  ASSERT_NE(turns, nullptr);
  EXPECT_EQ(turns->key_where.line, 3);
  EXPECT_EQ(turns->key_where.column, 3);
  EXPECT_EQ(turns->value.where().to_string(), file + ":3:14");
  EXPECT_EQ(turns->value.as_int(), 5);
}

TEST(YamlLoader, QuotedScalarsStayStrings) {
  auto parsed = parse_yaml("a: '5'\nb: 5\nc: true\nd: \"true\"\ne: ~\n", "inline");
  ASSERT_TRUE(parsed);
  EXPECT_FALSE(parsed->find("a")->as_int().has_value());
  EXPECT_EQ(parsed->find("b")->as_int(), 5);
  EXPECT_EQ(parsed->find("c")->as_bool(), true);
  EXPECT_FALSE(parsed->find("d")->as_bool().has_value());
  EXPECT_TRUE(parsed->find("e")->is_null());
}

TEST(YamlLoader, SyntaxErrorSaysFileLineAndColumn) {
  TemporaryDirectory dir;
  std::string file = dir.write("broken.yaml", "name: demo\nmodels: [a, b\nbudget: {}\n");
  auto loaded = load_yaml_file(file);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.status().code(), StatusCode::invalid_config);
  EXPECT_NE(loaded.status().message().find("invalid YAML"), std::string::npos);
  EXPECT_EQ(loaded.status().location().rfind(file + ":", 0), 0u) << loaded.status().location();
}

TEST(YamlLoader, DefaultsAreMergedBeneathTheFile) {
  TemporaryDirectory dir;
  dir.write("base/common.yaml", "budget:\n  max_turns: 10\n  max_tool_calls: 20\nsamples: 3\n");
  std::string file = dir.write("run.yaml", "defaults: [base/common.yaml]\nbudget:\n  max_turns: 4\n");
  auto loaded = load_yaml_file(file);
  ASSERT_TRUE(loaded) << loaded.status().to_string();
  EXPECT_EQ(loaded->find("budget")->find("max_turns")->as_int(), 4);
  EXPECT_EQ(loaded->find("budget")->find("max_tool_calls")->as_int(), 20);
  EXPECT_EQ(loaded->find("samples")->as_int(), 3);
  EXPECT_EQ(loaded->find("defaults"), nullptr);
  // Values from the included file keep their own file in their location.
  EXPECT_NE(loaded->find("samples")->where().file.find("common.yaml"), std::string::npos);
}

TEST(YamlLoader, LaterDefaultsOverrideEarlierOnes) {
  TemporaryDirectory dir;
  dir.write("a.yaml", "seed: 1\nsamples: 1\n");
  dir.write("b.yaml", "seed: 2\n");
  auto loaded = load_yaml_file(dir.write("run.yaml", "defaults: [a.yaml, b.yaml]\n"));
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->find("seed")->as_int(), 2);
  EXPECT_EQ(loaded->find("samples")->as_int(), 1);
}

TEST(YamlLoader, IncludeCycleIsAnError) {
  TemporaryDirectory dir;
  dir.write("a.yaml", "defaults: b.yaml\n");
  dir.write("b.yaml", "defaults: a.yaml\n");
  auto loaded = load_yaml_file((dir.path() / "a.yaml").string());
  ASSERT_FALSE(loaded);
  EXPECT_NE(loaded.status().message().find("cycle"), std::string::npos) << loaded.status().message();
}

TEST(YamlLoader, MissingIncludeNamesTheIncludingLine) {
  TemporaryDirectory dir;
  std::string file = dir.write("run.yaml", "name: x\ndefaults:\n  - nowhere.yaml\n");
  auto loaded = load_yaml_file(file);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.status().location(), file + ":3:5");
  EXPECT_NE(loaded.status().message().find("nowhere.yaml"), std::string::npos);
}

TEST(YamlLoader, MissingFileIsNotFound) {
  auto loaded = load_yaml_file("/nonexistent/run.yaml");
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.status().code(), StatusCode::not_found);
}

TEST(YamlLoader, TopLevelMustBeAMapping) {
  TemporaryDirectory dir;
  auto loaded = load_yaml_file(dir.write("list.yaml", "- a\n- b\n"));
  ASSERT_FALSE(loaded);
  EXPECT_NE(loaded.status().message().find("mapping"), std::string::npos);
}

TEST(ConfigNode, ToYamlRoundTrips) {
  auto parsed = parse_yaml("name: x\nlist: [1, 'two']\nmap: {a: true}\n", "inline");
  ASSERT_TRUE(parsed);
  auto again = parse_yaml(to_yaml(*parsed), "again");
  ASSERT_TRUE(again) << to_yaml(*parsed);
  EXPECT_EQ(again->find("list")->items()[0].as_int(), 1);
  EXPECT_TRUE(again->find("list")->items()[1].quoted());
  EXPECT_EQ(again->find("map")->find("a")->as_bool(), true);
}

}  // namespace
}  // namespace tritongym::config
