#include "cli/tasks_audit.hpp"

#include <boost/json.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "cli/plugin_loading.hpp"
#include "cli/task_executor.hpp"
#include "tasks/task_audit.hpp"
#include "tasks/task_check.hpp"
#include "tasks/task_digest.hpp"

namespace tritongym::cli {
namespace {

namespace fs = std::filesystem;

// Writes audit.json and audit.md into `dir` through temporary files, so that a process stopped mid-write leaves
// the previous task's complete table.
Status write_audit(const fs::path& dir, const std::vector<tasks::TaskAudit>& audits, const std::string& executor_id) {
  std::error_code error;
  fs::create_directories(dir, error);
  const std::pair<const char*, std::string> files[] = {
      {"audit.json", boost::json::serialize(tasks::audit_json(audits, executor_id)) + "\n"},
      {"audit.md", tasks::audit_markdown(audits, executor_id)}};
  for (const auto& [name, text] : files) {
    const fs::path partial = dir / (std::string(name) + ".partial");
    std::ofstream(partial) << text;
    fs::rename(partial, dir / name, error);
    if (error) return Status(StatusCode::unavailable, "could not write " + (dir / name).string() + ": " + error.message());
  }
  return Status::ok();
}

// The audits `dir`/audit.json holds, for --resume: none where there is no such file; an error where it is not an
// audit or another executor made it (its timings are not comparable).
Result<std::vector<tasks::TaskAudit>> earlier_audits(const fs::path& dir, const std::string& executor_id) {
  const fs::path path = dir / "audit.json";
  if (!fs::exists(path)) return std::vector<tasks::TaskAudit>{};
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  boost::system::error_code error;
  const boost::json::value document = boost::json::parse(text.str(), error);
  if (error) return Status(StatusCode::invalid_argument, path.string() + " is not JSON: " + error.message());
  const auto* executor = document.is_object() ? document.as_object().if_contains("executor") : nullptr;
  if (!executor || !executor->is_string() || executor->get_string() != executor_id)
    return Status(StatusCode::invalid_argument,
                  path.string() + " was written by executor '" +
                      (executor && executor->is_string() ? std::string(executor->get_string()) : std::string("?")) +
                      "', not " + executor_id + ": its timings cannot be joined with this one's");
  auto audits = tasks::audits_from_json(document);
  if (!audits) return Status(audits.status().code(), path.string() + ": " + audits.status().message());
  return audits;
}

}  // namespace

int audit_tasks(const CliContext& context, plugins::Registry& registry, const std::vector<TaskSpec>& tasks,
                const std::vector<std::string>& suite, const std::string& executor_id,
                const std::string& executor_config, const std::string& out_dir, bool resume, size_t jobs, bool json) {
  if (resume && out_dir.empty()) {
    std::cerr << "error: tasks audit --resume needs --out DIR (the folder whose audit.json it goes on from)\n";
    return kExitUsage;
  }
  if (jobs == 0) {
    std::cerr << "error: tasks audit --jobs must be at least 1\n";
    return kExitUsage;
  }
  // The oracle is the candidate: eager, torch.compile and (DSL tasks) the plain-Triton baseline are its
  // baselines; timing it again as one adds nothing.
  auto choice = make_task_executor(context, registry, executor_id, executor_config, {"eager", "compile", "triton"});
  if (!choice) return executor_not_made(choice.status());
  spdlog::info("executor {}: {}", choice->id, choice->reason);
  std::vector<tasks::TaskAudit> audits;
  std::set<std::string> audited;
  // With --resume, the table on disk keeps the audits of tasks outside this sweep (a sweep over a few tasks
  // adds to a table of all of them); those of this sweep's tasks are reused where the task's files are the
  // ones they audited, and audited again where the files changed since.
  std::vector<tasks::TaskAudit> others;
  if (resume) {
    auto earlier = earlier_audits(out_dir, choice->id);
    if (!earlier) {
      print_error(earlier.status());
      return kExitFailure;
    }
    std::map<std::string, const TaskSpec*> chosen;
    for (const auto& task : tasks) chosen.emplace(task.id, &task);
    size_t changed = 0;
    for (auto& audit : *earlier) {
      auto task = chosen.find(audit.task_id);
      if (task == chosen.end()) {
        if (std::find(suite.begin(), suite.end(), audit.task_id) != suite.end()) others.push_back(std::move(audit));
      } else if (audit.files_digest != tasks::task_files_digest(*task->second)) {
        ++changed;
      } else if (audited.insert(audit.task_id).second) {
        audits.push_back(std::move(audit));
      }
    }
    std::cerr << "tasks audit: " << audits.size() << " of " << tasks.size() << " tasks already audited in "
              << out_dir << (changed ? " (" + std::to_string(changed) + " changed since: audited again)" : "")
              << std::endl;
  }
  // The table on disk after each task (with --out): a sweep stopped by a time limit keeps what it measured.
  auto saved = [&] {
    if (out_dir.empty()) return true;
    std::vector<tasks::TaskAudit> all = others;
    all.insert(all.end(), audits.begin(), audits.end());
    Status written = write_audit(out_dir, all, choice->id);
    if (!written.is_ok()) print_error(written);
    return written.is_ok();
  };
  // The tasks left, in their order. The executor-skipped ones (task.yaml rules only) are judged here at once; the
  // others go to `jobs` threads, so that one task's checks and compiles overlap another's timing, which the
  // executor keeps exclusive (its GPU turns), as in `eval --batch`.
  std::vector<const TaskSpec*> left;
  size_t done = audits.size();
  for (const TaskSpec& task : tasks) {
    if (audited.count(task.id)) continue;
    if (auto why = executor_skips(*choice, task)) {
      // Its plain-Triton baseline is still judged where the executor runs plain Triton (the interpreter).
      const bool baseline = !task.triton_baseline_path.empty() && runs_plain_triton(*choice, task);
      audits.push_back(tasks::audit_task_yaml_only(task, baseline ? choice->executor.get() : nullptr));
      const size_t violations = audits.back().violations();
      std::cerr << "tasks audit: " << ++done << " of " << tasks.size() << " " << task.id
                << (baseline ? " task.yaml rules and triton_baseline.py only (" : " task.yaml rules only (")
                << *why << "): " << (violations ? std::to_string(violations) + " violation(s)" : std::string("ok"))
                << std::endl;
      if (!saved()) return kExitFailure;
      continue;
    }
    left.push_back(&task);
  }
  std::mutex mutex;
  size_t next = 0;
  bool stopped = false;  // the table could not be written: no further task is started
  auto work = [&] {
    for (;;) {
      const TaskSpec* task = nullptr;
      {
        std::lock_guard lock(mutex);
        if (stopped || next == left.size()) return;
        task = left[next++];
        // The next task's cases are made while this one is judged (with one job; more jobs overlap whole tasks).
        if (jobs == 1 && next < left.size() && !left[next]->reference_path.empty())
          choice->executor->expect(tasks::oracle_request(*left[next]));
      }
      tasks::TaskAudit audit;
      try {
        audit = tasks::audit_task(*task, *choice->executor);
      } catch (const std::exception& error) {  // a thread must not end the sweep: the task is on record as failed
        audit.task_id = task->id;
        audit.findings.push_back({tasks::kRuleOraclePasses, "", std::string("auditing it failed: ") + error.what(), ""});
      }
      std::lock_guard lock(mutex);
      std::string rules;
      for (const auto& found : audit.findings)
        if (!found.exempt()) rules += (rules.empty() ? ": " : ", ") + found.rule + (found.shape.empty() ? "" : " " + found.shape);
      std::cerr << "tasks audit: " << ++done << " of " << tasks.size() << " " << task->id << " "
                << (audit.violations() ? std::to_string(audit.violations()) + " violation(s)" + rules : std::string("ok"))
                << " in " << static_cast<int>(audit.seconds) << " s" << std::endl;
      audits.push_back(std::move(audit));
      if (!saved()) stopped = true;
    }
  };
  std::vector<std::thread> threads;
  for (size_t i = 0; i < std::min(jobs, left.size()); ++i) threads.emplace_back(work);
  for (auto& thread : threads) thread.join();
  if (stopped) return kExitFailure;
  // In the suite's order, whichever job ended first.
  std::map<std::string, size_t> order;
  for (size_t i = 0; i < tasks.size(); ++i) order.emplace(tasks[i].id, i);
  std::stable_sort(audits.begin(), audits.end(), [&](const tasks::TaskAudit& a, const tasks::TaskAudit& b) {
    return order[a.task_id] < order[b.task_id];
  });
  if (!saved()) return kExitFailure;  // a resumed sweep with nothing left still writes the chosen tasks' table
  if (json)
    print_json(std::cout, tasks::audit_json(audits, choice->id));
  else
    std::cout << tasks::audit_markdown(audits, choice->id) << "\n" << tasks::audit_summary(audits) << "\n";
  for (const auto& audit : audits)
    if (audit.violations()) return kExitFailure;
  return kExitOk;
}

}  // namespace tritongym::cli
