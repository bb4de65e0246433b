#include "tritongym/support/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

namespace tritongym::process {
namespace {

// Closes a file descriptor when it goes out of scope.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd = -1) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() { reset(); }
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

struct Pipe {
  FileDescriptor read_end, write_end;
  bool open() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return false;
    read_end.reset(fds[0]);
    write_end.reset(fds[1]);
    return true;
  }
};

[[noreturn]] void exec_child(const ProcessOptions& options, int stdin_fd, int stdout_fd, int stderr_fd,
                             int error_fd) {
  ::setpgid(0, 0);
  ::dup2(stdin_fd, STDIN_FILENO);
  ::dup2(stdout_fd, STDOUT_FILENO);
  ::dup2(stderr_fd, STDERR_FILENO);
  signal(SIGPIPE, SIG_DFL);
  if (!options.working_directory.empty() && ::chdir(options.working_directory.c_str()) != 0) {
    int error = errno;
    (void)!::write(error_fd, &error, sizeof error);
    ::_exit(127);
  }
  std::vector<char*> argv;
  for (const auto& arg : options.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_strings;
  std::vector<char*> envp;
  if (options.environment) {
    for (const auto& [key, value] : *options.environment) env_strings.push_back(key + "=" + value);
    for (auto& entry : env_strings) envp.push_back(entry.data());
    envp.push_back(nullptr);
    // PATH lookup uses the child's PATH when one is given.
    auto path = options.environment->find("PATH");
    if (path != options.environment->end()) ::setenv("PATH", path->second.c_str(), 1);
    ::execvpe(argv[0], argv.data(), envp.data());
  } else {
    ::execvp(argv[0], argv.data());
  }
  int error = errno;
  (void)!::write(error_fd, &error, sizeof error);
  ::_exit(127);
}

}  // namespace

std::string ProcessResult::describe_end() const {
  if (timed_out) return "timed out after " + std::to_string(wall_seconds) + " s and was killed";
  if (signal != 0) {
    const char* name = sigabbrev_np(signal);
    return "killed by signal " + std::to_string(signal) + (name ? std::string(" (SIG") + name + ")" : "");
  }
  return "exit code " + std::to_string(exit_code);
}

std::string find_executable(const std::string& name) {
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  std::string list = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= list.size()) {
    size_t colon = list.find(':', start);
    if (colon == std::string::npos) colon = list.size();
    std::string candidate = list.substr(start, colon - start) + "/" + name;
    struct stat info {};
    if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    start = colon + 1;
  }
  return "";
}

Result<ProcessResult> run_process(const ProcessOptions& options) {
  if (options.argv.empty()) return Status(StatusCode::invalid_argument, "run_process: empty argv");
  Pipe in, out, err, exec_error;
  if (!in.open() || !out.open() || !err.open() || !exec_error.open())
    return Status(StatusCode::unavailable, std::string("cannot create pipes: ") + std::strerror(errno));

  auto started = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid < 0) return Status(StatusCode::unavailable, std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0)
    exec_child(options, in.read_end.get(), out.write_end.get(), err.write_end.get(), exec_error.write_end.get());
  ::setpgid(pid, pid);  // also done in the child; whichever runs first wins the race
  in.read_end.reset();
  out.write_end.reset();
  err.write_end.reset();
  exec_error.write_end.reset();

  int child_errno = 0;
  if (::read(exec_error.read_end.get(), &child_errno, sizeof child_errno) == sizeof child_errno) {
    ::waitpid(pid, nullptr, 0);
    return Status(StatusCode::unavailable, "cannot start '" + options.argv[0] + "': " + std::strerror(child_errno));
  }

  // Feed stdin without blocking on a child that does not read it.
  ::fcntl(in.write_end.get(), F_SETFL, O_NONBLOCK);
  size_t stdin_written = 0;
  if (options.stdin_text.empty()) in.write_end.reset();

  ProcessResult result;
  std::string* sinks[2] = {&result.stdout_text, &result.stderr_text};
  FileDescriptor* sources[2] = {&out.read_end, &err.read_end};
  auto deadline = started + std::chrono::duration<double>(options.timeout_s);
  char buffer[65536];
  while (out.read_end.get() >= 0 || err.read_end.get() >= 0) {
    pollfd fds[3];
    int count = 0;
    int index_of[3] = {-1, -1, -1};
    for (int i = 0; i < 2; ++i) {
      if (sources[i]->get() >= 0) {
        index_of[count] = i;
        fds[count++] = {sources[i]->get(), POLLIN, 0};
      }
    }
    if (in.write_end.get() >= 0) {
      index_of[count] = 2;
      fds[count++] = {in.write_end.get(), POLLOUT, 0};
    }
    auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (remaining.count() <= 0) {
      result.timed_out = true;
      break;
    }
    int ready = ::poll(fds, count, static_cast<int>(std::min<int64_t>(remaining.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    for (int k = 0; k < count && ready > 0; ++k) {
      if (fds[k].revents == 0) continue;
      int i = index_of[k];
      if (i == 2) {
        ssize_t n = ::write(in.write_end.get(), options.stdin_text.data() + stdin_written,
                            options.stdin_text.size() - stdin_written);
        if (n > 0) stdin_written += static_cast<size_t>(n);
        if (n < 0 && errno != EAGAIN) in.write_end.reset();
        if (stdin_written == options.stdin_text.size()) in.write_end.reset();
        continue;
      }
      ssize_t n = ::read(sources[i]->get(), buffer, sizeof buffer);
      if (n <= 0) {
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        sources[i]->reset();
        continue;
      }
      size_t room = options.max_output_bytes > sinks[i]->size() ? options.max_output_bytes - sinks[i]->size() : 0;
      size_t take = std::min(room, static_cast<size_t>(n));
      sinks[i]->append(buffer, take);
      result.dropped_output_bytes += static_cast<size_t>(n) - take;
    }
  }
  in.write_end.reset();

  int status = 0;
  if (result.timed_out) {
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  } else {
    // Output closed; the process may still be running (it closed its streams). Wait within the deadline.
    while (true) {
      pid_t done = ::waitpid(pid, &status, WNOHANG);
      if (done == pid) break;
      if (std::chrono::steady_clock::now() >= deadline) {
        result.timed_out = true;
        ::kill(-pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        break;
      }
      ::usleep(2000);
    }
  }
  // Leave nothing of the group behind (a candidate may have forked).
  ::kill(-pid, SIGKILL);
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

}  // namespace tritongym::process
