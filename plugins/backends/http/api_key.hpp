// API keys come from the environment or from a key file named in the config; never from the run
// file itself, never logged, never passed to workers.
#pragma once

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "tritongym/sdk/status.hpp"

namespace tritongym::http {

// `environment_variable` first, then `key_file`. Empty both: no key (local servers need none).
inline Result<std::string> load_api_key(const std::string& environment_variable, const std::string& key_file,
                                        bool required) {
  if (!environment_variable.empty())
    if (const char* value = std::getenv(environment_variable.c_str()); value && *value) return std::string(value);
  if (!key_file.empty()) {
    std::ifstream in(key_file);
    if (!in) return Status(StatusCode::invalid_config, "cannot read the API key file '" + key_file + "'", "/api_key_file");
    std::stringstream text;
    text << in.rdbuf();
    std::string key = text.str();
    while (!key.empty() && (key.back() == '\n' || key.back() == '\r' || key.back() == ' ')) key.pop_back();
    if (!key.empty()) return key;
  }
  if (required)
    return Status(StatusCode::invalid_config, "no API key: set the environment variable " + environment_variable +
                                                  " or name a key file with api_key_file",
                  "/api_key_env");
  return std::string();
}

}  // namespace tritongym::http
