// A long-lived child process (a worker) that the host talks to over two private pipes: the child
// reads requests on fd 3 and writes replies on fd 4, one line each. Its stdout and stderr go to
// files. It runs in its own process group; destroying the object kills the whole group.
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tritongym/sdk/status.hpp"

namespace tritongym::process {

struct ChildOptions {
  std::vector<std::string> argv;
  std::optional<std::map<std::string, std::string>> environment;  // unset: inherit the host's
  std::string working_directory;
  std::string stdout_path = "/dev/null";  // the child's fd 1
  std::string stderr_path = "/dev/null";  // the child's fd 2
  // Descriptors of the host's the child gets too, at fds 5, 6, ... in this order (kFirstInheritedFd). The host
  // keeps its own; close it after start() if the child alone should have it.
  std::vector<int> inherited_fds;
};

class ChildProcess {
 public:
  static constexpr int kRequestFd = 3;  // the child reads requests here
  static constexpr int kReplyFd = 4;    // the child writes replies here
  static constexpr int kFirstInheritedFd = 5;  // ChildOptions::inherited_fds from here on

  // Starts the child. Error: it could not be started (the message names the program).
  static Result<ChildProcess> start(const ChildOptions& options);

  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();

  pid_t pid() const { return pid_; }

  // Writes `line` and a newline. unavailable when the child has closed its end (it died).
  Status send_line(const std::string& line);
  // Closes the child's fd 3 from this end: it reads the end of its input. Later send_line calls are unavailable.
  void close_requests();
  // The next line the child writes, without the newline. deadline_exceeded after timeout_s;
  // unavailable when the child closed its end (it died or exited).
  Result<std::string> receive_line(double timeout_s);
  // The same, but returns std::nullopt as soon as `other_fd` (a descriptor of the caller's; -1: none) can be read
  // and no whole line has come, so that one thread can wait for the child's next line and for another source.
  Result<std::optional<std::string>> receive_line_or(int other_fd, double timeout_s);

  // Whether the process is still running (reaps it if it ended).
  bool running();
  // Why it ended: "exit code 3", "killed by signal 11 (SIGSEGV)"; "" while running.
  std::string describe_end();
  // SIGKILL to the whole process group, then reap. Idempotent.
  void kill_group();

 private:
  ChildProcess() = default;
  void close_pipes();
  pid_t pid_ = -1;
  int request_fd_ = -1;  // our write end of the child's fd 3
  int reply_fd_ = -1;    // our read end of the child's fd 4
  std::string buffer_;
  std::optional<int> wait_status_;
};

}  // namespace tritongym::process
