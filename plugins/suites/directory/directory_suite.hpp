// The directory suite: tasks/<suite>/<task>/task.yaml -> TaskSpecs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tritongym/sdk/config.hpp"
#include "tritongym/sdk/context.hpp"
#include "tritongym/sdk/suite.hpp"

namespace tritongym::suite_directory {

struct DirectorySuiteConfig {
  std::string root = "tasks";
  std::optional<std::vector<std::string>> suites;
  bool skip_invalid = false;

  static constexpr auto fields() {
    return std::make_tuple(field("root", &DirectorySuiteConfig::root), field("suites", &DirectorySuiteConfig::suites),
                           field("skip_invalid", &DirectorySuiteConfig::skip_invalid));
  }
};

class DirectorySuite final : public Suite {
 public:
  DirectorySuite(DirectorySuiteConfig config, std::string root, HostLog* log)
      : config_(std::move(config)), root_(std::move(root)), log_(log) {}
  Result<std::vector<TaskSpec>> load_tasks() noexcept override;

 private:
  DirectorySuiteConfig config_;
  std::string root_;  // absolute
  HostLog* log_;
};

}  // namespace tritongym::suite_directory
