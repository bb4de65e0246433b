#include "run/run_engine.hpp"

#include <boost/json.hpp>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <thread>

#include "config/config_node.hpp"
#include "environment/executor_choice.hpp"
#include "environment/machine_report_json.hpp"
#include "episode/episode_runner.hpp"
#include "log/logging.hpp"
#include "plugins/default_plugins.hpp"
#include "replay/replay_backend.hpp"
#include "run/episode_conversion.hpp"
#include "run/interrupt.hpp"
#include "run/progress.hpp"
#include "store/run_store.hpp"
#include "tasks/task_digest.hpp"
#include "tasks/task_json.hpp"
#include "tritongym/support/machine_probe.hpp"

namespace tritongym::run {

namespace fs = std::filesystem;

namespace {

// A model name as a file name: letters, digits, '.', '-' and '_' kept, anything else '_'.
std::string file_safe(const std::string& name) {
  std::string safe;
  for (char c : name) safe += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_') ? c : '_';
  return safe.empty() ? "model" : safe;
}

Status with_role(const Status& status, const std::string& role) {
  return Status(status.code(), role + ": " + status.message(), status.location());
}

// Everything the episodes share, created once before the first episode starts.
struct RunResources {
  std::vector<TaskSpec> tasks;
  std::vector<PlannedEpisode> planned;
  std::unique_ptr<Executor> executor;
  std::string executor_id;
  bool reports_performance = false;
  std::vector<std::unique_ptr<replay::ReplayBackend>> models;  // by RunConfig::models index
  std::map<std::string, std::unique_ptr<Dsl>> dsls;           // by DSL name, for the tasks' DSLs
  std::vector<config::PluginChoice> tools;  // the run file's, or every loaded tool with its defaults
};

Result<std::vector<TaskSpec>> load_tasks(const config::RunConfig& run, const plugins::Registry& registry,
                                         const ContextMaker& make_context) {
  std::vector<TaskSpec> tasks;
  for (size_t i = 0; i < run.suites.size(); ++i) {
    const auto& choice = run.suites[i];
    std::string role = "suites[" + std::to_string(i) + "]";
    auto suite = registry.create<Suite>(choice.plugin.id, make_context(choice.plugin.id, choice.plugin.config_json,
                                                                       choice.plugin.config_origin));
    if (!suite) return with_role(suite.status(), role);
    auto all = (*suite)->load_tasks();
    if (!all) return with_role(all.status(), role);
    auto selected = select_tasks(choice, i, std::move(all.value()));
    if (!selected) return selected.status();
    for (auto& task : selected.value()) tasks.push_back(std::move(task));
  }
  return tasks;
}

Result<RunResources> prepare(const config::RunConfig& run, const plugins::Registry& registry,
                             const ContextMaker& make_context, const RunOptions& options) {
  RunResources resources;
  auto tasks = load_tasks(run, registry, make_context);
  if (!tasks) return tasks.status();
  resources.tasks = std::move(tasks.value());
  auto planned = plan_episodes(resources.tasks, run, options.shard);
  if (!planned) return planned.status();
  resources.planned = std::move(planned.value());

  auto choice = environment::choose_executor(registry, run.executor.id, [&](const std::string& id) {
    return id == run.executor.id ? make_context(id, run.executor.config_json, run.executor.config_origin)
                                 : make_context(id, "{}", "executor: auto");
  });
  if (!choice) return with_role(choice.status(), "executor");
  spdlog::info("executor {}: {}", choice->id, choice->reason);
  resources.executor_id = choice->id;
  resources.reports_performance = choice->executor->info().reports_performance;
  resources.executor = std::move(choice->executor);

  std::error_code error;
  fs::create_directories(fs::path(options.run_dir) / "replay", error);
  if (error) return Status(StatusCode::unavailable, "cannot create " + options.run_dir + "/replay: " + error.message());
  for (const auto& model : run.models) {
    std::string role = "model '" + model.name + "'";
    auto backend = registry.create<ModelBackend>(
        model.backend.id, make_context(model.backend.id, model.backend.config_json, model.backend.config_origin));
    if (!backend) return with_role(backend.status(), role);
    std::string record = (fs::path(options.run_dir) / "replay" / (file_safe(model.name) + ".jsonl")).string();
    auto replayed = replay::ReplayBackend::open(record, replay::ReplayMode::automatic, std::move(backend.value()),
                                                model.name);
    if (!replayed) return with_role(replayed.status(), role);
    if ((*replayed)->recorded_calls() > 0)
      spdlog::info("{}: {} model calls already in the replay record {}", role, (*replayed)->recorded_calls(), record);
    resources.models.push_back(std::move(replayed.value()));
  }
  for (const auto& task : resources.tasks) {
    std::string dsl_id = plugins::dsl_plugin_id(task.dsl);
    if (resources.dsls.count(task.dsl) || !registry.contains(plugins::PluginKind::dsl, dsl_id)) continue;
    auto dsl = registry.create<Dsl>(dsl_id, make_context(dsl_id, "{}", "task " + task.id));
    if (!dsl) return with_role(dsl.status(), "DSL of task " + task.id);
    resources.dsls[task.dsl] = std::move(dsl.value());
  }
  resources.tools = run.tools;
  if (resources.tools.empty())
    for (const auto& id : registry.ids(plugins::PluginKind::tool)) {
      config::PluginChoice choice;
      choice.id = id;
      choice.config_origin = "tools (default)";
      resources.tools.push_back(std::move(choice));
    }
  return resources;
}

// A task as the store keeps it: its listing, and the digest of the files that define it.
std::string stored_task_spec(const TaskSpec& task) {
  boost::json::object spec = tasks::task_json(task);
  spec["files_digest"] = tasks::task_files_digest(task);
  return boost::json::serialize(spec);
}

// The run row: a new one, or the stored one back to "running" for a resume.
Result<results::RunInfo> open_run_row(store::RunStore& store, const config::RunConfig& run, const RunResources& resources,
                                      const RunOptions& options) {
  auto existing = store.load_run();
  if (options.resume) {
    if (!existing) return Status(StatusCode::not_found, options.run_dir + " holds no run to resume");
    results::RunInfo info = existing.value();
    info.status = "running";
    info.finished_at = "";
    if (Status status = store.write_run(info); !status.is_ok()) return status;
    return info;
  }
  if (existing) {
    auto keys = store.finished_keys();
    return Status(StatusCode::failed_precondition,
                  "the run folder " + options.run_dir + " already holds run '" + existing->run_id + "' (" +
                      std::to_string(keys ? keys->size() : 0) + " episodes recorded); continue it with `tritongym resume " +
                      options.run_dir + "`, or set output.dir to another folder");
  }
  results::RunInfo info;
  info.started_at = utc_now();
  info.run_id = fs::path(options.run_dir).filename().string() + "-" + info.started_at;
  info.name = run.name;
  info.description = run.description;
  info.resolved_config_yaml = config::to_yaml(run.resolved);
  info.environment_json = boost::json::serialize(
      environment::machine_report_json(environment::probe_machine(options.project_root)));
  info.executor = resources.executor_id;
  info.reports_performance = resources.reports_performance;
  info.planned_episodes = static_cast<int64_t>(resources.planned.size());
  if (Status status = store.write_run(info); !status.is_ok()) return status;
  if (Status status = store.set_meta("shard", options.shard.to_string()); !status.is_ok()) return status;
  int64_t whole = static_cast<int64_t>(resources.tasks.size() * run.models.size() * run.workflows.size()) * run.samples;
  if (Status status = store.set_meta("total_episodes", std::to_string(whole)); !status.is_ok()) return status;
  for (const auto& task : resources.tasks)
    if (Status status = store.write_task(task.id, stored_task_spec(task)); !status.is_ok()) return status;
  return info;
}

// A resumed run judges the episodes it has left with the task files as they are now. A task whose files
// changed since some of its episodes were recorded would mix two versions in one store: that is said, task
// by task. A task with nothing recorded yet takes its new files quietly.
Status check_task_files(store::RunStore& store, const RunResources& resources, const std::set<std::string>& finished,
                        const std::string& run_dir) {
  auto stored = store.tasks();
  for (const auto& task : resources.tasks) {
    std::string now = tasks::task_files_digest(task), before;
    if (auto found = stored.find(task.id); found != stored.end()) {
      boost::system::error_code error;
      auto spec = boost::json::parse(found->second, error);
      if (!error && spec.is_object())
        if (const auto* digest = spec.as_object().if_contains("files_digest"); digest && digest->is_string())
          before = std::string(digest->as_string());
    }
    if (before == now) continue;
    size_t recorded = 0;
    for (const auto& key : finished) recorded += key.rfind(task.id + "|", 0) == 0;
    if (recorded == 0) {
      if (Status status = store.write_task(task.id, stored_task_spec(task)); !status.is_ok()) return status;
    } else if (!before.empty()) {
      spdlog::warn("task {} changed since {} of its episodes were recorded (task.yaml, reference.py or oracle.py "
                   "in {}): those judged the old files and the ones left judge the new; to judge them all "
                   "anew, delete its episodes from {} (PRAGMA foreign_keys=ON; DELETE FROM episodes "
                   "WHERE task_id='{}') and resume",
                   task.id, recorded, task.directory, (fs::path(run_dir) / store::kStoreFileName).string(), task.id);
    }
  }
  return {};
}

// Runs one episode with its own workflow and tools, and records it.
Status run_one(const config::RunConfig& run, const plugins::Registry& registry, const ContextMaker& make_context,
               RunResources& resources, const PlannedEpisode& planned, store::RunStore& store,
               ProgressDisplay& progress) {
  const auto& workflow_choice = run.workflows[planned.workflow_index];
  auto workflow = registry.create<Workflow>(
      workflow_choice.plugin.id,
      make_context(workflow_choice.plugin.id, workflow_choice.plugin.config_json, workflow_choice.plugin.config_origin));
  if (!workflow) return with_role(workflow.status(), "workflow '" + workflow_choice.name + "'");
  std::vector<std::unique_ptr<Tool>> tools;
  episode::EpisodeSetup setup;
  for (const auto& choice : resources.tools) {
    auto tool = registry.create<Tool>(choice.id, make_context(choice.id, choice.config_json, choice.config_origin));
    if (!tool) return with_role(tool.status(), "tool " + choice.id);
    setup.tools[(*tool)->schema().name] = tool->get();
    tools.push_back(std::move(tool.value()));
  }
  const TaskSpec& task = resources.tasks[planned.task_index];
  setup.task = task;
  setup.sample_index = planned.key.sample;
  setup.model = resources.models[planned.model_index].get();
  setup.executor = resources.executor.get();
  auto dsl = resources.dsls.find(task.dsl);
  setup.dsl = dsl == resources.dsls.end() ? nullptr : dsl->second.get();
  setup.budget = run.budget;
  setup.log = &log::host_log();

  std::string started_at = utc_now();
  auto clock = std::chrono::steady_clock::now();
  episode::EpisodeResult result = episode::run_episode(**workflow, std::move(setup));
  double wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - clock).count();
  ConvertedEpisode converted = convert_episode(planned.key, task, result, started_at, utc_now(), wall_seconds);
  if (Status status = store.record_episode(converted.record, converted.transcript, converted.evaluations);
      !status.is_ok())
    return status;
  progress.episode_finished(converted.record);
  return {};
}

}  // namespace

