#include "worker.hpp"

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
  auto child = process::ChildProcess::start(options);
  if (!child) return child.status();
  std::unique_ptr<Worker> worker(new Worker(std::move(child.value()), options.stderr_path));
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

Result<boost::json::object> Worker::request(const boost::json::object& message, double timeout_s) {
  Status sent = process_.send_line(boost::json::serialize(message));
  auto line = sent.is_ok() ? process_.receive_line(timeout_s) : Result<std::string>(sent);
  if (!line) {
    if (line.status().code() == StatusCode::deadline_exceeded) return line.status();
    process_.kill_group();  // reaps it, so describe_end() can say how it ended
    std::string ended = process_.describe_end();
    std::string tail = stderr_tail();
    return Status(StatusCode::unavailable, "the worker died (" + (ended.empty() ? "ended" : ended) + ")" +
                                               (tail.empty() ? "" : "; its last output:\n" + tail));
  }
  boost::system::error_code parse_error;
  auto value = boost::json::parse(*line, parse_error);
  if (parse_error || !value.is_object())
    return Status(StatusCode::internal, "the worker sent a reply that is not a JSON object: " + line->substr(0, 200));
  return std::move(value.as_object());
}

std::string Worker::stderr_tail() const {
  std::ifstream in(stderr_path_);
  std::stringstream text;
  text << in.rdbuf();
  std::string all = text.str();
  return all.size() > 3000 ? "..." + all.substr(all.size() - 3000) : all;
}

}  // namespace tritongym::triton_executor
