#include "directory_suite.hpp"

#include <algorithm>
#include <filesystem>

#include "task_yaml.hpp"
#include "tritongym/sdk/did_you_mean.hpp"

namespace tritongym::suite_directory {

namespace fs = std::filesystem;

Result<std::vector<TaskSpec>> DirectorySuite::load_tasks() noexcept {
  try {
    std::error_code error;
    if (!fs::is_directory(root_, error))
      return Status(StatusCode::not_found, "suites folder '" + root_ + "' does not exist");
    std::vector<std::string> available;
    for (const auto& entry : fs::directory_iterator(root_))
      if (entry.is_directory()) available.push_back(entry.path().filename().string());
    std::sort(available.begin(), available.end());

    std::vector<std::string> chosen = config_.suites.value_or(available);
    for (const auto& suite : chosen)
      if (std::find(available.begin(), available.end(), suite) == available.end())
        return Status(StatusCode::not_found, "no suite '" + suite + "' in " + root_ + did_you_mean(suite, available));

    std::vector<TaskSpec> tasks;
    for (const auto& suite : chosen) {
      std::vector<fs::path> task_files;
      for (const auto& entry : fs::directory_iterator(fs::path(root_) / suite))
        if (entry.is_directory() && fs::exists(entry.path() / "task.yaml")) task_files.push_back(entry.path() / "task.yaml");
      std::sort(task_files.begin(), task_files.end());
      for (const auto& file : task_files) {
        auto task = parse_task_yaml(file.string(), suite);
        if (!task) {
          if (!config_.skip_invalid) return task.status();
          if (log_) log_->write(LogLevel::warn, "skipping task: " + task.status().location() + ": " + task.status().message());
          continue;
        }
        for (const auto& existing : tasks)
          if (existing.id == task->id)
            return Status(StatusCode::invalid_config, "task id '" + task->id + "' is used by " + existing.source_file +
                                                          " and " + task->source_file, task->source_file);
        tasks.push_back(std::move(task.value()));
      }
    }
    return tasks;
  } catch (const std::exception& error) {
    return Status(StatusCode::internal, std::string("reading suites under ") + root_ + ": " + error.what());
  }
}

}  // namespace tritongym::suite_directory
