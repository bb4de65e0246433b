#include "slurm/serve_script.hpp"

#include <filesystem>
#include <sstream>

namespace tritongym::slurm {

namespace fs = std::filesystem;

namespace {

// Where the servers go and what each gets.
void write_placement(std::ostream& out, const ServeJobInputs& inputs) {
  if (inputs.placement == ServerPlacement::one_per_node) {
    out << "#SBATCH --nodes=" << inputs.servers << "\n#SBATCH --ntasks-per-node=1\n";
    if (inputs.gpus_per_server > 0) out << "#SBATCH --gres=gpu:" << inputs.gpus_per_server << "\n";
  } else {
    out << "#SBATCH --ntasks=" << inputs.servers << "\n";
    if (inputs.gpus_per_server > 0) out << "#SBATCH --gpus-per-task=" << inputs.gpus_per_server << "\n";
  }
  if (inputs.cpus_per_server > 0) out << "#SBATCH --cpus-per-task=" << inputs.cpus_per_server << "\n";
  if (!inputs.options.time_limit.empty() && inputs.drain_seconds_before_limit > 0)
    out << "#SBATCH --signal=TERM@" << inputs.drain_seconds_before_limit << "\n";
}

std::string describe_servers(const ServeJobInputs& inputs) {
  std::string plural = inputs.servers == 1 ? "" : "s";
  if (inputs.placement == ServerPlacement::one_per_node)
    return "one `tritongym serve` on each of the job's " + std::to_string(inputs.servers) + " node" + plural;
  return std::to_string(inputs.servers) + " `tritongym serve` task" + plural + ", placed by Slurm";
}

}  // namespace

std::string endpoints_folder(const std::string& servers_dir) { return (fs::path(servers_dir) / kEndpointsFolder).string(); }
std::string serve_logs_folder(const std::string& servers_dir) { return (fs::path(servers_dir) / "logs").string(); }

std::string serve_script(const ServeJobInputs& inputs) {
  std::ostringstream out;
  std::string endpoints = endpoints_folder(inputs.servers_dir);
  out << "#!/bin/bash\n"
      << "# TritonGym evaluation servers: " << describe_servers(inputs) << " (written by `tritongym slurm serve`\n"
      << "# at " << inputs.written_at << ").\n"
      << "# Each server writes HOST:PORT into " << endpoints << "/JOB-TASK" << kEndpointSuffix << " once it listens,\n"
      << "# and removes the file when it drains (scancel, the time limit). A run sends its evaluations there with\n"
      << "#   executor: {plugin: tritongym.executor.remote, config: {endpoints_dir: " << endpoints << ", token_file: ...}}\n"
      << "# `tritongym slurm endpoints " << inputs.servers_dir << "` lists them; `tritongym slurm serve stop "
      << inputs.servers_dir << "` stops them.\n"
      << "#SBATCH --job-name=tritongym-serve\n"
      << "#SBATCH --output=" << (fs::path(serve_logs_folder(inputs.servers_dir)) / "serve-%j.log").string() << "\n"
      << "#SBATCH --chdir=" << inputs.working_dir << "\n";
  write_placement(out, inputs);
  out << cluster_sbatch_lines(inputs.options) << extra_sbatch_lines(inputs.options);
  out << "set -euo pipefail\n"
      << "tritongym=" << command_array(inputs.tritongym) << "\n"
      << "serve_options=" << command_array(inputs.serve_options) << "\n"
      << "port=" << inputs.port << "\n"
      << "export TRITONGYM_ENDPOINTS_DIR=" << shell_quote(endpoints) << "\n"
      << "job=${SLURM_JOB_ID:?this script is a Slurm batch job: submit it with sbatch}\n"
      << "mkdir -p \"$TRITONGYM_ENDPOINTS_DIR\"\n"
      << "echo \"== evaluation servers of job $job on ${SLURM_JOB_NODELIST:-?}, $(date -u +%Y-%m-%dT%H:%M:%SZ)\"\n"
      << "# When the job ends, the endpoint files that killed servers (SIGKILL, a failed node) could not remove go too.\n"
      << "trap 'rm -f \"$TRITONGYM_ENDPOINTS_DIR/$job\"-*" << kEndpointSuffix << "' EXIT\n"
      << "# A signal for the job reaches every server through srun; this shell waits for them to drain, then exits.\n"
      << "trap 'exit 143' TERM INT\n"
      << "# One server per task, its task number (SLURM_PROCID) in its endpoint file's name; a server that stops\n"
      << "# leaves the others serving.\n"
      << "srun --kill-on-bad-exit=0 bash -c \\\n"
      << "  'exec \"$@\" --endpoint-file \"$TRITONGYM_ENDPOINTS_DIR/$SLURM_JOB_ID-$SLURM_PROCID" << kEndpointSuffix
      << "\"' \\\n"
      << "  tritongym-serve \"${tritongym[@]}\" serve --listen \"0.0.0.0:$port\" \"${serve_options[@]}\"\n";
  return out.str();
}

}  // namespace tritongym::slurm
