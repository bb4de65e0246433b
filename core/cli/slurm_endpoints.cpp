// `tritongym slurm endpoints SERVERS_DIR [--json]`: the servers of `tritongym slurm serve` that listen now, from
// their endpoint files, each checked against squeue (a file whose job Slurm no longer runs is left by a server
// that was killed). Plain output is one HOST:PORT a line on stdout, an endpoints file for executor.remote; what
// each line is, and what was left out, goes to stderr.
#include <boost/json.hpp>
#include <boost/program_options.hpp>

#include <filesystem>
#include <iostream>

#include "cli/arguments.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "cli/slurm_subcommands.hpp"
#include "slurm/job_states.hpp"
#include "slurm/serve_script.hpp"
#include "slurm/server_endpoints.hpp"
#include "slurm/slurm_commands.hpp"

namespace tritongym::cli {

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

// Whether the server of an endpoint file still runs, as far as Slurm says.
struct Liveness {
  bool live = true;
  std::string state;  // Slurm's state of its job; "" where not asked
};

Liveness liveness(const slurm::ServerEndpoint& endpoint, const std::optional<slurm::JobStates>& queued) {
  if (!queued || endpoint.job.empty()) return {};
  const slurm::JobState* state = queued->find({endpoint.job, std::nullopt});
  if (!state) return {false, "not in Slurm's queue"};
  return {slurm::is_active_state(state->state), state->describe()};
}

void print_json(const std::vector<slurm::ServerEndpoint>& endpoints, const std::vector<Liveness>& states,
                bool slurm_asked) {
  boost::json::array items;
  for (size_t i = 0; i < endpoints.size(); ++i) {
    const auto& endpoint = endpoints[i];
    items.push_back({{"file", endpoint.file}, {"address", endpoint.address}, {"job", endpoint.job},
                     {"task", endpoint.task}, {"note", endpoint.note}, {"problem", endpoint.problem},
                     {"slurm_state", states[i].state}, {"live", states[i].live && endpoint.problem.empty()}});
  }
  std::cout << boost::json::serialize(boost::json::object{{"endpoints", items}, {"slurm_asked", slurm_asked}}) << "\n";
}

}  // namespace

int slurm_endpoints(const CliContext&, const Arguments& arguments) {
  po::options_description options("slurm endpoints options");
  options.add_options()("json", "every endpoint file as JSON, the left-out ones too");
  std::string servers_dir;
  int exit_code = kExitOk;
  auto values = parse_folder_arguments(
      "tritongym slurm endpoints DIR [--json]", "the servers' folder (slurm serve's --dir)",
      "slurm endpoints needs the servers' folder, e.g. tritongym slurm endpoints runs/servers", options, arguments,
      servers_dir, exit_code);
  if (!values) return exit_code;
  if (!fs::is_directory(servers_dir)) {
    std::cerr << "error: " << servers_dir << " is not a folder; give the --dir of `tritongym slurm serve`\n";
    return kExitUsage;
  }
  auto endpoints = slurm::read_server_endpoints(slurm::endpoints_folder(servers_dir));
  if (!endpoints) {
    print_error(endpoints.status());
    return kExitFailure;
  }
  // Without squeue the files are listed as they are: a server that was killed may still have one.
  std::optional<slurm::JobStates> queued;
  if (auto commands = slurm::SlurmCommands::locate(slurm::SlurmUse::watch); !commands) {
    std::cerr << "note: squeue is not on PATH: the endpoint files are listed without asking Slurm whether their "
                 "jobs still run\n";
  } else if (auto lines = commands->queue_lines(false); !lines) {
    std::cerr << "note: " << lines.status().message() << "; the endpoint files are listed as they are\n";
  } else {
    queued.emplace();
    queued->add_queue_lines(lines.value());
  }
  std::vector<Liveness> states;
  for (const auto& endpoint : endpoints.value()) states.push_back(liveness(endpoint, queued));
  if (values->count("json")) {
    print_json(endpoints.value(), states, queued.has_value());
    return kExitOk;
  }
  int64_t listed = 0;
  for (size_t i = 0; i < endpoints->size(); ++i) {
    const auto& endpoint = (*endpoints)[i];
    std::string state = states[i].state.empty() ? "" : ", job " + states[i].state;
    if (!endpoint.problem.empty()) {
      std::cerr << "left out: " << endpoint.file << " " << endpoint.problem << "\n";
    } else if (!states[i].live) {
      std::cerr << "left out: " << endpoint.address << " (" << endpoint.file << state
                << "): a server that was killed before it could remove its file\n";
    } else {
      std::cout << endpoint.address << "\n";
      std::cerr << endpoint.address << ": " << endpoint.file << state << "; " << endpoint.note << "\n";
      ++listed;
    }
  }
  if (listed == 0)
    std::cerr << "no server listens yet in " << slurm::endpoints_folder(servers_dir)
              << " (one writes its file once it listens; `squeue` shows whether the job runs)\n";
  return listed > 0 ? kExitOk : kExitFailure;
}

}  // namespace tritongym::cli
