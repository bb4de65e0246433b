#include "anthropic_wire.hpp"

#include "json_fields.hpp"

namespace tritongym::backend_anthropic {
namespace {

using http::json_int;
using http::json_text;

// Tool inputs must be objects; a call whose arguments never parsed is replayed with its raw text.
boost::json::value tool_input(const std::string& arguments_json) {
  boost::system::error_code error;
  boost::json::value value = boost::json::parse(arguments_json.empty() ? "{}" : arguments_json, error);
  if (!error && value.is_object()) return value;
  return boost::json::object{{"unparsed_arguments", arguments_json}};
}

// Appends blocks to the last message when it has the same role (Messages wants alternating roles).
void append(boost::json::array& messages, const char* role, boost::json::array blocks) {
  if (!messages.empty() && messages.back().as_object().at("role") == role) {
    auto& content = messages.back().as_object().at("content").as_array();
    for (auto& block : blocks) content.push_back(std::move(block));
    return;
  }
  messages.push_back({{"role", role}, {"content", std::move(blocks)}});
}

}  // namespace

TokenUsage parse_usage(const boost::json::object& usage, TokenUsage base) {
  int64_t uncached = usage.contains("input_tokens") ? json_int(usage, "input_tokens") : -1;
  int64_t read = usage.contains("cache_read_input_tokens") ? json_int(usage, "cache_read_input_tokens") : -1;
  int64_t write = usage.contains("cache_creation_input_tokens") ? json_int(usage, "cache_creation_input_tokens") : -1;
  if (read >= 0) base.cached_input_tokens = read;
  if (write >= 0) base.cache_write_tokens = write;
  if (uncached >= 0) base.input_tokens = uncached + base.cached_input_tokens + base.cache_write_tokens;
  if (usage.contains("output_tokens")) base.output_tokens = json_int(usage, "output_tokens");
  return base;
}

boost::json::object request_body(const ChatRequest& request, const AnthropicConfig& config) {
  std::string system;
  boost::json::array messages;
  for (const auto& message : request.messages) {
    switch (message.role) {
      case Role::system:
        system += (system.empty() ? "" : "\n\n") + message.content;
        break;
      case Role::user:
        append(messages, "user", {boost::json::object{{"type", "text"}, {"text", message.content}}});
        break;
      case Role::tool:
        append(messages, "user",
               {boost::json::object{{"type", "tool_result"}, {"tool_use_id", message.tool_call_id},
                                    {"content", message.content}}});
        break;
      case Role::assistant: {
        boost::json::array blocks;
        if (!message.content.empty()) blocks.push_back({{"type", "text"}, {"text", message.content}});
        for (const auto& call : message.tool_calls)
          blocks.push_back({{"type", "tool_use"}, {"id", call.id}, {"name", call.name},
                            {"input", tool_input(call.arguments_json)}});
        if (!blocks.empty()) append(messages, "assistant", std::move(blocks));
        break;
      }
    }
  }
  boost::json::object body{{"model", config.model}, {"messages", std::move(messages)},
                           {"max_tokens", request.max_output_tokens.value_or(config.max_tokens)}};
  if (!system.empty()) body["system"] = system;
  if (!request.tools.empty() && request.tool_choice != "none") {
    boost::json::array tools;
    for (const auto& tool : request.tools) {
      boost::system::error_code error;
      boost::json::value schema = boost::json::parse(tool.parameters_json, error);
      tools.push_back({{"name", tool.name}, {"description", tool.description},
                       {"input_schema", error ? boost::json::value(boost::json::object{{"type", "object"}}) : schema}});
    }
    body["tools"] = std::move(tools);
    if (request.tool_choice == "required") body["tool_choice"] = {{"type", "any"}};
    else if (request.tool_choice == "auto") body["tool_choice"] = {{"type", "auto"}};
    else body["tool_choice"] = {{"type", "tool"}, {"name", request.tool_choice}};
  }
  if (auto temperature = request.temperature ? request.temperature : config.temperature) body["temperature"] = *temperature;
  if (config.stream) body["stream"] = true;
  http::merge_extra_body(body, config.extra_body.text);
  return body;
}

Result<ChatResponse> parse_response(const boost::json::value& body) {
  if (!body.is_object()) return Status(StatusCode::internal, "the response is not a JSON object");
  const auto& object = body.as_object();
  const auto* content = object.if_contains("content");
  if (!content || !content->is_array())
    return Status(StatusCode::internal, "the response has no content: " + boost::json::serialize(body).substr(0, 300));
  ChatResponse response;
  response.model = json_text(object, "model");
  response.finish_reason = json_text(object, "stop_reason");
  response.message.role = Role::assistant;
  for (const auto& entry : content->as_array()) {
    const auto& block = entry.as_object();
    std::string type = json_text(block, "type");
    if (type == "text") {
      response.message.content += json_text(block, "text");
    } else if (type == "tool_use") {
      const auto* input = block.if_contains("input");
      response.message.tool_calls.push_back(
          {json_text(block, "id"), json_text(block, "name"), input ? boost::json::serialize(*input) : "{}"});
    }
  }
  if (const auto* usage = object.if_contains("usage"); usage && usage->is_object())
    response.usage = parse_usage(usage->as_object());
  return response;
}

Status StreamAccumulator::add(const std::string& event, const std::string& data) {
  if (data.empty()) return {};
  boost::system::error_code error;
  boost::json::value value = boost::json::parse(data, error);
  if (error || !value.is_object())
    return Status(StatusCode::unavailable, "the stream sent data that is not JSON: " + data.substr(0, 200));
  const auto& object = value.as_object();
  std::string type = event.empty() ? json_text(object, "type") : event;
  if (type == "error") {
    const auto* inner = object.if_contains("error");
    std::string what = inner && inner->is_object()
                           ? json_text(inner->as_object(), "type") + ": " + json_text(inner->as_object(), "message")
                           : data.substr(0, 200);
    return Status(StatusCode::unavailable, "the server reported an error in the stream: " + what);
  }
  if (type == "message_start") {
    if (const auto* message = object.if_contains("message"); message && message->is_object()) {
      model_ = json_text(message->as_object(), "model");
      if (const auto* usage = message->as_object().if_contains("usage"); usage && usage->is_object())
        usage_ = parse_usage(usage->as_object(), usage_);
    }
  } else if (type == "content_block_start") {
    Block& block = blocks_[json_int(object, "index")];
    if (const auto* start = object.if_contains("content_block"); start && start->is_object()) {
      block.type = json_text(start->as_object(), "type");
      block.text = json_text(start->as_object(), "text");
      block.id = json_text(start->as_object(), "id");
      block.name = json_text(start->as_object(), "name");
    }
  } else if (type == "content_block_delta") {
    Block& block = blocks_[json_int(object, "index")];
    if (const auto* delta = object.if_contains("delta"); delta && delta->is_object()) {
      block.text += json_text(delta->as_object(), "text");
      block.input_json += json_text(delta->as_object(), "partial_json");
    }
  } else if (type == "message_delta") {
    if (const auto* delta = object.if_contains("delta"); delta && delta->is_object())
      if (std::string reason = json_text(delta->as_object(), "stop_reason"); !reason.empty()) stop_reason_ = reason;
    if (const auto* usage = object.if_contains("usage"); usage && usage->is_object())
      usage_ = parse_usage(usage->as_object(), usage_);
  } else if (type == "message_stop") {
    stopped_ = true;
  }
  return {};
}

ChatResponse StreamAccumulator::finish() const {
  ChatResponse response;
  response.model = model_;
  response.finish_reason = stop_reason_;
  response.usage = usage_;
  response.message.role = Role::assistant;
  for (const auto& [index, block] : blocks_) {
    if (block.type == "text") response.message.content += block.text;
    else if (block.type == "tool_use")
      response.message.tool_calls.push_back({block.id, block.name, block.input_json.empty() ? "{}" : block.input_json});
  }
  return response;
}

}  // namespace tritongym::backend_anthropic
