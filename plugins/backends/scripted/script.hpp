// The script the scripted backend plays, as typed config (inline in the run file or a YAML file).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tritongym/sdk/config.hpp"

namespace tritongym::backend_scripted {

struct ScriptedToolCall {
  std::string id;          // default "call_<turn>_<index>"
  std::string name;
  // A mapping is sent as its JSON; a string is sent as is, so a script can play malformed JSON.
  JsonText arguments{"{}"};
  static constexpr auto fields() {
    return std::make_tuple(field("id", &ScriptedToolCall::id), field("name", &ScriptedToolCall::name),
                           field("arguments", &ScriptedToolCall::arguments));
  }
};

struct ScriptedUsage {
  std::optional<int64_t> input_tokens;
  std::optional<int64_t> cached_input_tokens;
  std::optional<int64_t> output_tokens;
  static constexpr auto fields() {
    return std::make_tuple(field("input_tokens", &ScriptedUsage::input_tokens),
                           field("cached_input_tokens", &ScriptedUsage::cached_input_tokens),
                           field("output_tokens", &ScriptedUsage::output_tokens));
  }
};

struct ScriptedReply {
  std::string content;
  std::string content_file;  // its text is appended to content as a ```python block
  std::vector<ScriptedToolCall> tool_calls;
  std::optional<ScriptedUsage> usage;  // absent: estimated as characters / 4
  std::string finish_reason;           // default: "tool_calls" when there are calls, else "stop"
  std::optional<std::string> error;    // play a failed API call: "unavailable: server overloaded"
  static constexpr auto fields() {
    return std::make_tuple(field("content", &ScriptedReply::content), field("content_file", &ScriptedReply::content_file),
                           field("tool_calls", &ScriptedReply::tool_calls), field("usage", &ScriptedReply::usage),
                           field("finish_reason", &ScriptedReply::finish_reason), field("error", &ScriptedReply::error));
  }
};

struct ScriptedConfig {
  std::string script;
  std::vector<ScriptedReply> replies;
  std::map<std::string, std::vector<ScriptedReply>> per_task;
  std::string model_name = "scripted";
  bool repeat_last = false;
  // "conversation": the reply is picked by the assistant turns already in the request (stateless;
  // a resumed episode gets the same replies). "sequence": replies are played in call order per task
  // and sample, for workflows that start a fresh conversation every turn.
  std::string order = "conversation";
  static constexpr auto fields() {
    return std::make_tuple(field("script", &ScriptedConfig::script), field("replies", &ScriptedConfig::replies),
                           field("per_task", &ScriptedConfig::per_task), field("model_name", &ScriptedConfig::model_name),
                           field("repeat_last", &ScriptedConfig::repeat_last), field("order", &ScriptedConfig::order));
  }
};

// What a script file may hold: the same keys as the inline config, minus `script`.
struct ScriptFile {
  std::vector<ScriptedReply> replies;
  std::map<std::string, std::vector<ScriptedReply>> per_task;
  static constexpr auto fields() {
    return std::make_tuple(field("replies", &ScriptFile::replies), field("per_task", &ScriptFile::per_task));
  }
};

}  // namespace tritongym::backend_scripted
