// The batch script `tritongym slurm serve` submits: `tritongym serve` started by srun on each node of the job
// (one server a node) or as a given number of tasks wherever Slurm places them, every server listening on all
// its node's addresses with a bearer token, and writing `HOST:PORT` into SERVERS_DIR/endpoints/JOB-TASK.endpoint
// once it listens (serve --endpoint-file). A server removes its file when it starts to drain; the script removes
// what a killed server left when the job ends. Plain bash with #SBATCH lines, readable and resubmittable by hand.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "slurm/job_scripts.hpp"

namespace tritongym::slurm {

inline constexpr const char* kServeScript = "serve.sbatch";
inline constexpr const char* kEndpointsFolder = "endpoints";
inline constexpr const char* kEndpointSuffix = ".endpoint";

enum class ServerPlacement {
  one_per_node,  // --nodes=N --ntasks-per-node=1: every server has a node (and its GPUs) to itself
  by_count,      // --ntasks=N: N servers, several on one node where Slurm places them so
};

struct ServeJobInputs {
  std::string servers_dir;  // absolute: the script, the record, logs/ and endpoints/ live here
  std::string working_dir;  // absolute: where the servers run (relative paths resolve as at submission)
  ServerPlacement placement = ServerPlacement::one_per_node;
  int64_t servers = 1;          // nodes (one_per_node) or tasks (by_count)
  int64_t gpus_per_server = 0;  // --gres=gpu:G per node, or --gpus-per-task=G; 0 asks for none
  int64_t cpus_per_server = 0;  // --cpus-per-task=C; 0 leaves Slurm's default
  int64_t port = 0;             // the port every server listens on; 0: each takes a free one
  // With a time limit: seconds before it at which Slurm sends SIGTERM to the servers (--signal=TERM@S), so that
  // they drain (finish what they accepted, remove their endpoint files) before the limit kills them; 0: none.
  int64_t drain_seconds_before_limit = 0;
  std::vector<std::string> tritongym;      // the executable (absolute) and the global options to pass on
  std::vector<std::string> serve_options;  // given to every `tritongym serve` as they are (--token-file F, ...)
  SlurmJobOptions options;  // partition, account, time limit and --extra-sbatch (the shard-only fields unused)
  std::string written_at;   // ISO 8601 UTC, for the header
};

std::string serve_script(const ServeJobInputs& inputs);

// SERVERS_DIR/endpoints and SERVERS_DIR/logs (the job's output: serve-JOBID.log, every server's lines in it).
std::string endpoints_folder(const std::string& servers_dir);
std::string serve_logs_folder(const std::string& servers_dir);

}  // namespace tritongym::slurm
