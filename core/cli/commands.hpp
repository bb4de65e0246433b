// One function per `tritongym` command. Each parses its own arguments and returns an exit code.
#pragma once

#include <string>
#include <vector>

namespace tritongym::cli {

struct CliContext {
  std::string project_root;               // tasks/, workflows/, examples/ live here
  std::vector<std::string> plugin_paths;  // --plugin-path, searched after the built-in folder
  std::string log_level = "info";
};

using Arguments = std::vector<std::string>;

int command_doctor(const CliContext& context, const Arguments& arguments);
int command_plugins(const CliContext& context, const Arguments& arguments);
int command_tasks(const CliContext& context, const Arguments& arguments);
int command_run(const CliContext& context, const Arguments& arguments);
int command_eval(const CliContext& context, const Arguments& arguments);
int command_resume(const CliContext& context, const Arguments& arguments);
int command_merge(const CliContext& context, const Arguments& arguments);
int command_export(const CliContext& context, const Arguments& arguments);
int command_report(const CliContext& context, const Arguments& arguments);
int command_slurm(const CliContext& context, const Arguments& arguments);
int command_serve(const CliContext& context, const Arguments& arguments);

}  // namespace tritongym::cli
