// One worker process (python -m tritongym_worker) and the JSON requests the executor sends it.
#pragma once

#include <boost/json.hpp>

#include <map>
#include <memory>
#include <string>

#include "tritongym/support/child_process.hpp"
#include "tritongym/sdk/status.hpp"

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

  // Sends one request and returns the reply object. Errors: deadline_exceeded (no reply in time),
  // unavailable (the worker died: the message says how, with its stderr tail), internal (not JSON).
  Result<boost::json::object> request(const boost::json::object& message, double timeout_s);

  const boost::json::object& hello() const { return hello_; }
  bool healthy() { return process_.running(); }
  void kill() { process_.kill_group(); }
  int64_t evaluations = 0;
  int64_t gpu = 0;  // its GPU as the reference worker numbers them, for the per-GPU timing lock
  std::string root;  // its own folder (WorkerLaunch::root)

 private:
  Worker(process::ChildProcess process, std::string stderr_path)
      : process_(std::move(process)), stderr_path_(std::move(stderr_path)) {}
  std::string stderr_tail() const;
  process::ChildProcess process_;
  std::string stderr_path_;
  boost::json::object hello_;
};

// The minimal environment of a worker: a fixed list of harmless variables from the host (PATH,
// LD_LIBRARY_PATH, CUDA_HOME, ...) plus `extra_names`, never anything else (API keys stay behind).
std::map<std::string, std::string> minimal_environment(const std::vector<std::string>& extra_names);

}  // namespace tritongym::triton_executor
