// Helpers shared by the test suites: paths into the build, temporary folders, running the CLI.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <optional>

#include "tritongym/support/child_process.hpp"
#include "tritongym/support/subprocess.hpp"

namespace tritongym::testing {

std::string source_dir();          // the checkout
std::string builtin_plugin_dir();  // <build>/plugins
std::string fixture_plugin_dir();  // <build>/tests/fixture-plugins
std::string cli_path();            // <build>/bin/tritongym

// Whether this machine has a GPU the driver can see. Tests labelled `gpu` GTEST_SKIP() without one.
bool gpu_present();

// A fresh folder under the system temp dir, removed when the object dies.
class TemporaryDirectory {
 public:
  TemporaryDirectory();
  ~TemporaryDirectory();
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  const std::filesystem::path& path() const { return path_; }
  // Writes `text` to path()/relative (creating folders) and returns the full path.
  std::string write(const std::string& relative, const std::string& text) const;

 private:
  std::filesystem::path path_;
};

// The loopback LLM server of tests/fixtures/llm_server (OpenAI and Anthropic wire formats), started
// on 127.0.0.1 with a free port; killed when the object dies.
class LoopbackLlmServer {
 public:
  LoopbackLlmServer();
  bool running() const { return port_ > 0; }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // The request bodies the server received for X-Test-Group `group`, as JSON text.
  std::string requests(const std::string& group) const;

 private:
  TemporaryDirectory folder_;
  std::optional<process::ChildProcess> process_;
  int port_ = 0;
};

// Runs the real `tritongym` with arguments, in `working_directory` (default: the checkout).
process::ProcessResult run_cli(const std::vector<std::string>& arguments, const std::string& working_directory = "",
                               double timeout_s = 120);

}  // namespace tritongym::testing