Result<RunOutcome> execute_run(const config::RunConfig& run, const plugins::Registry& registry,
                               const ContextMaker& make_context, const RunOptions& options) {
  auto prepared = prepare(run, registry, make_context, options);
  if (!prepared) return prepared.status();
  RunResources& resources = prepared.value();

  std::string store_path = (fs::path(options.run_dir) / store::kStoreFileName).string();
  auto opened = store::RunStore::open(store_path);
  if (!opened) return opened.status();
  store::RunStore& store = opened.value();
  auto info = open_run_row(store, run, resources, options);
  if (!info) return info.status();
  auto finished = store.finished_keys();
  if (!finished) return finished.status();
  if (options.resume)
    if (Status status = check_task_files(store, resources, finished.value(), options.run_dir); !status.is_ok())
      return status;

  std::vector<const PlannedEpisode*> remaining;
  std::set<std::string> planned_keys;
  for (const auto& planned : resources.planned) {
    planned_keys.insert(planned.key.key());
    if (!finished->count(planned.key.key())) remaining.push_back(&planned);
  }
  for (const auto& key : finished.value())
    if (!planned_keys.count(key))
      return Status(StatusCode::failed_precondition, "the store " + store_path + " holds episode '" + key +
                                                         "', which this run does not plan; it belongs to another run");
  std::vector<results::EpisodeRecord> earlier;
  if (!finished->empty()) {
    auto episodes = store.load_episodes();
    if (!episodes) return episodes.status();
    earlier = std::move(episodes.value());
  }

  RunOutcome outcome;
  outcome.run_dir = options.run_dir;
  outcome.store_path = store_path;
  outcome.planned = static_cast<int64_t>(resources.planned.size());
  outcome.skipped = static_cast<int64_t>(finished->size());
  spdlog::info("run '{}'{}: {} episodes planned, {} already recorded, {} to run, up to {} at once", run.name,
               options.shard.whole() ? "" : " shard " + options.shard.to_string(), outcome.planned, outcome.skipped,
               remaining.size(), run.max_concurrent_episodes);

  ProgressDisplay progress(static_cast<int64_t>(remaining.size()), earlier, options.terminal);
  InterruptWatch interrupts;
  std::atomic<bool> stop{false};
  std::atomic<size_t> next{0};
  std::atomic<int64_t> not_recorded{0};
  std::atomic<size_t> working{0};
  auto worker = [&] {
    while (!stop.load()) {
      size_t index = next.fetch_add(1);
      if (index >= remaining.size()) break;
      Status status = run_one(run, registry, make_context, resources, *remaining[index], store, progress);
      if (!status.is_ok()) {
        ++not_recorded;
        progress.note("episode " + remaining[index]->key.key() + " was not recorded: " + status.to_string());
      }
    }
    --working;
  };
  size_t thread_count =
      std::min<size_t>(static_cast<size_t>(std::max<int64_t>(run.max_concurrent_episodes, 1)), remaining.size());
  std::vector<std::thread> threads;
  working = thread_count;
  for (size_t i = 0; i < thread_count; ++i) threads.emplace_back(worker);

  int handled = 0;
  while (working.load() > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    int received = interrupts.count();
    if (received == handled) continue;
    handled = received;
    if (received == 1) {
      stop = true;
      progress.note("interrupted: no new episodes start; the running ones finish and are recorded "
                    "(interrupt again to stop at once; `tritongym resume " + options.run_dir + "` continues)");
    } else {
      // Stop at once. Every recorded episode is whole (one transaction each), so the store stays
      // consistent; the episodes still running are simply not recorded, and a resume runs them again.
      progress.finish();
      store.set_status("interrupted", "");
      spdlog::warn("stopped at once; the run is marked interrupted; `tritongym resume {}` continues it", options.run_dir);
      std::fflush(nullptr);
      std::_Exit(130);
    }
  }
  for (auto& thread : threads) thread.join();
  progress.finish();

  auto final_episodes = store.load_episodes();
  if (!final_episodes) return final_episodes.status();
  outcome.ran = progress.done();
  outcome.not_recorded = not_recorded.load();
  outcome.recorded_total = static_cast<int64_t>(final_episodes->size());
  for (const auto& episode : final_episodes.value()) outcome.passed_total += episode.passed() ? 1 : 0;
  for (const auto& model : resources.models) {
    outcome.replay_answers += model->answers_from_record();
    outcome.replay_sent += model->calls_sent();
  }
  bool complete = outcome.recorded_total == outcome.planned;
  outcome.status = complete ? "finished" : "interrupted";
  if (Status status = store.set_status(outcome.status, complete ? utc_now() : ""); !status.is_ok()) return status;
  spdlog::info("replay: {} model calls answered from the record, {} sent to the backends", outcome.replay_answers,
               outcome.replay_sent);
  return outcome;
}

}  // namespace tritongym::run
