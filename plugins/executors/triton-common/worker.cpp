#include "worker.hpp"

#include "worker_protocol.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tritongym::triton_executor {

namespace fs = std::filesystem;

std::map<std::string, std::string> minimal_environment(const std::vector<std::string>& extra_names) {
  static const char* kHarmless[] = {"PATH", "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "LANG", "LC_ALL",
                                    "TRITON_PTXAS_PATH", "TRITON_LIBCUDA_PATH", "NVIDIA_VISIBLE_DEVICES"};
  std::map<std::string, std::string> environment;
  auto copy = [&](const std::string& name) {
    if (const char* value = std::getenv(name.c_str())) environment[name] = value;
  };
  for (const char* name : kHarmless) copy(name);
  for (const auto& name : extra_names) copy(name);
  if (!environment.count("PATH")) environment["PATH"] = "/usr/local/bin:/usr/bin:/bin";
  return environment;
}

Result<std::unique_ptr<Worker>> Worker::start(const WorkerLaunch& launch) {
  std::error_code error;
  fs::create_directories(launch.root, error);
  if (error) return Status(StatusCode::unavailable, "cannot create worker folder " + launch.root + ": " + error.message());
  process::ChildOptions options;
  options.argv = {launch.python, "-u", "-m", "tritongym_worker", "--role", launch.role, "--device", launch.device,
                  "--root", launch.root, "--triton-cache", launch.triton_cache, "--memory-limit-bytes",
                  std::to_string(launch.memory_limit_bytes)};
  options.environment = launch.environment;
  options.working_directory = launch.root;
  options.stdout_path = launch.root + "/worker.stdout";
  options.stderr_path = launch.root + "/worker.stderr";
  // A candidate worker's children ask for their turns on the GPU on a socket of their own (fd 5).
  std::optional<TurnChannel> turns;
  if (launch.role == "candidate") {
    auto made = TurnChannel::make();
    if (!made) return made.status();
    turns.emplace(std::move(made.value()));
    options.inherited_fds.push_back(turns->worker_end());
  }
  auto child = process::ChildProcess::start(options);
  if (turns) turns->close_worker_end();
  if (!child) return child.status();
  std::unique_ptr<Worker> worker(new Worker(std::move(child.value()), options.stderr_path));
  worker->turns_ = std::move(turns);
  auto hello = worker->request({{"op", "hello"}}, launch.start_timeout_s);
  if (!hello)
    return Status(StatusCode::unavailable, "the " + launch.role + " worker (" + launch.python +
                                               ") did not start: " + hello.status().message());
  if (!hello->at("ok").as_bool())
    return Status(StatusCode::unavailable, "the " + launch.role + " worker failed its hello: " +
                                               boost::json::serialize(hello.value()));
  worker->hello_ = std::move(hello.value());
  worker->root = launch.root;
  worker->gpu = launch.gpu;
  return worker;
}

Status Worker::send(const boost::json::object& message) {
  // The executor's own request breaking the protocol is a bug here, said before the worker sees it.
  if (Status valid = protocol::check(protocol::request_type(message), message); !valid.is_ok())
    return Status(StatusCode::internal, "the executor built a request the worker protocol refuses: " + valid.message());
  Status sent = process_.send_line(boost::json::serialize(message));
  return sent.is_ok() ? sent : died();
}

Result<std::optional<boost::json::object>> Worker::receive(std::string_view op, int other_fd, double timeout_s) {
  auto line = process_.receive_line_or(other_fd, timeout_s);
  if (!line) return line.status().code() == StatusCode::deadline_exceeded ? line.status() : died();
  if (!line->has_value()) return std::optional<boost::json::object>();
  const std::string& text = **line;
  boost::system::error_code parse_error;
  auto value = boost::json::parse(text, parse_error);
  if (parse_error || !value.is_object())
    return Status(StatusCode::internal, "the worker sent a reply that is not a JSON object: " + text.substr(0, 200));
  if (Status valid = protocol::check(protocol::reply_type(op, value.as_object()), value); !valid.is_ok())
    return Status(StatusCode::internal, "the worker's reply breaks the worker protocol: " + valid.message());
  return std::optional<boost::json::object>(std::move(value.as_object()));
}

Result<boost::json::object> Worker::request(const boost::json::object& message, double timeout_s) {
  if (Status sent = send(message); !sent.is_ok()) return sent;
  const std::string type = protocol::request_type(message);
  auto reply = receive(std::string_view(type).substr(0, type.size() - std::string_view(".request").size()), -1,
                       timeout_s);
  if (!reply) return reply.status();
  return std::move(**reply);
}

Status Worker::died() {
  process_.kill_group();  // reaps it, so describe_end() can say how it ended
  std::string ended = process_.describe_end();
  std::string tail = stderr_tail();
  return Status(StatusCode::unavailable, "the worker died (" + (ended.empty() ? "ended" : ended) + ")" +
                                             (tail.empty() ? "" : "; its last output:\n" + tail));
}

std::string Worker::stderr_tail() const {
  std::ifstream in(stderr_path_);
  std::stringstream text;
  text << in.rdbuf();
  std::string all = text.str();
  return all.size() > 3000 ? "..." + all.substr(all.size() - 3000) : all;
}

}  // namespace tritongym::triton_executor
