#include "replay/replay_backend.hpp"

#include <boost/json.hpp>

#include <filesystem>

namespace tritongym::replay {
namespace {

boost::json::object message_json(const ChatMessage& message) {
  boost::json::array calls;
  for (const auto& call : message.tool_calls)
    calls.push_back({{"id", call.id}, {"name", call.name}, {"arguments", call.arguments_json}});
  return {{"role", role_name(message.role)}, {"content", message.content}, {"tool_calls", calls},
          {"tool_call_id", message.tool_call_id}, {"tool_name", message.tool_name}};
}

boost::json::object response_json(const ChatResponse& response) {
  const TokenUsage& usage = response.usage;
  return {{"message", message_json(response.message)},
          {"usage", {{"input_tokens", usage.input_tokens}, {"cached_input_tokens", usage.cached_input_tokens},
                     {"cache_write_tokens", usage.cache_write_tokens}, {"output_tokens", usage.output_tokens},
                     {"reasoning_tokens", usage.reasoning_tokens}}},
          {"cost_usd", response.cost_usd}, {"finish_reason", response.finish_reason}, {"model", response.model}};
}

std::string text(const boost::json::object& object, const char* key) {
  const auto* value = object.if_contains(key);
  return value && value->is_string() ? std::string(value->as_string()) : std::string();
}

int64_t integer(const boost::json::object& object, const char* key) {
  const auto* value = object.if_contains(key);
  return value && value->is_int64() ? value->as_int64() : 0;
}

ChatResponse response_from(const boost::json::object& object) {
  ChatResponse response;
  const auto& message = object.at("message").as_object();
  response.message.role = Role::assistant;
  response.message.content = text(message, "content");
  for (const auto& call : message.at("tool_calls").as_array())
    response.message.tool_calls.push_back(
        {text(call.as_object(), "id"), text(call.as_object(), "name"), text(call.as_object(), "arguments")});
  const auto& usage = object.at("usage").as_object();
  response.usage = {integer(usage, "input_tokens"), integer(usage, "cached_input_tokens"),
                    integer(usage, "cache_write_tokens"), integer(usage, "output_tokens"),
                    integer(usage, "reasoning_tokens")};
  const auto& cost = object.at("cost_usd");
  response.cost_usd = cost.is_double() ? cost.as_double() : static_cast<double>(cost.to_number<double>());
  response.finish_reason = text(object, "finish_reason");
  response.model = text(object, "model");
  return response;
}

}  // namespace

Result<ReplayMode> parse_mode(const std::string& name) {
  if (name == "record") return ReplayMode::record;
  if (name == "replay") return ReplayMode::replay;
  if (name == "auto") return ReplayMode::automatic;
  return Status(StatusCode::invalid_config, "replay mode '" + name + "' must be record, replay or auto");
}

std::string canonical_request(const ChatRequest& request) {
  boost::json::array messages;
  for (const auto& message : request.messages) messages.push_back(message_json(message));
  boost::json::array tools;
  for (const auto& tool : request.tools)
    tools.push_back({{"name", tool.name}, {"description", tool.description}, {"parameters", tool.parameters_json}});
  boost::json::object key{{"task", request.task_id}, {"sample", request.sample_index}, {"messages", messages},
                          {"tools", tools}, {"tool_choice", request.tool_choice}};
  if (request.temperature) key["temperature"] = *request.temperature;
  if (request.max_output_tokens) key["max_output_tokens"] = *request.max_output_tokens;
  return boost::json::serialize(key);  // insertion order is fixed above: canonical
}

Result<std::unique_ptr<ReplayBackend>> ReplayBackend::open(const std::string& path, ReplayMode mode,
                                                          std::unique_ptr<ModelBackend> inner, std::string model_name) {
  if (!inner && mode != ReplayMode::replay)
    return Status(StatusCode::invalid_argument, "record and auto modes need a backend to send new calls to");
  std::unique_ptr<ReplayBackend> backend(new ReplayBackend);
  backend->path_ = path;
  backend->mode_ = mode;
  backend->inner_ = std::move(inner);
  backend->model_name_ = std::move(model_name);
  std::ifstream in(path);
  if (!in && mode == ReplayMode::replay)
    return Status(StatusCode::not_found, "replay record '" + path + "' cannot be read");
  std::string line;
  size_t number = 0;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  bool ends_with_newline = true;
  if (in.eof() && !lines.empty()) {
    std::ifstream tail(path, std::ios::binary | std::ios::ate);
    tail.seekg(-1, std::ios::end);
    char last = 0;
    tail.get(last);
    ends_with_newline = last == '\n';
  }
  size_t torn_offset = 0;  // where a torn last line starts, to cut it off before appending
  bool torn = false;
  size_t offset = 0;
  for (const auto& entry : lines) {
    ++number;
    size_t entry_offset = offset;
    offset += entry.size() + 1;
    if (entry.empty()) continue;
    boost::system::error_code error;
    boost::json::value value = boost::json::parse(entry, error);
    bool torn_tail = number == lines.size() && !ends_with_newline;
    if (error || !value.is_object() || !value.as_object().contains("request") || !value.as_object().contains("response")) {
      if (torn_tail) {  // a crash mid-write: that call is simply made again
        torn = true;
        torn_offset = entry_offset;
        break;
      }
      return Status(StatusCode::invalid_config, "replay record line " + std::to_string(number) + " is not a record entry",
                    path + ":" + std::to_string(number));
    }
    try {
      backend->record_[std::string(value.as_object().at("request").as_string())] =
          response_from(value.as_object().at("response").as_object());
    } catch (const std::exception& what) {
      if (torn_tail) {
        torn = true;
        torn_offset = entry_offset;
        break;
      }
      return Status(StatusCode::invalid_config, "replay record line " + std::to_string(number) + ": " + what.what(),
                    path + ":" + std::to_string(number));
    }
  }
  if (mode != ReplayMode::replay) {
    in.close();
    std::error_code cut_error;
    if (torn) std::filesystem::resize_file(path, torn_offset, cut_error);  // drop the torn entry
    backend->appender_.open(path, std::ios::app);
    if (!backend->appender_ || cut_error)
      return Status(StatusCode::unavailable, "cannot append to replay record '" + path + "'");
    if (!torn && !ends_with_newline) backend->appender_ << "\n";
  }
  return backend;
}

Result<ChatResponse> ReplayBackend::chat(const ChatRequest& request) noexcept {
  try {
    std::string key = canonical_request(request);
    {
      std::lock_guard lock(mutex_);
      // A backend that is not replayable answers afresh in auto mode (its answer may have changed).
      if (mode_ == ReplayMode::replay || (mode_ == ReplayMode::automatic && inner_->replayable())) {
        auto found = record_.find(key);
        if (found != record_.end()) {
          ++from_record_;
          return found->second;
        }
        if (mode_ == ReplayMode::replay) {
          size_t turn = 1;
          for (const auto& message : request.messages) turn += message.role == Role::assistant ? 1 : 0;
          return Status(StatusCode::not_found, "the replay record " + path_ + " has no answer for task '" +
                                                   request.task_id + "', sample " + std::to_string(request.sample_index) +
                                                   ", turn " + std::to_string(turn) + " (the conversation differs)");
        }
      }
    }
    auto response = inner_->chat(request);  // outside the lock: calls run concurrently
    if (!response) return response;
    std::lock_guard lock(mutex_);
    ++sent_;
    record_[key] = response.value();
    appender_ << boost::json::serialize(boost::json::object{{"request", key}, {"response", response_json(*response)}})
              << "\n";
    appender_.flush();  // a finished call is on disk before the workflow sees it
    return response;
  } catch (const std::exception& error) {
    return Status(StatusCode::internal, std::string("replay: ") + error.what());
  }
}

size_t ReplayBackend::recorded_calls() const {
  std::lock_guard lock(mutex_);
  return record_.size();
}

size_t ReplayBackend::answers_from_record() const {
  std::lock_guard lock(mutex_);
  return from_record_;
}

size_t ReplayBackend::calls_sent() const {
  std::lock_guard lock(mutex_);
  return sent_;
}

}  // namespace tritongym::replay
