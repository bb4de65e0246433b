// TritonGym SDK: what the host hands a factory when it creates a plugin object.
#pragma once

#include <string>
#include <string_view>

namespace tritongym {

enum class LogLevel { trace, debug, info, warn, error };

// The host's logger, usable from any thread. Owned by the host; valid for the whole process.
class HostLog {
 public:
  virtual ~HostLog() = default;
  virtual void write(LogLevel level, std::string_view message) noexcept = 0;
};

struct PluginContext {
  // The plugin's configuration as a JSON object text ("{}" when the run file gives none), with the
  // defaults of plugin.yaml NOT applied: the plugin's typed config struct carries its own defaults.
  std::string config_json = "{}";
  // Where that config came from ("runs/exp.yaml:14:7"), for the plugin's own log lines.
  std::string config_origin;
  // Absolute folder holding the plugin's library and plugin.yaml (for bundled data files).
  std::string plugin_dir;
  // Absolute root of the TritonGym checkout or install (tasks/, workflows/ are resolved against it).
  std::string project_root;
  // The Python that workers run (has torch and triton): TRITONGYM_PYTHON, else the project's
  // .venv, else python3 on PATH; "" when none was found. Resolved by the host, the same for all plugins.
  std::string python_executable;
  // Never null while the plugin object lives.
  HostLog* log = nullptr;
};

}  // namespace tritongym
