#include "remote_config.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <set>
#include <sstream>

namespace tritongym::remote {

namespace fs = std::filesystem;

Result<EndpointAddress> parse_endpoint(const std::string& given, const std::string& where) {
  std::string text = given;
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.pop_back();
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.erase(text.begin());
  if (text.rfind("https://", 0) == 0)
    return Status(StatusCode::invalid_config,
                  "endpoint '" + given + "': tritongym serve speaks plain HTTP; put TLS in front of it at a proxy and "
                  "give the proxy's address, or reach the server over a private network",
                  where);
  if (text.rfind("http://", 0) == 0) text = text.substr(7);
  if (!text.empty() && text.back() == '/') text.pop_back();
  auto bad = [&](const std::string& why) {
    return Status(StatusCode::invalid_config, "endpoint '" + given + "' " + why + " (expected host:port)", where);
  };
  if (text.empty()) return bad("is empty");
  EndpointAddress address;
  size_t colon;
  if (text.front() == '[') {
    size_t close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') return bad("has no port");
    address.host = text.substr(1, close - 1);
    colon = close + 1;
  } else {
    colon = text.rfind(':');
    if (colon == std::string::npos) return bad("has no port");
    address.host = text.substr(0, colon);
    if (address.host.find(':') != std::string::npos) return bad("is an IPv6 address without brackets");
  }
  address.port = text.substr(colon + 1);
  if (address.host.empty()) return bad("has no host");
  if (address.port.empty() || address.port.size() > 5 ||
      address.port.find_first_not_of("0123456789") != std::string::npos || std::stoi(address.port) < 1 ||
      std::stoi(address.port) > 65535)
    return bad("has no port from 1 to 65535");
  if (address.host.find_first_of("/ \t") != std::string::npos) return bad("has a host with a '/' or a space");
  return address;
}

Result<RemoteConfig> read_config(const PluginContext& context) {
  auto config = parse_config<RemoteConfig>(context.config_json);
  if (!config) return config.status();
  auto positive = [](double value, const char* pointer) -> Status {
    if (value > 0.0) return Status::ok();
    return Status(StatusCode::invalid_config, std::string(pointer + 1) + " must be more than 0", pointer);
  };
  for (const auto& [value, pointer] :
       {std::pair{config->timeout_seconds, "/timeout_seconds"},
        std::pair{config->connect_timeout_seconds, "/connect_timeout_seconds"},
        std::pair{config->health_interval_seconds, "/health_interval_seconds"},
        std::pair{config->retry.initial_delay_seconds, "/retry/initial_delay_seconds"},
        std::pair{config->retry.max_delay_seconds, "/retry/max_delay_seconds"}})
    if (Status status = positive(value, pointer); !status.is_ok()) return status;
  if (config->ready_timeout_seconds < 0.0)
    return Status(StatusCode::invalid_config, "ready_timeout_seconds must be 0 or more", "/ready_timeout_seconds");
  if (config->retry.max_busy_wait_seconds < 0.0)
    return Status(StatusCode::invalid_config, "max_busy_wait_seconds must be 0 or more", "/retry/max_busy_wait_seconds");
  if (config->retry.max_attempts < 1)
    return Status(StatusCode::invalid_config, "max_attempts must be at least 1", "/retry/max_attempts");
  if (config->endpoints.empty() && config->endpoints_file.empty() && config->endpoints_dir.empty())
    return Status(StatusCode::invalid_config,
                  "no endpoint: list `tritongym serve` addresses in endpoints ([host:port, ...]), or name an "
                  "endpoints_file or an endpoints_dir (the endpoints/ folder of `tritongym slurm serve`)",
                  "/endpoints");
  for (size_t i = 0; i < config->endpoints.size(); ++i)
    if (auto parsed = parse_endpoint(config->endpoints[i], "/endpoints/" + std::to_string(i)); !parsed)
      return parsed.status();
  auto resolve = [&](std::string& path) {
    if (!path.empty() && fs::path(path).is_relative()) path = (fs::path(context.project_root) / path).string();
  };
  resolve(config->endpoints_file);
  resolve(config->endpoints_dir);
  resolve(config->token_file);
  return config;
}

namespace {

// The host:port lines of one file into `add`; false when it cannot be opened.
Result<bool> read_endpoint_lines(const std::string& path, const std::function<void(const EndpointAddress&)>& add) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto parsed = parse_endpoint(line, path + ":" + std::to_string(number));
    if (!parsed) return Status(StatusCode::invalid_config, parsed.status().message() + " at " + parsed.status().location());
    add(*parsed);
  }
  return true;
}

// The `*.endpoint` files of a folder, by name; nullopt when it cannot be listed.
std::optional<std::vector<std::string>> endpoint_files(const std::string& folder) {
  std::error_code error;
  fs::directory_iterator entries(folder, error);
  if (error) return std::nullopt;
  std::vector<std::string> files;
  for (const auto& entry : entries) {
    std::string name = entry.path().filename().string();
    if (name.front() != '.' && entry.path().extension() == ".endpoint" && entry.is_regular_file(error))
      files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

Result<std::vector<EndpointAddress>> read_endpoints(const RemoteConfig& config) {
  std::vector<EndpointAddress> endpoints;
  std::set<EndpointAddress> seen;
  auto add = [&](const EndpointAddress& address) {
    if (seen.insert(address).second) endpoints.push_back(address);
  };
  for (size_t i = 0; i < config.endpoints.size(); ++i) {
    auto parsed = parse_endpoint(config.endpoints[i], "/endpoints/" + std::to_string(i));
    if (!parsed) return parsed.status();
    add(*parsed);
  }
  std::vector<std::string> unreadable;
  if (!config.endpoints_file.empty()) {
    auto read = read_endpoint_lines(config.endpoints_file, add);
    if (!read) return read.status();
    if (!*read) unreadable.push_back("the endpoints file " + config.endpoints_file);
  }
  if (!config.endpoints_dir.empty()) {
    auto files = endpoint_files(config.endpoints_dir);
    if (!files) unreadable.push_back("the endpoints folder " + config.endpoints_dir);
    // A server's file may go between the listing and the reading (it drains): that file is skipped.
    for (const auto& file : files.value_or(std::vector<std::string>{}))
      if (auto read = read_endpoint_lines(file, add); !read) return read.status();
  }
  if (endpoints.empty() && !unreadable.empty()) {
    std::string what;
    for (const auto& item : unreadable) what += (what.empty() ? "" : " nor ") + item;
    return Status(StatusCode::unavailable, "cannot read " + what);
  }
  return endpoints;
}

Result<std::string> read_token(const RemoteConfig& config) {
  if (!config.token_env.empty())
    if (const char* value = std::getenv(config.token_env.c_str()); value && *value) return std::string(value);
  if (config.token_file.empty()) return std::string();
  std::ifstream in(config.token_file);
  if (!in) return Status(StatusCode::invalid_config, "cannot read the token file " + config.token_file, "/token_file");
  std::stringstream text;
  text << in.rdbuf();
  std::string token = text.str();
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ')) token.pop_back();
  if (token.empty()) return Status(StatusCode::invalid_config, "the token file " + config.token_file + " is empty", "/token_file");
  return token;
}

}  // namespace tritongym::remote
