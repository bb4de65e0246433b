// tritongym.executor.remote: its config (plugin.yaml documents every key) and where the endpoints and the token
// come from.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tritongym/sdk/config.hpp"
#include "tritongym/sdk/context.hpp"
#include "tritongym/sdk/status.hpp"

namespace tritongym::remote {

struct RetryConfig {
  int64_t max_attempts = 6;           // failed exchanges (connection lost, timed out, 5xx) per evaluation
  double initial_delay_seconds = 0.5;  // backoff before the second try where no other endpoint is free, doubled after
  double max_delay_seconds = 30.0;     // the longest backoff, and the longest Retry-After honoured
  double max_busy_wait_seconds = 3600.0;  // how long an evaluation waits while every endpoint is busy or not ready
  static constexpr auto fields() {
    return std::make_tuple(field("max_attempts", &RetryConfig::max_attempts),
                           field("initial_delay_seconds", &RetryConfig::initial_delay_seconds),
                           field("max_delay_seconds", &RetryConfig::max_delay_seconds),
                           field("max_busy_wait_seconds", &RetryConfig::max_busy_wait_seconds));
  }
};

struct RemoteConfig {
  std::vector<std::string> endpoints;  // "host:port"
  std::string endpoints_file;          // a file of "host:port" lines, read again on every health round
  std::string endpoints_dir;           // a folder of such files (*.endpoint, one per server), likewise
  std::string token_env = "TRITONGYM_SERVE_TOKEN";
  std::string token_file;
  double timeout_seconds = 1800.0;          // one evaluation at one endpoint, its wait in the queue included
  double connect_timeout_seconds = 5.0;
  double health_interval_seconds = 2.0;     // between two /v1/health rounds
  double ready_timeout_seconds = 120.0;     // how long availability() waits for a first ready endpoint
  // Whether the servers' latencies are performance numbers; unset: when every ready endpoint runs triton-cuda.
  std::optional<bool> reports_performance;
  RetryConfig retry;
  static constexpr auto fields() {
    return std::make_tuple(field("endpoints", &RemoteConfig::endpoints),
                           field("endpoints_file", &RemoteConfig::endpoints_file),
                           field("endpoints_dir", &RemoteConfig::endpoints_dir),
                           field("token_env", &RemoteConfig::token_env), field("token_file", &RemoteConfig::token_file),
                           field("timeout_seconds", &RemoteConfig::timeout_seconds),
                           field("connect_timeout_seconds", &RemoteConfig::connect_timeout_seconds),
                           field("health_interval_seconds", &RemoteConfig::health_interval_seconds),
                           field("ready_timeout_seconds", &RemoteConfig::ready_timeout_seconds),
                           field("reports_performance", &RemoteConfig::reports_performance),
                           field("retry", &RemoteConfig::retry));
  }
};

struct EndpointAddress {
  std::string host;
  std::string port;
  std::string text() const { return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + port; }
  bool operator==(const EndpointAddress&) const = default;
  auto operator<=>(const EndpointAddress&) const = default;
};

// "host:port", "[v6]:port", or either after "http://" (a trailing '/' is dropped). `where` names the source in
// the error ("/endpoints/1", "hosts.txt:3").
Result<EndpointAddress> parse_endpoint(const std::string& text, const std::string& where);

// The config from the run file, checked: positive times, at least one endpoint, an endpoints file or an
// endpoints folder, relative paths resolved against the project root.
Result<RemoteConfig> read_config(const PluginContext& context);

// The endpoints of `config.endpoints`, then those of the endpoints file (one per line; blank lines and text after
// '#' ignored), then those of every `*.endpoint` file in the endpoints folder (same format; names starting with
// '.' skipped: a server's file being written), by file name, without repeats. A missing file or folder is an
// error only when nothing else gives an endpoint: a Slurm job may write it after the run starts.
Result<std::vector<EndpointAddress>> read_endpoints(const RemoteConfig& config);

// The bearer token: the variable `token_env` when set and not empty, else `token_file`; "" when neither (a
// loopback server needs none). Never logged.
Result<std::string> read_token(const RemoteConfig& config);

}  // namespace tritongym::remote
