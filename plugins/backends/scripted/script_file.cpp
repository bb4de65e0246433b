#include "script_file.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "yaml_to_json.hpp"

namespace tritongym::backend_scripted {
namespace {

namespace fs = std::filesystem;

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
  plugin_common::YamlMarks marks;
  boost::json::value json = plugin_common::yaml_to_json(root, &marks);
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
