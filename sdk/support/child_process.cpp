#include "tritongym/support/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pthread.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace tritongym::process {
namespace {

std::string errno_text() { return std::strerror(errno); }

[[noreturn]] void exec_child(const ChildOptions& options, int request_read, int reply_write, int error_write) {
  ::setpgid(0, 0);
  // Move the protocol ends to fds 3 and 4 and the inherited ones to 5, 6, ... (dup2 clears close-on-exec on the new
  // descriptors); all are first moved out of the way, so that none is overwritten before it is moved.
  int request = ::fcntl(request_read, F_DUPFD_CLOEXEC, 10);
  int reply = ::fcntl(reply_write, F_DUPFD_CLOEXEC, 10);
  std::vector<int> inherited;
  for (int fd : options.inherited_fds) inherited.push_back(::fcntl(fd, F_DUPFD_CLOEXEC, 10));
  ::dup2(request, ChildProcess::kRequestFd);
  ::dup2(reply, ChildProcess::kReplyFd);
  for (size_t i = 0; i < inherited.size(); ++i)
    ::dup2(inherited[i], ChildProcess::kFirstInheritedFd + static_cast<int>(i));
  int null_in = ::open("/dev/null", O_RDONLY);
  ::dup2(null_in, STDIN_FILENO);
  int out = ::open(options.stdout_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
  int err = ::open(options.stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
  if (out >= 0) ::dup2(out, STDOUT_FILENO);
  if (err >= 0) ::dup2(err, STDERR_FILENO);
  signal(SIGPIPE, SIG_DFL);
  if (!options.working_directory.empty() && ::chdir(options.working_directory.c_str()) != 0) {
    int error = errno;
    (void)!::write(error_write, &error, sizeof error);
    ::_exit(127);
  }
  std::vector<char*> argv;
  for (const auto& arg : options.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  if (options.environment) {
    std::vector<std::string> entries;
    for (const auto& [key, value] : *options.environment) entries.push_back(key + "=" + value);
    std::vector<char*> envp;
    for (auto& entry : entries) envp.push_back(entry.data());
    envp.push_back(nullptr);
    ::execve(argv[0], argv.data(), envp.data());
  } else {
    ::execv(argv[0], argv.data());
  }
  int error = errno;
  (void)!::write(error_write, &error, sizeof error);
  ::_exit(127);
}

}  // namespace

Result<ChildProcess> ChildProcess::start(const ChildOptions& options) {
  if (options.argv.empty() || options.argv[0].find('/') == std::string::npos)
    return Status(StatusCode::invalid_argument, "a worker program must be given by path, got '" +
                                                    (options.argv.empty() ? std::string() : options.argv[0]) + "'");
  int request[2], reply[2], exec_error[2];
  if (::pipe2(request, O_CLOEXEC) != 0 || ::pipe2(reply, O_CLOEXEC) != 0 || ::pipe2(exec_error, O_CLOEXEC) != 0)
    return Status(StatusCode::unavailable, "cannot create pipes: " + errno_text());
  pid_t pid = ::fork();
  if (pid < 0) return Status(StatusCode::unavailable, "fork failed: " + errno_text());
  if (pid == 0) exec_child(options, request[0], reply[1], exec_error[1]);
  ::setpgid(pid, pid);
  ::close(request[0]);
  ::close(reply[1]);
  ::close(exec_error[1]);
  int child_errno = 0;
  ssize_t got = ::read(exec_error[0], &child_errno, sizeof child_errno);
  ::close(exec_error[0]);
  if (got == sizeof child_errno) {
    ::close(request[1]);
    ::close(reply[0]);
    ::waitpid(pid, nullptr, 0);
    return Status(StatusCode::unavailable, "cannot start '" + options.argv[0] + "': " + std::strerror(child_errno));
  }
  ChildProcess child;
  child.pid_ = pid;
  child.request_fd_ = request[1];
  child.reply_fd_ = reply[0];
  return child;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept { *this = std::move(other); }

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    kill_group();
    pid_ = std::exchange(other.pid_, -1);
    request_fd_ = std::exchange(other.request_fd_, -1);
    reply_fd_ = std::exchange(other.reply_fd_, -1);
    buffer_ = std::move(other.buffer_);
    wait_status_ = std::exchange(other.wait_status_, std::nullopt);
  }
  return *this;
}

ChildProcess::~ChildProcess() { kill_group(); }

void ChildProcess::close_pipes() {
  if (request_fd_ >= 0) ::close(request_fd_);
  if (reply_fd_ >= 0) ::close(reply_fd_);
  request_fd_ = reply_fd_ = -1;
}

void ChildProcess::close_requests() {
  if (request_fd_ >= 0) ::close(request_fd_);
  request_fd_ = -1;
}

Status ChildProcess::send_line(const std::string& line) {
  if (request_fd_ < 0) return Status(StatusCode::unavailable, "the worker's request pipe is closed");
  std::string data = line + "\n";
  // A dead child turns the write into SIGPIPE; block it on this thread and swallow it, so that a
  // crashed worker is an error value and never kills the host.
  sigset_t pipe_signal, previous;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  ::pthread_sigmask(SIG_BLOCK, &pipe_signal, &previous);
  Status status;
  size_t written = 0;
  while (written < data.size()) {
    ssize_t n = ::write(request_fd_, data.data() + written, data.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      status = Status(StatusCode::unavailable, "the worker stopped reading requests: " + errno_text());
      if (errno == EPIPE) {
        timespec no_wait{};
        ::sigtimedwait(&pipe_signal, nullptr, &no_wait);
      }
      break;
    }
    written += static_cast<size_t>(n);
  }
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return status;
}

Result<std::string> ChildProcess::receive_line(double timeout_s) {
  auto line = receive_line_or(-1, timeout_s);
  if (!line) return line.status();
  return std::move(**line);  // without another source, only a line returns
}

Result<std::optional<std::string>> ChildProcess::receive_line_or(int other_fd, double timeout_s) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  char chunk[65536];
  while (true) {
    size_t newline = buffer_.find('\n');
    if (newline != std::string::npos) {
      std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      return std::optional<std::string>(std::move(line));
    }
    if (reply_fd_ < 0) return Status(StatusCode::unavailable, "the worker's reply pipe is closed");
    auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (remaining.count() <= 0)
      return Status(StatusCode::deadline_exceeded, "no reply from the worker within " + std::to_string(timeout_s) + " s");
    pollfd fds[2] = {{reply_fd_, POLLIN, 0}, {other_fd, POLLIN, 0}};
    int ready = ::poll(fds, other_fd >= 0 ? 2 : 1, static_cast<int>(std::min<int64_t>(remaining.count(), 1000)));
    if (ready < 0 && errno != EINTR) return Status(StatusCode::unavailable, "poll failed: " + errno_text());
    if (ready <= 0) continue;
    if (other_fd >= 0 && fds[1].revents != 0 && fds[0].revents == 0) return std::optional<std::string>();
    if (fds[0].revents == 0) continue;
    ssize_t n = ::read(reply_fd_, chunk, sizeof chunk);
    if (n > 0) {
      buffer_.append(chunk, static_cast<size_t>(n));
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
      ::close(reply_fd_);
      reply_fd_ = -1;
      return Status(StatusCode::unavailable, "the worker closed its reply pipe (it exited or crashed)");
    }
  }
}

bool ChildProcess::running() {
  if (pid_ < 0 || wait_status_) return false;
  int status = 0;
  pid_t done = ::waitpid(pid_, &status, WNOHANG);
  if (done == pid_) {
    wait_status_ = status;
    return false;
  }
  return done == 0;
}

std::string ChildProcess::describe_end() {
  if (running() || !wait_status_) return "";
  int status = *wait_status_;
  if (WIFSIGNALED(status)) {
    const char* name = sigabbrev_np(WTERMSIG(status));
    return "killed by signal " + std::to_string(WTERMSIG(status)) + (name ? std::string(" (SIG") + name + ")" : "");
  }
  return "exit code " + std::to_string(WEXITSTATUS(status));
}

void ChildProcess::kill_group() {
  close_pipes();
  if (pid_ < 0) return;
  ::kill(-pid_, SIGKILL);
  if (!wait_status_) {
    int status = 0;
    if (::waitpid(pid_, &status, 0) == pid_) wait_status_ = status;
  }
  pid_ = -1;
}

}  // namespace tritongym::process
