#include "cli/tasks_audit.hpp"

#include <boost/json.hpp>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "cli/plugin_loading.hpp"
#include "cli/task_executor.hpp"
#include "tasks/task_audit.hpp"
#include "tasks/task_check.hpp"

namespace tritongym::cli {

int audit_tasks(const CliContext& context, plugins::Registry& registry, const std::vector<TaskSpec>& tasks,
                const std::string& executor_id, const std::string& executor_config, const std::string& out_dir,
                bool json) {
  // The oracle is the candidate: eager and torch.compile are its baselines; timing it again as one adds nothing.
  auto choice = make_task_executor(context, registry, executor_id, executor_config, {"eager", "compile"});
  if (!choice) return executor_not_made(choice.status());
  spdlog::info("executor {}: {}", choice->id, choice->reason);
  std::vector<tasks::TaskAudit> audits;
  size_t done = 0;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const TaskSpec& task = tasks[i];
    if (!executor_runs(*choice, task)) {
      std::cerr << "tasks audit: " << ++done << " of " << tasks.size() << " " << task.id
                << " skipped (Gluon has no interpreter)" << std::endl;
      continue;
    }
    for (size_t next = i + 1; next < tasks.size(); ++next)
      if (executor_runs(*choice, tasks[next]) && !tasks[next].reference_path.empty()) {
        choice->executor->expect(tasks::oracle_request(tasks[next]));
        break;
      }
    audits.push_back(tasks::audit_task(task, *choice->executor));
    const auto& audit = audits.back();
    std::cerr << "tasks audit: " << ++done << " of " << tasks.size() << " " << task.id << " "
              << (audit.violations() ? std::to_string(audit.violations()) + " violation(s)" : std::string("ok"))
              << " in " << static_cast<int>(audit.seconds) << " s" << std::endl;
  }
  const boost::json::value document = tasks::audit_json(audits, choice->id);
  const std::string markdown = tasks::audit_markdown(audits, choice->id);
  if (!out_dir.empty()) {
    std::error_code made;
    std::filesystem::create_directories(out_dir, made);
    std::ofstream(std::filesystem::path(out_dir) / "audit.json") << boost::json::serialize(document) << "\n";
    std::ofstream(std::filesystem::path(out_dir) / "audit.md") << markdown;
    if (made || !std::filesystem::exists(std::filesystem::path(out_dir) / "audit.md")) {
      print_error(Status(StatusCode::unavailable, "could not write the audit into '" + out_dir + "'"));
      return kExitFailure;
    }
  }
  if (json)
    print_json(std::cout, document);
  else
    std::cout << markdown << "\n" << tasks::audit_summary(audits) << "\n";
  for (const auto& audit : audits)
    if (audit.violations()) return kExitFailure;
  return kExitOk;
}

}  // namespace tritongym::cli
