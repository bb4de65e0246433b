#include "cli/run_session.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <iostream>

#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "cli/plugin_loading.hpp"
#include "cli/run_report.hpp"
#include "store/run_store.hpp"

namespace tritongym::cli {

int run_and_summarise(const CliContext& context, const config::RunConfig& run, run::RunOptions options) {
  plugins::Registry registry;
  load_registry(context, registry, run.plugin_paths);
  options.project_root = context.project_root;
  options.terminal = isatty(STDERR_FILENO) != 0;
  auto make_context = [&](const std::string& id, const std::string& config_json, const std::string& origin) {
    return plugin_context(context, registry, id, config_json, origin);
  };
  auto outcome = run::execute_run(run, registry, make_context, options);
  if (!outcome) {
    print_error(outcome.status());
    switch (outcome.status().code()) {
      case StatusCode::invalid_config: return kExitConfigError;
      case StatusCode::unavailable: return kExitMissingRequirement;
      case StatusCode::failed_precondition: return kExitFailure;
      default: return kExitPluginError;
    }
  }
  std::cout << "run '" << run.name << "'" << (options.shard.whole() ? "" : " shard " + options.shard.to_string())
            << ": " << outcome->recorded_total << " of " << outcome->planned << " episodes recorded, "
            << outcome->passed_total << " passed";
  if (outcome->skipped > 0) std::cout << " (" << outcome->skipped << " were already recorded)";
  std::cout << "; " << outcome->status << "\nrun folder: " << outcome->run_dir << "\n\n";
  // The leaderboard, the HTML report and the trajectories, from the store as it is now (an interrupted
  // run shows what it has).
  if (auto store = store::open_run_dir(outcome->run_dir)) {
    RunReportOptions report;
    report.html_path = outcome->run_dir + "/report.html";
    report.trajectories_path = outcome->run_dir + "/trajectories.jsonl";
    if (Status shown = print_run_report(*store, report, std::cout); !shown.is_ok()) print_error(shown);
  } else {
    print_error(store.status());
  }
  if (outcome->status != "finished") {
    std::cout << "continue it with: tritongym resume " << outcome->run_dir << "\n";
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace tritongym::cli
