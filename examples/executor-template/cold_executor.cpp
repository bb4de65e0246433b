// acme.executor.cold: an executor in one file. Each evaluation is a fresh Python process (judge.py, copied beside
// the library) run through the SDK's support library: no shell, its own process group, a deadline that kills the
// whole group, captured output. It judges correctness only (on Triton's interpreter for Triton kernels) and
// times nothing, so info().reports_performance is false and every score reads Pass@k alone.
#include <tritongym/sdk/config.hpp>
#include <tritongym/sdk/executor.hpp>
#include <tritongym/sdk/plugin.hpp>
#include <tritongym/support/subprocess.hpp>

#include <boost/json.hpp>

#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <random>

namespace {

using namespace tritongym;
namespace fs = std::filesystem;

struct ColdConfig {
  int64_t parallel = 1;
  std::optional<double> timeout_seconds;
  static constexpr auto fields() {
    return std::make_tuple(field("parallel", &ColdConfig::parallel),
                           field("timeout_seconds", &ColdConfig::timeout_seconds));
  }
};

// At most `slots` evaluations at once; the others wait their turn.
class Slots {
 public:
  explicit Slots(int64_t slots) : free_(slots) {}
  void take() {
    std::unique_lock lock(mutex_);
    freed_.wait(lock, [this] { return free_ > 0; });
    --free_;
  }
  void give() {
    { std::lock_guard lock(mutex_); ++free_; }
    freed_.notify_one();
  }

 private:
  std::mutex mutex_;
  std::condition_variable freed_;
  int64_t free_;
};

class ColdExecutor final : public Executor {
 public:
  ColdExecutor(ColdConfig config, const PluginContext& context)
      : config_(config), python_(context.python_executable.empty() ? "python3" : context.python_executable),
        judge_((fs::path(context.plugin_dir) / "judge.py").string()), slots_(config.parallel) {}

  Status availability() const noexcept override {
    std::call_once(probed_, [this] {
      process::ProcessOptions options;
      options.argv = {python_, "-c", "import torch, triton"};
      options.timeout_s = 60.0;
      auto ran = process::run_process(options);
      if (!ran) available_ = ran.status();
      else if (!ran->succeeded())
        available_ = Status(StatusCode::unavailable, python_ + " cannot import torch and triton (" +
                                                         ran->describe_end() + "): " + ran->stderr_text.substr(0, 300));
      else if (!fs::exists(judge_))
        available_ = Status(StatusCode::unavailable, "judge.py is missing beside the plugin: " + judge_);
    });
    return available_;
  }

  ExecutorInfo info() const noexcept override {
    ExecutorInfo info;
    info.device = "cpu (a fresh Python process per evaluation, Triton's interpreter)";
    info.reports_performance = false;
    info.parallel_slots = config_.parallel;
    info.dsls = {"triton"};
    return info;
  }

  Result<EvaluationResult> evaluate(const EvaluationRequest& request) noexcept override {
    try {
      if (Status available = availability(); !available.is_ok()) return available;
      slots_.take();
      struct Give {
        Slots& slots;
        ~Give() { slots.give(); }
      } give{slots_};
      return judge(request);
    } catch (const std::exception& error) {
      return Status(StatusCode::internal, std::string("acme.executor.cold: ") + error.what());
    }
  }

