#include "device_sampler.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace tritongym::triton_executor {

namespace fs = std::filesystem;

namespace {

constexpr double kStartSeconds = 120.0;  // the first start loads CUPTI and the profiler's host libraries
constexpr double kReplySeconds = 120.0;  // a stop evaluates every sample: about 4 us each on the H200

Result<boost::json::object> parse(const Result<std::string>& line) {
  if (!line) return line.status();
  boost::system::error_code error;
  auto value = boost::json::parse(*line, error);
  if (error || !value.is_object())
    return Status(StatusCode::internal, "tritongym-gpu-sampler sent a line that is not a JSON object: " +
                                            line->substr(0, 200));
  return std::move(value.as_object());
}

}  // namespace

DeviceSamplers::DeviceSamplers(DeviceSamplerOptions options) : options_(std::move(options)) {}

DeviceSamplers::~DeviceSamplers() {
  for (auto& [gpu, sampler] : samplers_)
    if (sampler->process) sampler->process->kill_group();
}

std::string DeviceSamplers::locate(const std::string& configured) {
  if (!configured.empty()) return configured;
  std::error_code error;
  fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (error) return "";
  fs::path beside = self.parent_path() / "tritongym-gpu-sampler";
  return fs::exists(beside, error) ? beside.string() : "";
}

std::string DeviceSamplers::stderr_tail(const Sampler& sampler) const {
  std::ifstream in(sampler.stderr_path);
  std::stringstream text;
  text << in.rdbuf();
  std::string all = text.str();
  while (!all.empty() && (all.back() == '\n' || all.back() == ' ')) all.pop_back();
  return all.size() > 1000 ? "..." + all.substr(all.size() - 1000) : all;
}

DeviceSamplers::Sampler& DeviceSamplers::slot(int64_t gpu) {
  std::lock_guard lock(mutex_);
  auto& found = samplers_[gpu];
  if (!found) found = std::make_unique<Sampler>();
  return *found;
}

std::string DeviceSamplers::start(int64_t gpu, const std::string& visible_id) {
  Sampler& sampler = slot(gpu);
  std::lock_guard lock(sampler.mutex);
  if (!sampler.started) launch(sampler, gpu, visible_id);
  return sampler.problem;
}

void DeviceSamplers::launch(Sampler& sampler, int64_t gpu, const std::string& visible_id) {
  sampler.started = true;
  const std::string program = locate(options_.program);
  if (program.empty() || ::access(program.c_str(), X_OK) != 0) {
    sampler.problem = program.empty() ? "tritongym-gpu-sampler was not built (CUPTI's profiler headers were not found "
                                        "at build time)"
                                      : program + " cannot be run";
    return;
  }
  process::ChildOptions child;
  child.argv = {program, "--device", "0", "--interval-ns", std::to_string(options_.interval_ns), "--max-samples",
                std::to_string(options_.max_samples)};
  child.environment = options_.environment;
  std::string path;
  for (const auto& dir : options_.library_dirs) path += (path.empty() ? "" : ":") + dir;
  if (auto found = child.environment->find("LD_LIBRARY_PATH"); found != child.environment->end() && !found->second.empty())
    path += (path.empty() ? "" : ":") + found->second;
  if (!path.empty()) (*child.environment)["LD_LIBRARY_PATH"] = path;
  (*child.environment)["CUDA_VISIBLE_DEVICES"] = visible_id;
  if (!options_.log_dir.empty()) {
    std::error_code error;
    fs::create_directories(options_.log_dir, error);
    sampler.stderr_path = options_.log_dir + "/sampler-" + std::to_string(gpu) + ".stderr";
    child.stderr_path = sampler.stderr_path;
  }
  auto started = process::ChildProcess::start(child);
  if (!started) {
    sampler.problem = "tritongym-gpu-sampler did not start: " + started.status().message();
    return;
  }
  sampler.process.emplace(std::move(started.value()));
  auto hello = parse(sampler.process->receive_line(kStartSeconds));
  if (!hello || !hello->contains("ok") || !hello->at("ok").is_bool() || !hello->at("ok").as_bool()) {
    std::string why = !hello ? hello.status().message()
                             : (hello->contains("error") && hello->at("error").is_string()
                                    ? std::string(hello->at("error").as_string())
                                    : boost::json::serialize(*hello));
    sampler.process->kill_group();
    const std::string ended = sampler.process->describe_end();
    const std::string tail = stderr_tail(sampler);
    sampler.problem = "GPU " + std::to_string(gpu) + " cannot be sampled: " + why +
                      (hello || ended.empty() ? "" : " (the sampler: " + ended + ")") +
                      (tail.empty() || hello ? "" : "; its last output: " + tail);
    sampler.process.reset();
    return;
  }
  sampler.has_run = true;
}

