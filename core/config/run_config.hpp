// The run file: what to run (suites x models x workflows x samples), on what, within which budget.
// docs/configuration.md documents every key.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/config_node.hpp"
#include "config/json_bridge.hpp"
#include "config/schema.hpp"
#include "tritongym/sdk/status.hpp"
#include "tritongym/sdk/types.hpp"

namespace tritongym::config {

// A plugin chosen by id, with the config the run file gives it.
struct PluginChoice {
  std::string id;              // "tritongym.workflow.one-shot", or "auto" for the executor
  SourceLocation id_where;     // where the id was written
  std::string config_json = "{}";
  std::string config_origin;   // "exp.yaml:12:3", for log lines
  SourceMap config_sources;    // JSON pointer -> YAML spot, for the plugin's config errors
};

struct SuiteChoice {
  PluginChoice plugin;
  std::vector<std::string> task_ids;  // empty: all
  std::vector<std::string> splits;    // empty: all
  std::optional<int64_t> limit;
};

struct ModelChoice {
  std::string name;  // label in results; unique
  PluginChoice backend;
};

struct WorkflowChoice {
  std::string name;  // label in results; unique
  std::string description;
  PluginChoice plugin;
};

struct RunConfig {
  std::string name;
  std::string description;
  std::string source_file;  // the run file as given
  std::vector<SuiteChoice> suites;
  std::vector<ModelChoice> models;
  std::vector<WorkflowChoice> workflows;
  PluginChoice executor;
  // The tools every episode gets: empty means every loaded tool plugin with its defaults; otherwise
  // exactly these, each with its config (e.g. the benchmark tool's reveal_oracle).
  std::vector<PluginChoice> tools;
  Budget budget;
  int64_t samples = 1;
  int64_t max_concurrent_episodes = 4;
  std::string output_dir;              // absolute
  std::vector<std::string> plugin_paths;  // absolute
  ConfigNode resolved;                 // the merged tree with includes and workflow files inlined
};

// Loads, merges `defaults:`, applies overrides, inlines workflow files, validates and types a run file.
// Relative paths resolve against the run file's folder, then against `project_root`.
Result<RunConfig> load_run_config(const std::string& path, const std::vector<std::string>& overrides,
                                  const std::string& project_root);

// The schema of a workflow file (workflows/*.yaml): name, plugin, description, config.
const Schema& workflow_file_schema();

}  // namespace tritongym::config