 private:
  Result<EvaluationResult> judge(const EvaluationRequest& request) const {
    boost::json::array shapes, inputs;
    // On the CPU, the task's small shapes (made for the interpreter) whatever the request names, as the in-tree
    // interpreter executor does; the visible ones where a task has none.
    const auto& chosen = request.task.small_shapes.empty() ? request.task.visible_shapes : request.task.small_shapes;
    for (const auto& shape : chosen) shapes.push_back({{"name", shape.name}, {"dims", boost::json::value_from(shape.dims)}});
    boost::json::object tolerance;
    for (const auto& [dtype, value] : request.task.tolerance) tolerance[dtype] = {{"atol", value.atol}, {"rtol", value.rtol}};
    boost::system::error_code error;
    boost::json::value given = boost::json::parse(request.task.inputs_json.empty() ? "[]" : request.task.inputs_json, error);
    const boost::json::object message{{"code", request.source_code},
                                      {"entry", request.task.entry_function},
                                      {"reference", request.task.reference_path},
                                      {"inputs", error ? boost::json::value(boost::json::array()) : given},
                                      {"shapes", shapes},
                                      {"dtypes", boost::json::value_from(request.task.dtypes)},
                                      {"tolerance", tolerance},
                                      {"seeds", std::max<int64_t>(request.seeds_per_shape, 1)}};

    // A folder of its own: the candidate file, whatever it writes. Removed when the evaluation ends.
    const fs::path folder = fs::temp_directory_path() / ("acme-cold-" + std::to_string(std::random_device{}()));
    fs::create_directories(folder);
    struct Remove {
      fs::path path;
      ~Remove() { std::error_code ignored; fs::remove_all(path, ignored); }
    } remove{folder};

    process::ProcessOptions options;
    options.argv = {python_, judge_};
    options.working_directory = folder.string();
    options.stdin_text = boost::json::serialize(message);
    options.timeout_s = config_.timeout_seconds.value_or(request.timeout_s);
    // Exactly these variables: no secret of the host reaches the candidate.
    options.environment = std::map<std::string, std::string>{
        {"PATH", "/usr/bin:/bin"}, {"HOME", folder.string()}, {"TRITON_INTERPRET", "1"},
        {"PYTHONDONTWRITEBYTECODE", "1"}, {"TRITON_CACHE_DIR", (folder / "triton-cache").string()}};
    auto ran = process::run_process(options);
    if (!ran) return ran.status();

    EvaluationResult result;
    result.wall_seconds = ran->wall_seconds;
    result.stderr_text = ran->stderr_text.substr(0, 4000);
    if (ran->timed_out) {
      result.verdict = Verdict::timeout;
      result.message = "the evaluation " + ran->describe_end();
      return result;
    }
    // The judge prints one JSON line last; anything else on stdout is the candidate's own output.
    const std::string& out = ran->stdout_text;
    const size_t last = out.find_last_of('\n', out.size() >= 2 ? out.size() - 2 : 0);
    const std::string line = out.substr(last == std::string::npos ? 0 : last + 1);
    result.stdout_text = out.substr(0, last == std::string::npos ? 0 : last).substr(0, 4000);
    boost::json::value reply = boost::json::parse(line, error);
    if (error || !reply.is_object() || !reply.as_object().contains("verdict")) {
      result.verdict = ran->signal ? Verdict::crash : Verdict::runtime_error;
      result.message = "the candidate's process " + ran->describe_end() + " before the judge answered: " +
                       ran->stderr_text.substr(ran->stderr_text.size() > 600 ? ran->stderr_text.size() - 600 : 0);
      return result;
    }
    const auto& object = reply.as_object();
    result.verdict = verdict_from_name(std::string(object.at("verdict").as_string())).value_or(Verdict::harness_error);
    result.message = std::string(object.at("message").as_string());
    if (const auto* judged = object.if_contains("shapes"))
      for (const auto& item : judged->as_array()) {
        const auto& shape = item.as_object();
        ShapeOutcome outcome;
        outcome.shape = std::string(shape.at("shape").as_string());
        outcome.passed = shape.at("passed").as_bool();
        outcome.max_abs_error = shape.at("max_abs_error").to_number<double>();
        outcome.max_rel_error = shape.at("max_rel_error").to_number<double>();
        outcome.first_mismatch = std::string(shape.at("first_mismatch").as_string());
        result.shapes.push_back(std::move(outcome));
      }
    return result;
  }

  ColdConfig config_;
  std::string python_;
  std::string judge_;
  mutable Slots slots_;
  mutable std::once_flag probed_;
  mutable Status available_;
};

Result<std::unique_ptr<Executor>> create(const PluginContext& context) {
  auto config = parse_config<ColdConfig>(context.config_json);
  if (!config) return config.status();
  if (config->parallel < 1) return Status(StatusCode::invalid_config, "parallel must be at least 1", "/parallel");
  if (config->timeout_seconds && *config->timeout_seconds <= 0.0)
    return Status(StatusCode::invalid_config, "timeout_seconds must be more than 0", "/timeout_seconds");
  return std::unique_ptr<Executor>(std::make_unique<ColdExecutor>(*config, context));
}

void register_all(Registrar& registrar) { registrar.add_executor("acme.executor.cold", create); }

}  // namespace

TRITONGYM_PLUGIN(register_all)
