// `tritongym serve --endpoint-file F`: the server's address, written into F once it listens, so that whoever
// started it where it could not watch its stdout (a Slurm job on another node) finds it. The file holds one
// comment line (the host, the process, when, and where the bearer token is, never the token) and one `HOST:PORT`
// line, the format of the remote executor's endpoints files. It is removed when the server starts to drain and,
// at the latest, when the object dies: a file there names a server that takes evaluations, or one that was killed
// before it could remove it (SIGKILL, a node that failed).
#pragma once

#include <string>

#include "tritongym/sdk/status.hpp"

namespace tritongym::serve {

class EndpointFile {
 public:
  // Writes `endpoint` ("HOST:PORT") into `path` (its folder made if missing) through a temporary file in the same
  // folder, renamed over `path`: a reader never sees half a file. `token_file` is named in the comment ("" when the
  // server has no token, or has it from the environment). unavailable, naming the path, when it cannot be written.
  static Result<EndpointFile> publish(const std::string& path, const std::string& endpoint,
                                      const std::string& token_file);

  EndpointFile(EndpointFile&& other) noexcept;
  EndpointFile& operator=(EndpointFile&&) = delete;
  EndpointFile(const EndpointFile&) = delete;
  EndpointFile& operator=(const EndpointFile&) = delete;
  ~EndpointFile() { withdraw(); }

  // Removes the file (once; later calls do nothing). Safe from any one thread at a time.
  void withdraw() noexcept;
  const std::string& path() const { return path_; }

 private:
  explicit EndpointFile(std::string path) : path_(std::move(path)) {}
  std::string path_;  // "" once withdrawn or moved from
};

// The temporary name publish() writes before renaming: in the same folder, starting with '.', so that readers
// of the folder's `*.endpoint` files never pick it up.
std::string endpoint_file_temporary(const std::string& path);

}  // namespace tritongym::serve
