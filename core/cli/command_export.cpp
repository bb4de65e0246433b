// `tritongym export RUN_DIR EPISODE_KEY --to DIR`: a solved kernel as a standalone module with its
// test and benchmark (core/run/export_episode.hpp lists the files).
#include <filesystem>
#include <iostream>

#include "cli/arguments.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "plugins/loader.hpp"
#include "run/export_episode.hpp"

namespace tritongym::cli {

namespace po = boost::program_options;

int command_export(const CliContext& context, const Arguments& arguments) {
  po::options_description options("export options");
  options.add_options()("run", po::value<std::string>(), "the run folder")(
      "episode", po::value<std::string>(), "the episode key, TASK|MODEL|WORKFLOW|SAMPLE")(
      "to", po::value<std::string>(), "the folder to write");
  po::positional_options_description positional;
  positional.add("run", 1).add("episode", 1);
  int exit_code = kExitOk;
  std::string usage = "tritongym export RUN_DIR EPISODE_KEY --to DIR";
  auto values = parse_arguments(usage, options, positional, arguments, exit_code);
  if (!values) return exit_code;
  if (!values->count("run") || !values->count("episode") || !values->count("to")) {
    std::cerr << "error: export needs a run folder, an episode key and --to\nusage: " << usage << "\n";
    return kExitUsage;
  }
  // The worker package sits in <plugins>/python beside the built-in plugins (built and installed there).
  std::string generator;
  for (const auto& folder : plugins::plugin_search_paths(context.plugin_paths)) {
    auto candidate = std::filesystem::path(folder) / "python" / "tritongym_worker" / "inputs.py";
    if (std::filesystem::exists(candidate)) {
      generator = candidate.string();
      break;
    }
  }
  auto exported = run::export_episode((*values)["run"].as<std::string>(), (*values)["episode"].as<std::string>(),
                                      (*values)["to"].as<std::string>(), generator);
  if (!exported) {
    print_error(exported.status());
    return exported.status().code() == StatusCode::not_found ? kExitUsage : kExitFailure;
  }
  std::cout << "exported " << exported->task_id << ":\n";
  for (const auto& file : exported->files) std::cout << "  " << file << "\n";
  return kExitOk;
}

}  // namespace tritongym::cli
