#include "config/json_bridge.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include "config/yaml_loader.hpp"

namespace tritongym::config {
namespace {

TEST(JsonBridge, TypesPlainScalarsAndKeepsQuotedOnesAsStrings) {
  auto node = parse_yaml("a: 1\nb: 1.5\nc: true\nd: '7'\ne: ~\nf: [x, 2]\n", "f.yaml").value();
  boost::json::value json = to_json(node);
  EXPECT_EQ(boost::json::serialize(json), R"({"a":1,"b":1.5E0,"c":true,"d":"7","e":null,"f":["x",2]})");
}

TEST(JsonBridge, SourceMapLocatesPointersAndTheirParents) {
  auto node = parse_yaml("config:\n  replies:\n    - content: hi\n", "run.yaml").value();
  SourceMap map;
  to_json(*node.find("config"), &map);
  EXPECT_EQ(map.locate("/replies/0/content").to_string(), "run.yaml:3:7");
  // A key the plugin rejects but that is not in the map resolves to its nearest ancestor.
  EXPECT_EQ(map.locate("/replies/0/nonsense").to_string(), "run.yaml:3:7");
}

TEST(JsonBridge, PluginErrorsGetTheYamlSpot) {
  auto node = parse_yaml("config:\n  max_output_token: 5\n", "run.yaml").value();
  SourceMap map;
  to_json(*node.find("config"), &map);
  Status from_plugin(StatusCode::invalid_config, "unknown key 'max_output_token'", "/max_output_token");
  Status located = locate_config_error(from_plugin, map, "workflow 'one-shot'");
  EXPECT_EQ(located.location(), "run.yaml:2:3");
  EXPECT_NE(located.message().find("workflow 'one-shot': unknown key"), std::string::npos);
}

}  // namespace
}  // namespace tritongym::config
