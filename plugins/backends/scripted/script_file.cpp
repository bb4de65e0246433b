#include "script_file.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace tritongym::backend_scripted {
namespace {

namespace fs = std::filesystem;

// YAML -> JSON, remembering where each JSON pointer came from.
boost::json::value to_json(const YAML::Node& node, const std::string& pointer, std::map<std::string, YAML::Mark>& marks) {
  marks[pointer] = node.Mark();
  switch (node.Type()) {
    case YAML::NodeType::Scalar: {
      const std::string& text = node.Scalar();
      if (node.Tag() != "!") {
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
      for (size_t i = 0; i < node.size(); ++i) array.push_back(to_json(node[i], pointer + "/" + std::to_string(i), marks));
      return array;
    }
    case YAML::NodeType::Map: {
      boost::json::object object;
      for (const auto& pair : node) {
        std::string key = pair.first.as<std::string>();
        object[key] = to_json(pair.second, pointer + "/" + key, marks);
        marks[pointer + "/" + key] = pair.first.Mark();
      }
      return object;
    }
    default:
      return nullptr;
  }
}

std::string where(const std::string& path, const YAML::Mark& mark) {
  return path + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

}  // namespace

Result<ScriptFile> load_script_file(const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    return Status(StatusCode::not_found, "cannot read script file '" + path + "'");
  } catch (const YAML::Exception& error) {
    return Status(StatusCode::invalid_config, "invalid YAML in script: " + error.msg, where(path, error.mark));
  }
  std::map<std::string, YAML::Mark> marks;
  boost::json::value json = to_json(root, "", marks);
  auto script = parse_config<ScriptFile>(boost::json::serialize(json));
  if (!script) {
    Status status = script.status();
    std::string pointer = status.location();
    while (!pointer.empty() && !marks.count(pointer)) pointer = pointer.substr(0, pointer.rfind('/'));
    std::string spot = marks.count(pointer) ? where(path, marks[pointer]) : path;
    return Status(StatusCode::invalid_config, "script: " + status.message() + " (key " + status.location() + ")", spot);
  }
  Status inlined = inline_content_files(script->replies, fs::path(path).parent_path().string());
  for (auto& [task, replies] : script->per_task)
    if (inlined.is_ok()) inlined = inline_content_files(replies, fs::path(path).parent_path().string());
  if (!inlined.is_ok()) return inlined;
  return script;
}

Status inline_content_files(std::vector<ScriptedReply>& replies, const std::string& base_dir) {
  for (auto& reply : replies) {
    if (reply.content_file.empty()) continue;
    fs::path file = fs::path(reply.content_file).is_absolute() ? fs::path(reply.content_file)
                                                                : fs::path(base_dir) / reply.content_file;
    std::ifstream in(file);
    if (!in) return Status(StatusCode::not_found, "content_file '" + file.string() + "' cannot be read");
    std::stringstream text;
    text << in.rdbuf();
    if (!reply.content.empty() && reply.content.back() != '\n') reply.content += "\n";
    reply.content += "```python\n" + text.str() + (text.str().empty() || text.str().back() == '\n' ? "" : "\n") + "```\n";
    reply.content_file.clear();
  }
  return {};
}

}  // namespace tritongym::backend_scripted
