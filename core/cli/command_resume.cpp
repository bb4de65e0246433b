// `tritongym resume DIR`: continue a run that stopped (Ctrl-C, a kill, a crash) from its folder: the
// run is reloaded from the store's resolved config, finished episodes are skipped, the rest run.
#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/arguments.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "cli/run_session.hpp"
#include "config/run_config.hpp"
#include "log/logging.hpp"
#include "run/episode_plan.hpp"
#include "store/run_store.hpp"

namespace tritongym::cli {

namespace po = boost::program_options;
namespace fs = std::filesystem;

int command_resume(const CliContext& context, const Arguments& arguments) {
  std::string run_dir;
  int exit_code = kExitOk;
  if (!parse_folder_arguments("tritongym resume DIR", "the run folder (what `tritongym run` wrote)",
                              "resume needs the run folder, e.g. tritongym resume runs/quickstart",
                              po::options_description("resume options"), arguments, run_dir, exit_code))
    return exit_code;
  std::string resolved_yaml, shard_text;
  {
    auto store = store::open_run_dir(run_dir);
    if (!store) {
      print_error(store.status());
      return kExitUsage;
    }
    auto info = store->load_run();
    if (!info) {
      print_error(info.status());
      return kExitUsage;
    }
    shard_text = store->meta("shard").value_or("0/1");
    if (shard_text == "merged") {
      print_error(Status(StatusCode::failed_precondition,
                         run_dir + " holds a merged store; resume each shard's folder, then merge again"));
      return kExitFailure;
    }
    resolved_yaml = info->resolved_config_yaml;
  }
  auto shard = run::parse_shard(shard_text);
  if (!shard) {
    print_error(Status(StatusCode::failed_precondition, run_dir + ": the store names an unreadable shard '" + shard_text + "'"));
    return kExitFailure;
  }
  // The store's copy of the resolved config is the run's definition; the file beside it is for people.
  std::string resolved_path = (fs::path(run_dir) / "resolved-config.yaml").string();
  {
    std::ifstream in(resolved_path);
    std::stringstream existing;
    existing << in.rdbuf();
    if (existing.str().find(resolved_yaml) == std::string::npos)
      std::ofstream(resolved_path) << "# resolved config of the run, as its store holds it\n" << resolved_yaml;
  }
  auto run = config::load_run_config(resolved_path, {}, context.project_root);
  if (!run) {
    print_error(run.status());
    return kExitConfigError;
  }
  run->output_dir = run_dir;
  log::add_file_sink((fs::path(run_dir) / "tritongym.log").string());
  spdlog::info("resuming run '{}' in {}", run->name, run_dir);
  run::RunOptions run_options;
  run_options.run_dir = run_dir;
  run_options.shard = shard.value();
  run_options.resume = true;
  return run_and_summarise(context, *run, run_options);
}

}  // namespace tritongym::cli
