// `tritongym slurm RUN.yaml ... --shards N | resume RUN_DIR | status RUN_DIR`: a run as Slurm jobs (a job
// array of shards and a merge job after it); `slurm serve ... | serve stop DIR | endpoints DIR`: evaluation
// servers as a Slurm job. All through Slurm's own commands (core/slurm).
#include <boost/dll/runtime_symbol_info.hpp>

#include <filesystem>
#include <iostream>

#include "cli/exit_codes.hpp"
#include "cli/slurm_subcommands.hpp"
#include "slurm/job_scripts.hpp"

namespace tritongym::cli {

namespace fs = std::filesystem;

std::vector<std::string> tritongym_command(const CliContext& context) {
  std::vector<std::string> command = {fs::absolute(boost::dll::program_location().string()).lexically_normal().string()};
  if (context.log_level != "info") command.insert(command.end(), {"--log-level", context.log_level});
  for (const auto& path : context.plugin_paths)
    command.insert(command.end(), {"--plugin-path", fs::absolute(path).lexically_normal().string()});
  return command;
}

void print_watch_hints(const std::string& run_dir, int64_t shard_count, const std::vector<std::string>& job_ids) {
  std::string jobs;
  for (const auto& id : job_ids) jobs += (jobs.empty() ? "" : ",") + id;
  std::cout << "watch:\n"
            << "  tritongym slurm status " << run_dir << "      (every shard's store and its Slurm job)\n";
  if (!jobs.empty())
    std::cout << "  squeue -j " << jobs << "\n"
              << "  sacct -X -j " << jobs << "      (where the cluster keeps accounting)\n";
  std::cout << "  tail -f " << slurm::logs_folder(run_dir) << "/shard-0.log\n"
            << "  tritongym report " << run_dir << "/shard-0-of-" << shard_count << "      (a shard as it runs)\n"
            << "  tritongym report " << run_dir << "/merged      (once the merge job has run)\n"
            << "a shard that failed, was cancelled or ran out of time: tritongym slurm resume " << run_dir << "\n";
}

int command_slurm(const CliContext& context, const Arguments& arguments) {
  if (!arguments.empty()) {
    Arguments rest(arguments.begin() + 1, arguments.end());
    if (arguments.front() == "resume") return slurm_resume(context, rest);
    if (arguments.front() == "status") return slurm_status(context, rest);
    if (arguments.front() == "serve") return slurm_serve(context, rest);
    if (arguments.front() == "endpoints") return slurm_endpoints(context, rest);
  }
  return slurm_submit(context, arguments);
}

}  // namespace tritongym::cli