void DeviceSamplers::let_go(Sampler& sampler, int64_t gpu, const std::string& why) {
  sampler.process->kill_group();
  sampler.process.reset();
  const std::string tail = stderr_tail(sampler);
  sampler.failure = "the sampler of GPU " + std::to_string(gpu) + " failed: " + why +
                    (tail.empty() ? "" : "; its last output: " + tail);
}

DeviceSamplers::Opening DeviceSamplers::open_window(int64_t gpu, const std::string& visible_id) {
  Sampler& sampler = slot(gpu);
  std::lock_guard lock(sampler.mutex);
  if (!sampler.started) launch(sampler, gpu, visible_id);
  Opening opening;
  for (;;) {
    if (!sampler.problem.empty()) {
      opening.problem = sampler.problem;
      opening.failed = sampler.has_run;
      return opening;
    }
    if (!sampler.process) {  // let go after a failure: started again, a bounded number of times
      if (sampler.restarts >= options_.max_restarts) {
        sampler.problem = sampler.failure + " (started " + std::to_string(sampler.restarts + 1) +
                          " times; not again)";
        continue;
      }
      ++sampler.restarts;
      opening.restarted_after = sampler.failure;
      launch(sampler, gpu, visible_id);
      continue;
    }
    Status sent = sampler.process->send_line(R"({"op": "start"})");
    auto reply = sent.is_ok() ? parse(sampler.process->receive_line(kReplySeconds)) : Result<boost::json::object>(sent);
    if (reply && reply->contains("ok") && reply->at("ok").is_bool() && reply->at("ok").as_bool()) return opening;
    let_go(sampler, gpu, !reply ? reply.status().message()
                                : "it could not open a window: " +
                                      (reply->contains("error") && reply->at("error").is_string()
                                           ? std::string(reply->at("error").as_string())
                                           : boost::json::serialize(*reply).substr(0, 300)));
    if (!opening.restarted_after.empty()) {  // the sampler just started again failed at once: not this turn
      opening.problem = sampler.failure;
      opening.failed = true;
      return opening;
    }
  }
}

Result<boost::json::object> DeviceSamplers::close_window(int64_t gpu) {
  Sampler* sampler = &slot(gpu);
  std::lock_guard lock(sampler->mutex);
  if (!sampler->process)
    return Status(StatusCode::failed_precondition, "no sampler runs for GPU " + std::to_string(gpu));
  Status sent = sampler->process->send_line(R"({"op": "stop"})");
  auto reply = sent.is_ok() ? parse(sampler->process->receive_line(kReplySeconds)) : Result<boost::json::object>(sent);
  const bool ok = reply && reply->contains("ok") && reply->at("ok").is_bool() && reply->at("ok").as_bool();
  const auto* samples = ok ? reply->if_contains("samples") : nullptr;
  if (ok && samples && samples->is_number() && samples->to_number<double>() > 0) return reply;
  // Gone, stuck, its window in a state it could not close, or a window without samples (a window opens only
  // once samples flow): let go, and started again at the next window.
  let_go(*sampler, gpu, !reply ? reply.status().message()
                        : ok   ? "its window had no samples"
                               : "it could not close its window: " + boost::json::serialize(*reply).substr(0, 300));
  return Status(StatusCode::unavailable, sampler->failure);
}

}  // namespace tritongym::triton_executor
