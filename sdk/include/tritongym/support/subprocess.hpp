// The one way TritonGym starts a child process: argv (no shell), its own process group, stdout and
// stderr captured through pipes, a wall-clock limit enforced by killing the whole group.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tritongym/sdk/status.hpp"

namespace tritongym::process {

struct ProcessOptions {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH when it has no '/'
  // The child's environment. Unset: inherit the host's. Set: exactly these variables (the minimal
  // environment workers get; secrets of the host never leak through it).
  std::optional<std::map<std::string, std::string>> environment;
  std::string working_directory;  // "" keeps the host's
  std::string stdin_text;         // written to the child's stdin, then closed
  double timeout_s = 60.0;        // then the process group gets SIGKILL
  size_t max_output_bytes = 1 << 20;  // per stream; the rest is dropped and counted
};

struct ProcessResult {
  int exit_code = -1;       // valid when !signaled
  int signal = 0;           // the signal that ended it, 0 if it exited
  bool timed_out = false;
  std::string stdout_text;
  std::string stderr_text;
  size_t dropped_output_bytes = 0;
  double wall_seconds = 0.0;

  bool succeeded() const { return !timed_out && signal == 0 && exit_code == 0; }
  // "exit code 3", "killed by signal 9 (SIGKILL)", "timed out after 5.0 s"
  std::string describe_end() const;
};

// Runs to completion. A Status error means the process could not be started at all
// (e.g. the program does not exist): the message names the program.
Result<ProcessResult> run_process(const ProcessOptions& options);

// Searches PATH (or the given path list) for an executable; "" when absent.
std::string find_executable(const std::string& name);

}  // namespace tritongym::process
