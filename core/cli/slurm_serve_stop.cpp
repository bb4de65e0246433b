// `tritongym slurm serve stop SERVERS_DIR`: scancel of the jobs `slurm serve` submitted from that folder
// (serve.json) that Slurm still holds. Each server gets SIGTERM and drains: it answers 503 to new evaluations,
// finishes those it accepted, removes its endpoint file and exits.
#include <boost/program_options.hpp>

#include <iostream>

#include "cli/arguments.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "cli/slurm_subcommands.hpp"
#include "slurm/job_states.hpp"
#include "slurm/serve_record.hpp"
#include "slurm/serve_script.hpp"
#include "slurm/slurm_commands.hpp"

namespace tritongym::cli {

namespace po = boost::program_options;

int slurm_serve_stop(const CliContext&, const Arguments& arguments) {
  std::string servers_dir;
  int exit_code = kExitOk;
  if (!parse_folder_arguments(
          "tritongym slurm serve stop DIR", "the servers' folder (slurm serve's --dir)",
          "slurm serve stop needs the servers' folder, e.g. tritongym slurm serve stop runs/servers",
          po::options_description("slurm serve stop options"), arguments, servers_dir, exit_code))
    return exit_code;
  auto record = slurm::read_serve_record(servers_dir);
  if (!record) {
    print_error(record.status());
    return record.status().code() == StatusCode::not_found ? kExitUsage : kExitFailure;
  }
  auto commands = slurm::SlurmCommands::locate(slurm::SlurmUse::cancel);
  if (!commands) {
    print_error(commands.status());
    return kExitMissingRequirement;
  }
  auto lines = commands->queue_lines(false);
  if (!lines) {
    print_error(lines.status());
    return kExitFailure;
  }
  slurm::JobStates queued;
  queued.add_queue_lines(lines.value());
  std::vector<std::string> to_cancel;
  for (const auto& id : record->job_ids()) {
    const slurm::JobState* state = queued.find({id, std::nullopt});
    if (state && slurm::is_active_state(state->state)) {
      to_cancel.push_back(id);
      std::cout << "job " << id << " (" << state->describe() << "): cancelled\n";
    } else {
      std::cout << "job " << id << ": not in Slurm's queue any more, nothing to stop\n";
    }
  }
  if (to_cancel.empty()) return kExitOk;
  if (Status status = commands->cancel(to_cancel); !status.is_ok()) {
    print_error(status);
    return kExitFailure;
  }
  std::cout << "the servers drain: they finish the evaluations they accepted, remove their endpoint files from "
            << slurm::endpoints_folder(servers_dir) << " and exit (`squeue -j " << to_cancel.front()
            << "` shows when the job has ended)\n";
  return kExitOk;
}

}  // namespace tritongym::cli
