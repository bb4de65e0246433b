// For plugins that read YAML files of their own (task.yaml, scripts): YAML -> Boost.JSON, optionally
// recording where each JSON pointer came from, so that config errors can name file:line:column.
// Plain scalars that read as booleans, null or numbers become those; quoted scalars stay strings.
#pragma once

#include <boost/json.hpp>
#include <yaml-cpp/yaml.h>

#include <map>
#include <string>

namespace tritongym::plugin_common {

using YamlMarks = std::map<std::string, YAML::Mark>;  // JSON pointer -> position in the YAML file

inline boost::json::value yaml_to_json(const YAML::Node& node, YamlMarks* marks = nullptr,
                                       const std::string& pointer = "") {
  if (marks) (*marks)[pointer] = node.Mark();
  switch (node.Type()) {
    case YAML::NodeType::Scalar: {
      const std::string& text = node.Scalar();
      if (node.Tag() != "!") {  // yaml-cpp tags quoted scalars "!"
        if (text == "true" || text == "false") return text == "true";
        if (text == "null" || text == "~") return nullptr;
        try {
          size_t used = 0;
          long long integer = std::stoll(text, &used);
          if (used == text.size()) return integer;
          double number = std::stod(text, &used);
          if (used == text.size()) return number;
        } catch (...) {
        }
      }
      return boost::json::string(text);
    }
    case YAML::NodeType::Sequence: {
      boost::json::array array;
      for (size_t i = 0; i < node.size(); ++i)
        array.push_back(yaml_to_json(node[i], marks, pointer + "/" + std::to_string(i)));
      return array;
    }
    case YAML::NodeType::Map: {
      boost::json::object object;
      for (const auto& pair : node) {
        std::string key = pair.first.as<std::string>();
        object[key] = yaml_to_json(pair.second, marks, pointer + "/" + key);
        if (marks) (*marks)[pointer + "/" + key] = pair.first.Mark();
      }
      return object;
    }
    default:
      return nullptr;
  }
}

}  // namespace tritongym::plugin_common
