// Server-sent events: bytes in, events out (OpenAI and Anthropic both stream this way).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tritongym::http {

struct ServerSentEvent {
  std::string event;  // "" when the server named none ("message")
  std::string data;   // the data lines joined with '\n'
};

class SseParser {
 public:
  // Feeds bytes as they arrive; returns the events completed by them (an event ends at a blank line).
  std::vector<ServerSentEvent> feed(std::string_view bytes) {
    buffer_.append(bytes);
    std::vector<ServerSentEvent> events;
    size_t newline;
    while ((newline = buffer_.find('\n')) != std::string::npos) {
      std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty()) {
        if (!current_.data.empty() || !current_.event.empty()) events.push_back(std::move(current_));
        current_ = {};
        continue;
      }
      if (line[0] == ':') continue;  // a comment (keep-alive)
      size_t colon = line.find(':');
      std::string field = line.substr(0, colon);
      std::string value = colon == std::string::npos ? "" : line.substr(colon + 1);
      if (!value.empty() && value[0] == ' ') value.erase(0, 1);
      if (field == "event") current_.event = value;
      else if (field == "data") current_.data += (current_.data.empty() ? "" : "\n") + value;
    }
    return events;
  }

  // An event left without its closing blank line when the stream ended.
  bool has_partial_event() const { return !current_.data.empty() || !buffer_.empty(); }

 private:
  std::string buffer_;
  ServerSentEvent current_;
};

}  // namespace tritongym::http
