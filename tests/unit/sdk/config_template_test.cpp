#include "tritongym/sdk/config.hpp"

#include <gtest/gtest.h>

namespace tritongym {
namespace {

struct Inner {
  std::string name;
  int64_t count = 1;
  static constexpr auto fields() { return std::make_tuple(field("name", &Inner::name), field("count", &Inner::count)); }
};

struct Sample {
  bool enabled = false;
  int threads = 4;
  double temperature = 0.7;
  std::string label = "default";
  std::optional<int64_t> limit;
  std::vector<std::string> tags;
  std::map<std::string, double> prices;
  std::vector<Inner> items;
  JsonText raw;
  static constexpr auto fields() {
    return std::make_tuple(field("enabled", &Sample::enabled), field("threads", &Sample::threads),
                           field("temperature", &Sample::temperature), field("label", &Sample::label),
                           field("limit", &Sample::limit), field("tags", &Sample::tags), field("prices", &Sample::prices),
                           field("items", &Sample::items), field("raw", &Sample::raw));
  }
};

TEST(ConfigTemplate, EmptyConfigKeepsDefaults) {
  auto config = parse_config<Sample>("{}");
  ASSERT_TRUE(config);
  EXPECT_EQ(config->threads, 4);
  EXPECT_EQ(config->label, "default");
  EXPECT_FALSE(config->limit);
  EXPECT_EQ(config->raw.text, "null");
}

TEST(ConfigTemplate, FillsEveryKindOfMember) {
  auto config = parse_config<Sample>(R"({"enabled":true,"threads":8,"temperature":1,"label":"x","limit":5,
      "tags":["a","b"],"prices":{"in":1.5},"items":[{"name":"n","count":3}],"raw":{"any":[1,2]}})");
  ASSERT_TRUE(config) << config.status().to_string();
  EXPECT_TRUE(config->enabled);
  EXPECT_EQ(config->threads, 8);
  EXPECT_DOUBLE_EQ(config->temperature, 1.0);  // integers are accepted as numbers
  EXPECT_EQ(config->limit, 5);
  EXPECT_EQ(config->tags.size(), 2u);
  EXPECT_DOUBLE_EQ(config->prices.at("in"), 1.5);
  EXPECT_EQ(config->items.at(0).count, 3);
  EXPECT_EQ(config->raw.text, R"({"any":[1,2]})");
}

TEST(ConfigTemplate, UnknownKeyHasPointerAndSuggestion) {
  auto config = parse_config<Sample>(R"({"items":[{"name":"n","cuont":3}]})");
  ASSERT_FALSE(config);
  EXPECT_EQ(config.status().code(), StatusCode::invalid_config);
  EXPECT_EQ(config.status().location(), "/items/0/cuont");
  EXPECT_EQ(config.status().message(), "unknown key 'cuont' (did you mean 'count'?)");
}

TEST(ConfigTemplate, WrongTypesArePointedAt) {
  auto integer = parse_config<Sample>(R"({"threads":"many"})");
  EXPECT_EQ(integer.status().location(), "/threads");
  EXPECT_EQ(integer.status().message(), "expected an integer, got a string");
  auto list = parse_config<Sample>(R"({"tags":["a",3]})");
  EXPECT_EQ(list.status().location(), "/tags/1");
  auto boolean = parse_config<Sample>(R"({"enabled":"yes"})");
  EXPECT_NE(boolean.status().message().find("boolean"), std::string::npos);
}

TEST(ConfigTemplate, InvalidJsonIsReported) {
  auto config = parse_config<Sample>("{not json");
  ASSERT_FALSE(config);
  EXPECT_NE(config.status().message().find("not valid JSON"), std::string::npos);
}

TEST(DidYouMean, SuggestsOnlyPlausibleTypos) {
  EXPECT_EQ(closest_match("max_token", {"max_tokens", "temperature"}), "max_tokens");
  EXPECT_EQ(closest_match("xyz", {"max_tokens", "temperature"}), "");
  EXPECT_EQ(did_you_mean("tempreature", {"temperature"}), " (did you mean 'temperature'?)");
}

TEST(Status, ResultNeverHoldsAnOkStatus) {
  Result<int> result{Status::ok()};
  EXPECT_FALSE(result);
  EXPECT_EQ(result.status().code(), StatusCode::internal);
}

}  // namespace
}  // namespace tritongym
