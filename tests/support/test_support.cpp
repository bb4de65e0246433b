#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <random>

namespace tritongym::testing {

namespace fs = std::filesystem;

namespace {
// The paths are compiled in; TRITONGYM_TEST_SOURCE_DIR and TRITONGYM_TEST_BUILD_DIR relocate them
// (the GPU machine runs these binaries from a copy of the tree: scripts/device-check.sh).
std::string from_env(const char* variable, const std::string& fallback) {
  const char* value = std::getenv(variable);
  return value && *value ? value : fallback;
}
std::string build_dir() { return from_env("TRITONGYM_TEST_BUILD_DIR", TRITONGYM_BINARY_DIR); }
bool relocated() { return std::getenv("TRITONGYM_TEST_BUILD_DIR") != nullptr; }
}  // namespace

std::string source_dir() { return from_env("TRITONGYM_TEST_SOURCE_DIR", TRITONGYM_SOURCE_DIR); }
std::string builtin_plugin_dir() { return relocated() ? build_dir() + "/plugins" : TRITONGYM_PLUGIN_BUILD_DIR; }
std::string fixture_plugin_dir() {
  return relocated() ? build_dir() + "/tests/fixture-plugins" : TRITONGYM_FIXTURE_PLUGIN_DIR;
}
std::string cli_path() { return relocated() ? build_dir() + "/bin/tritongym" : TRITONGYM_CLI; }

bool gpu_present() {
  // The same test the host makes: can the driver library be opened and does it see a device?
  auto result = run_cli({"doctor", "--json"}, "", 180);
  return result.stdout_text.find("\"compute_capability\"") != std::string::npos;
}

TemporaryDirectory::TemporaryDirectory() {
  std::random_device random;
  path_ = fs::temp_directory_path() / ("tritongym-test-" + std::to_string(random()) + std::to_string(random()));
  fs::create_directories(path_);
}

TemporaryDirectory::~TemporaryDirectory() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

std::string TemporaryDirectory::write(const std::string& relative, const std::string& text) const {
  fs::path file = path_ / relative;
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
  return file.string();
}

LoopbackLlmServer::LoopbackLlmServer() {
  process::ChildOptions options;
  options.argv = {process::find_executable("python3"), source_dir() + "/tests/fixtures/llm_server/llm_server.py"};
  options.stdout_path = (folder_.path() / "server.out").string();
  options.stderr_path = (folder_.path() / "server.err").string();
  auto started = process::ChildProcess::start(options);
  if (!started) {
    ADD_FAILURE() << "cannot start the loopback LLM server: " << started.status().message();
    return;
  }
  process_.emplace(std::move(started.value()));
  for (int i = 0; i < 200 && port_ == 0; ++i) {
    std::ifstream out(options.stdout_path);
    std::string word;
    if (out >> word && word == "PORT") out >> port_;
    if (port_ == 0) ::usleep(25000);
  }
  if (port_ == 0) ADD_FAILURE() << "the loopback LLM server did not report its port";
}

std::string LoopbackLlmServer::requests(const std::string& group) const {
  process::ProcessOptions options;
  options.argv = {process::find_executable("python3"), "-c",
                  "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())",
                  base_url() + "/requests?group=" + group};
  auto result = process::run_process(options);
  return result ? result->stdout_text : "";
}

process::ProcessResult run_cli(const std::vector<std::string>& arguments, const std::string& working_directory,
                               double timeout_s) {
  process::ProcessOptions options;
  options.argv = {cli_path()};
  options.argv.insert(options.argv.end(), arguments.begin(), arguments.end());
  options.working_directory = working_directory.empty() ? source_dir() : working_directory;
  options.timeout_s = timeout_s;
  auto result = process::run_process(options);
  if (!result) ADD_FAILURE() << "cannot start the CLI: " << result.status().message();
  return result ? result.value() : process::ProcessResult{};
}

}  // namespace tritongym::testing
