#include "openai_wire.hpp"

#include "chat_exchange.hpp"
#include "json_fields.hpp"

namespace tritongym::backend_openai {
namespace {

using http::json_int;
using http::json_text;

boost::json::object message_json(const ChatMessage& message) {
  boost::json::object out{{"role", role_name(message.role)}};
  switch (message.role) {
    case Role::tool:
      out["tool_call_id"] = message.tool_call_id;
      out["content"] = message.content;
      break;
    case Role::assistant: {
      out["content"] = message.content.empty() && !message.tool_calls.empty() ? boost::json::value(nullptr)
                                                                               : boost::json::value(message.content);
      if (!message.tool_calls.empty()) {
        boost::json::array calls;
        for (const auto& call : message.tool_calls)
          calls.push_back({{"id", call.id}, {"type", "function"},
                           {"function", {{"name", call.name}, {"arguments", call.arguments_json}}}});
        out["tool_calls"] = std::move(calls);
      }
      break;
    }
    default:
      out["content"] = message.content;
  }
  return out;
}

}  // namespace

TokenUsage parse_usage(const boost::json::value& value) {
  TokenUsage usage;
  if (!value.is_object()) return usage;
  const auto& object = value.as_object();
  usage.input_tokens = json_int(object, "prompt_tokens");
  usage.output_tokens = json_int(object, "completion_tokens");
  if (const auto* details = object.if_contains("prompt_tokens_details"); details && details->is_object())
    usage.cached_input_tokens = json_int(details->as_object(), "cached_tokens");
  if (const auto* details = object.if_contains("completion_tokens_details"); details && details->is_object())
    usage.reasoning_tokens = json_int(details->as_object(), "reasoning_tokens");
  return usage;
}

boost::json::object request_body(const ChatRequest& request, const OpenAiConfig& config) {
  boost::json::array messages;
  for (const auto& message : request.messages) messages.push_back(message_json(message));
  boost::json::object body{{"model", config.model}, {"messages", std::move(messages)}};
  if (!request.tools.empty()) {
    boost::json::array tools;
    for (const auto& tool : request.tools) {
      boost::system::error_code error;
      boost::json::value parameters = boost::json::parse(tool.parameters_json, error);
      tools.push_back({{"type", "function"},
                       {"function", {{"name", tool.name}, {"description", tool.description},
                                     {"parameters", error ? boost::json::value(boost::json::object()) : parameters}}}});
    }
    body["tools"] = std::move(tools);
    if (request.tool_choice == "auto" || request.tool_choice == "none" || request.tool_choice == "required")
      body["tool_choice"] = request.tool_choice;
    else
      body["tool_choice"] = {{"type", "function"}, {"function", {{"name", request.tool_choice}}}};
    body["parallel_tool_calls"] = config.parallel_tool_calls;
  }
  if (auto temperature = request.temperature ? request.temperature : config.temperature) body["temperature"] = *temperature;
  if (request.max_output_tokens) body[config.max_tokens_field] = *request.max_output_tokens;
  if (config.stream) {
    body["stream"] = true;
    body["stream_options"] = {{"include_usage", true}};
  }
  http::merge_extra_body(body, config.extra_body.text);
  return body;
}

Result<ChatResponse> parse_response(const boost::json::value& body) {
  if (!body.is_object()) return Status(StatusCode::internal, "the response is not a JSON object");
  const auto& object = body.as_object();
  const auto* choices = object.if_contains("choices");
  if (!choices || !choices->is_array() || choices->as_array().empty())
    return Status(StatusCode::internal, "the response has no choices: " + boost::json::serialize(body).substr(0, 300));
  const auto& choice = choices->as_array()[0].as_object();
  ChatResponse response;
  response.model = json_text(object, "model");
  response.finish_reason = json_text(choice, "finish_reason");
  response.message.role = Role::assistant;
  if (const auto* message = choice.if_contains("message"); message && message->is_object()) {
    response.message.content = json_text(message->as_object(), "content");
    if (const auto* calls = message->as_object().if_contains("tool_calls"); calls && calls->is_array()) {
      for (const auto& entry : calls->as_array()) {
        const auto& call = entry.as_object();
        ToolCall out;
        out.id = json_text(call, "id");
        if (const auto* function = call.if_contains("function"); function && function->is_object()) {
          out.name = json_text(function->as_object(), "name");
          out.arguments_json = json_text(function->as_object(), "arguments");  // verbatim: may be invalid JSON
        }
        response.message.tool_calls.push_back(std::move(out));
      }
    }
  }
  if (const auto* usage = object.if_contains("usage")) response.usage = parse_usage(*usage);
  return response;
}

Status StreamAccumulator::add(const std::string& data) {
  if (data == "[DONE]") {
    done_ = true;
    return {};
  }
  boost::system::error_code error;
  boost::json::value chunk = boost::json::parse(data, error);
  if (error || !chunk.is_object())
    return Status(StatusCode::unavailable, "the stream sent data that is not JSON: " + data.substr(0, 200));
  const auto& object = chunk.as_object();
  if (const auto* failure = object.if_contains("error"))
    return Status(StatusCode::unavailable, "the server reported an error in the stream: " +
                                               http::error_message_of(boost::json::serialize(boost::json::object{{"error", *failure}})));
  if (model_.empty()) model_ = json_text(object, "model");
  if (const auto* usage = object.if_contains("usage"); usage && usage->is_object()) usage_ = parse_usage(*usage);
  const auto* choices = object.if_contains("choices");
  if (!choices || !choices->is_array()) return {};
  for (const auto& entry : choices->as_array()) {
    const auto& choice = entry.as_object();
    if (std::string reason = json_text(choice, "finish_reason"); !reason.empty()) finish_reason_ = reason;
    const auto* delta = choice.if_contains("delta");
    if (!delta || !delta->is_object()) continue;
    content_ += json_text(delta->as_object(), "content");
    const auto* calls = delta->as_object().if_contains("tool_calls");
    if (!calls || !calls->is_array()) continue;
    for (const auto& fragment_value : calls->as_array()) {
      const auto& fragment = fragment_value.as_object();
      ToolCall& call = calls_[json_int(fragment, "index")];
      if (std::string id = json_text(fragment, "id"); !id.empty()) call.id = id;
      if (const auto* function = fragment.if_contains("function"); function && function->is_object()) {
        call.name += json_text(function->as_object(), "name");
        call.arguments_json += json_text(function->as_object(), "arguments");
      }
    }
  }
  return {};
}

ChatResponse StreamAccumulator::finish() const {
  ChatResponse response;
  response.model = model_;
  response.finish_reason = finish_reason_;
  response.usage = usage_;
  response.message.role = Role::assistant;
  response.message.content = content_;
  for (const auto& [index, call] : calls_) response.message.tool_calls.push_back(call);
  return response;
}

}  // namespace tritongym::backend_openai
