// One worker process (python -m tritongym_worker) and the JSON requests the executor sends it.
#pragma once

#include <boost/json.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "tritongym/support/child_process.hpp"
#include "tritongym/sdk/status.hpp"
#include "turn_channel.hpp"

namespace tritongym::triton_executor {

struct WorkerLaunch {
  std::string python;                          // absolute path of the interpreter
  std::string role;                            // "reference" or "candidate"
  std::string device;                          // "cpu" or "cuda"
  std::string root;                            // the worker's own folder (created)
  std::string triton_cache;                    // TRITON_CACHE_DIR
  int64_t memory_limit_bytes = 0;              // candidate children on the interpreter
  std::map<std::string, std::string> environment;  // the complete, minimal environment
  double start_timeout_s = 300;
  int64_t gpu = 0;  // a candidate's GPU as the reference worker numbers them (becomes Worker::gpu)
};

class Worker {
 public:
  // Starts the worker and waits for its hello. Error: why it could not start, with its stderr tail.
  static Result<std::unique_ptr<Worker>> start(const WorkerLaunch& launch);

  // Sends one request and returns the reply object, both checked against the worker protocol's schema
  // (worker_protocol.hpp). Errors: deadline_exceeded (no reply in time), unavailable (the worker died: the message
  // says how, with its stderr tail), internal (not JSON, or a request or reply the schema refuses, named).
  Result<boost::json::object> request(const boost::json::object& message, double timeout_s);

  // Sends one request without waiting for its reply (checked as request() checks it).
  Status send(const boost::json::object& message);
  // The reply to the last request of `op` sent, checked; or std::nullopt as soon as `other_fd` can be read first
  // (ChildProcess::receive_line_or). Errors as request()'s.
  Result<std::optional<boost::json::object>> receive(std::string_view op, int other_fd, double timeout_s);

  const boost::json::object& hello() const { return hello_; }
  // A candidate worker's turn socket (turn_channel.hpp, child_turns.hpp); null for a reference worker.
  TurnChannel* turns() { return turns_ ? &*turns_ : nullptr; }
  pid_t pid() const { return process_.pid(); }
  bool healthy() { return process_.running(); }
  void kill() { process_.kill_group(); }
  int64_t evaluations = 0;
  int64_t gpu = 0;  // its GPU as the reference worker numbers them, for the per-GPU timing lock
  std::string root;  // its own folder (WorkerLaunch::root)

 private:
  Worker(process::ChildProcess process, std::string stderr_path)
      : process_(std::move(process)), stderr_path_(std::move(stderr_path)) {}
  std::string stderr_tail() const;
  // Kills what is left of the worker; unavailable, saying how it ended, with its stderr tail.
  Status died();
  process::ChildProcess process_;
  std::optional<TurnChannel> turns_;
  std::string stderr_path_;
  boost::json::object hello_;
};

// The minimal environment of a worker: a fixed list of harmless variables from the host (PATH,
// LD_LIBRARY_PATH, CUDA_HOME, ...) plus `extra_names`, never anything else (API keys stay behind).
std::map<std::string, std::string> minimal_environment(const std::vector<std::string>& extra_names);

}  // namespace tritongym::triton_executor
