#include "config/schema.hpp"

#include <gtest/gtest.h>

#include "config/yaml_loader.hpp"

namespace tritongym::config {
namespace {

Schema budget_schema() {
  Schema budget = Schema::object();
  budget.field("max_turns", Schema::integer(0)).field("max_dollars", Schema::number(0));
  Schema root = Schema::object();
  root.field("name", Schema::string(), true).field("budget", budget).field("mode", Schema::string().one_of({"fast", "slow"}));
  return root;
}

Status check(const std::string& text) {
  auto parsed = parse_yaml(text, "run.yaml");
  EXPECT_TRUE(parsed);
  return budget_schema().validate(parsed.value());
}

TEST(Schema, AcceptsValidInput) { EXPECT_TRUE(check("name: x\nbudget: {max_turns: 3, max_dollars: 0.5}\nmode: fast\n")); }

TEST(Schema, UnknownKeyHasLocationAndDidYouMean) {
  Status status = check("name: x\nbudget:\n  max_turn: 3\n");
  ASSERT_FALSE(status);
  EXPECT_EQ(status.location(), "run.yaml:3:3");
  EXPECT_NE(status.message().find("unknown key 'max_turn' (did you mean 'max_turns'?)"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("'budget'"), std::string::npos);
}

TEST(Schema, WrongTypeHasLocation) {
  Status status = check("name: x\nbudget:\n  max_turns: many\n");
  ASSERT_FALSE(status);
  EXPECT_EQ(status.location(), "run.yaml:3:14");
  EXPECT_NE(status.message().find("expected an integer"), std::string::npos);
}

TEST(Schema, MinimumIsEnforced) {
  Status status = check("name: x\nbudget: {max_turns: -1}\n");
  ASSERT_FALSE(status);
  EXPECT_NE(status.message().find("at least 0"), std::string::npos);
}

TEST(Schema, MissingRequiredKey) {
  Status status = check("budget: {}\n");
  ASSERT_FALSE(status);
  EXPECT_NE(status.message().find("missing required key 'name'"), std::string::npos);
}

TEST(Schema, EnumeratedStringSuggests) {
  Status status = check("name: x\nmode: fats\n");
  ASSERT_FALSE(status);
  EXPECT_NE(status.message().find("did you mean 'fast'"), std::string::npos) << status.message();
}

TEST(Schema, QuotedNumberIsNotAnInteger) {
  Status status = check("name: x\nbudget: {max_turns: '3'}\n");
  EXPECT_FALSE(status);
}

}  // namespace
}  // namespace tritongym::config
