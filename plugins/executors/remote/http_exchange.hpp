// One HTTP/1.1 exchange with a `tritongym serve` endpoint (Boost.Beast), bounded by a deadline and abandoned as
// soon as the caller says so (an endpoint found dead while an evaluation waits on it).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "remote_config.hpp"
#include "tritongym/sdk/status.hpp"

namespace tritongym::remote {

struct HttpCall {
  EndpointAddress endpoint;
  std::string method = "GET";  // "GET" or "POST"
  std::string target;          // "/v1/health"
  std::string body;            // JSON, sent with POST
  std::string bearer_token;    // "" sends no Authorization header
  double connect_timeout_s = 5.0;
  double timeout_s = 60.0;     // the whole exchange, connecting included
  // Polled every 50 ms while the exchange runs; true abandons it (the result is then `cancelled`).
  std::function<bool()> abandon;
};

struct HttpReply {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
};

// Where an exchange failed, for the retry rules: before the request could be sent (nothing reached the server),
// or after (the server may have started on it).
enum class ExchangeFailure { not_connected, lost, timed_out, abandoned };

struct ExchangeOutcome {
  std::optional<HttpReply> reply;  // set when a whole response came back, whatever its status
  ExchangeFailure failure = ExchangeFailure::not_connected;
  std::string error;               // what went wrong, a few words ("connection refused", "end of stream")
};

// Never throws. A response of any status is a reply; anything else is a failure with its reason.
ExchangeOutcome exchange(const HttpCall& call) noexcept;

}  // namespace tritongym::remote
