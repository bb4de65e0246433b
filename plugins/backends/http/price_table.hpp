// Prices per model, from a YAML table ($ per million tokens), shared by the API backends:
//
//   models:
//     gpt-5:           {input: 1.25, cached_input: 0.125, output: 10.0}
//     claude-sonnet-4: {input: 3.0, cache_read: 0.30, cache_write: 3.75, output: 15.0}
//
// cached_input and cache_read are the same thing under each provider's name.
#pragma once

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tritongym/sdk/did_you_mean.hpp"
#include "tritongym/sdk/status.hpp"

namespace tritongym::http {

struct ModelPrice {
  double input = 0;        // uncached input tokens
  double cache_read = 0;   // cached input tokens
  double cache_write = 0;  // tokens written to the provider's cache
  double output = 0;       // output tokens, reasoning included
};

// The price of `model` in the table at `table` (a relative path starts at `project_root`). Errors name
// the file and line, or the models it has.
inline Result<ModelPrice> load_model_price(const std::string& table, const std::string& project_root,
                                           const std::string& model) {
  std::filesystem::path resolved(table);
  if (resolved.is_relative()) resolved = std::filesystem::path(project_root) / resolved;
  const std::string path = resolved.string();
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    return Status(StatusCode::invalid_config, "cannot read the price table '" + path + "'", "/price_table");
  } catch (const YAML::Exception& error) {
    return Status(StatusCode::invalid_config, "price table " + path + ":" + std::to_string(error.mark.line + 1) + ": " + error.msg,
                  "/price_table");
  }
  YAML::Node models = root["models"];
  if (!models || !models.IsMap())
    return Status(StatusCode::invalid_config, "price table '" + path + "' has no `models:` mapping", "/price_table");
  std::vector<std::string> known;
  for (const auto& entry : models) known.push_back(entry.first.as<std::string>());
  YAML::Node prices = models[model];
  if (!prices)
    return Status(StatusCode::invalid_config, "model '" + model + "' is not in the price table " + path +
                                                  did_you_mean(model, known) + "; give its usd_per_million_* prices instead",
                  "/price_table");
  ModelPrice price;
  try {
    for (const auto& field : prices) {
      std::string name = field.first.as<std::string>();
      double value = field.second.as<double>();
      if (name == "input") price.input = value;
      else if (name == "cached_input" || name == "cache_read") price.cache_read = value;
      else if (name == "cache_write") price.cache_write = value;
      else if (name == "output") price.output = value;
      else
        return Status(StatusCode::invalid_config, "price table " + path + ":" + std::to_string(field.first.Mark().line + 1) +
                                                      ": unknown price '" + name + "'" +
                                                      did_you_mean(name, {"input", "cached_input", "cache_read",
                                                                          "cache_write", "output"}),
                      "/price_table");
    }
  } catch (const YAML::Exception& error) {
    return Status(StatusCode::invalid_config, "price table " + path + ":" + std::to_string(error.mark.line + 1) +
                                                  ": prices must be numbers",
                  "/price_table");
  }
  return price;
}

}  // namespace tritongym::http
