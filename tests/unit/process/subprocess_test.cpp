#include "tritongym/support/subprocess.hpp"

#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>

#include "support/test_support.hpp"

namespace tritongym::process {
namespace {

ProcessOptions command(std::vector<std::string> argv) {
  ProcessOptions options;
  options.argv = std::move(argv);
  return options;
}

TEST(Subprocess, CapturesStdoutStderrAndExitCode) {
  auto result = run_process(command({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}));
  ASSERT_TRUE(result);
  EXPECT_EQ(result->stdout_text, "out\n");
  EXPECT_EQ(result->stderr_text, "err\n");
  EXPECT_EQ(result->exit_code, 3);
  EXPECT_FALSE(result->succeeded());
  EXPECT_EQ(result->describe_end(), "exit code 3");
}

TEST(Subprocess, FeedsStdin) {
  ProcessOptions options = command({"/bin/cat"});
  options.stdin_text = std::string(200000, 'x');  // larger than a pipe buffer
  auto result = run_process(options);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->stdout_text.size(), 200000u);
}

TEST(Subprocess, TimeoutKillsTheWholeProcessGroup) {
  testing::TemporaryDirectory dir;
  std::string marker = (dir.path() / "grandchild-survived").string();
  // The grandchild would write the marker after 2 s unless the whole group is killed.
  ProcessOptions options = command({"/bin/sh", "-c", "(sleep 2; touch " + marker + ") & sleep 30"});
  options.timeout_s = 0.5;
  auto result = run_process(options);
  ASSERT_TRUE(result);
  EXPECT_TRUE(result->timed_out);
  EXPECT_LT(result->wall_seconds, 5.0);
  ::sleep(3);
  EXPECT_FALSE(std::filesystem::exists(marker));
}

TEST(Subprocess, ReportsTheSignalThatKilledIt) {
  auto result = run_process(command({"/bin/sh", "-c", "kill -SEGV $$"}));
  ASSERT_TRUE(result);
  EXPECT_EQ(result->signal, SIGSEGV);
  EXPECT_NE(result->describe_end().find("SIGSEGV"), std::string::npos) << result->describe_end();
}

TEST(Subprocess, MinimalEnvironmentHidesTheHostsVariables) {
  ::setenv("TRITONGYM_TEST_SECRET", "sk-do-not-leak", 1);
  ProcessOptions options = command({"/usr/bin/env"});
  options.environment = std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin"}, {"ONLY", "this"}};
  auto result = run_process(options);
  ::unsetenv("TRITONGYM_TEST_SECRET");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->stdout_text.find("sk-do-not-leak"), std::string::npos);
  EXPECT_NE(result->stdout_text.find("ONLY=this"), std::string::npos);
}

TEST(Subprocess, OutputBeyondTheCapIsDroppedAndCounted) {
  ProcessOptions options = command({"/bin/sh", "-c", "head -c 10000 /dev/zero"});
  options.max_output_bytes = 1000;
  auto result = run_process(options);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->stdout_text.size(), 1000u);
  EXPECT_EQ(result->dropped_output_bytes, 9000u);
}

TEST(Subprocess, MissingProgramIsAStatusNamingIt) {
  auto result = run_process(command({"definitely-not-a-program-xyz"}));
  ASSERT_FALSE(result);
  EXPECT_NE(result.status().message().find("definitely-not-a-program-xyz"), std::string::npos);
}

TEST(Subprocess, WorkingDirectoryIsApplied) {
  testing::TemporaryDirectory dir;
  ProcessOptions options = command({"/bin/pwd"});
  options.working_directory = dir.path().string();
  auto result = run_process(options);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->stdout_text, std::filesystem::canonical(dir.path()).string() + "\n");
}

TEST(Subprocess, FindExecutableSearchesPath) {
  EXPECT_FALSE(find_executable("sh").empty());
  EXPECT_TRUE(find_executable("definitely-not-a-program-xyz").empty());
}

}  // namespace
}  // namespace tritongym::process
