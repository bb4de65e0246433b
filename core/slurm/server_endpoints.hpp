// The endpoint files in SERVERS_DIR/endpoints, as the servers of `tritongym slurm serve` write them
// (`tritongym serve --endpoint-file`): one file a server, named JOB-TASK.endpoint, holding a comment line (host,
// process, since when, where the bearer token is) and a `HOST:PORT` line.
#pragma once

#include <string>
#include <vector>

#include "tritongym/sdk/status.hpp"

namespace tritongym::slurm {

struct ServerEndpoint {
  std::string file;     // the file's path
  std::string address;  // HOST:PORT; "" when the file holds no address line
  std::string job;      // the Slurm job from the file's name; "" when the name is not JOB-TASK.endpoint
  std::string task;     // the task within the job (SLURM_PROCID), "" likewise
  std::string note;     // the comment, without '#': "tritongym serve on gpu01 (pid 41) since ...; bearer token in ..."
  std::string problem;  // why no address was read, "" when one was
};

// Every `*.endpoint` file of `folder` (files whose names start with '.' are a server's file being written, and
// skipped), by job and task in numeric order. A missing folder holds none; a folder that cannot be listed is
// unavailable, naming it.
Result<std::vector<ServerEndpoint>> read_server_endpoints(const std::string& folder);

}  // namespace tritongym::slurm
