// `tritongym run FILE [key.sub=value ...] [--check] [--shard I/N]`: resolve and check a run file, create
// every plugin it names (so a typo in any plugin's config is reported before anything runs), write the
// resolved config into the run folder, then run every episode (core/run) into the run's store.
#include <boost/json.hpp>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/arguments.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "cli/plugin_loading.hpp"
#include "cli/run_checks.hpp"
#include "config/overrides.hpp"
#include "config/run_config.hpp"
#include "log/logging.hpp"
#include "cli/run_session.hpp"
#include "run/episode_plan.hpp"

namespace tritongym::cli {

namespace po = boost::program_options;
namespace fs = std::filesystem;

int command_run(const CliContext& context, const Arguments& arguments) {
  po::options_description options("run options");
  options.add_options()("file", po::value<std::string>(), "the run file (YAML)")(
      "override", po::value<std::vector<std::string>>(), "key.sub=value, applied after the file")(
      "check", "only check the run file and its plugins; print the resolved config")(
      "shard", po::value<std::string>(), "I/N: run only episodes i with i % N == I (I from 0), into <output.dir>/shard-I-of-N");
  po::positional_options_description positional;
  positional.add("file", 1).add("override", -1);
  int exit_code = kExitOk;
  auto values = parse_arguments("tritongym run FILE [key.sub=value ...] [--check] [--shard I/N]", options, positional, arguments,
                                exit_code);
  if (!values) return exit_code;
  if (!values->count("file")) {
    std::cerr << "error: run needs a run file, e.g. tritongym run examples/quickstart.yaml\n";
    return kExitUsage;
  }
  std::vector<std::string> overrides;
  if (values->count("override")) overrides = (*values)["override"].as<std::vector<std::string>>();
  for (const auto& assignment : overrides) {
    if (!config::is_override(assignment)) {
      std::cerr << "error: '" << assignment << "' is not an override; write key.sub=value\n";
      return kExitUsage;
    }
  }

  run::Shard shard;
  if (values->count("shard")) {
    auto parsed = run::parse_shard((*values)["shard"].as<std::string>());
    if (!parsed) {
      print_error(parsed.status());
      return kExitUsage;
    }
    shard = parsed.value();
  }

  auto run = config::load_run_config((*values)["file"].as<std::string>(), overrides, context.project_root);
  if (!run) {
    print_error(run.status());
    return run.status().code() == StatusCode::not_found ? kExitUsage : kExitConfigError;
  }
  plugins::Registry registry;
  load_registry(context, registry, run->plugin_paths);
  size_t task_count = 0;
  if (Status status = check_run_plugins(context, registry, *run, task_count); !status.is_ok()) {
    print_error(status);
    return status.code() == StatusCode::invalid_config ? kExitConfigError : kExitPluginError;
  }
  size_t episodes = task_count * run->models.size() * run->workflows.size() * static_cast<size_t>(run->samples);
  spdlog::info("run '{}': {} tasks x {} models x {} workflows x {} samples = {} episodes", run->name, task_count,
               run->models.size(), run->workflows.size(), run->samples, episodes);

  if (values->count("check")) {
    std::cout << config::to_yaml(run->resolved);
    return kExitOk;
  }

  std::string run_dir = run->output_dir;
  if (!shard.whole())
    run_dir = (fs::path(run_dir) / run::shard_folder_name(shard)).string();
  std::error_code error;
  fs::create_directories(run_dir, error);
  if (error) {
    print_error(Status(StatusCode::unavailable, "cannot create run folder " + run_dir + ": " + error.message()));
    return kExitFailure;
  }
  if (fs::exists(fs::path(run_dir) / "run.sqlite")) {
    print_error(Status(StatusCode::failed_precondition,
                       "the run folder " + run_dir + " already holds a run; continue it with `tritongym resume " +
                           run_dir + "`, or set output.dir=<another folder>"));
    return kExitFailure;
  }
  log::add_file_sink((fs::path(run_dir) / "tritongym.log").string());
  std::string resolved_path = (fs::path(run_dir) / "resolved-config.yaml").string();
  std::ofstream(resolved_path) << "# resolved from " << run->source_file << "\n" << config::to_yaml(run->resolved);
  spdlog::info("resolved config written to {}", resolved_path);
  run::RunOptions run_options;
  run_options.run_dir = run_dir;
  run_options.shard = shard;
  return run_and_summarise(context, *run, run_options);
}

}  // namespace tritongym::cli
