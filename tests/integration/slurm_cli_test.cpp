// `tritongym slurm` where no cluster is needed: --dry-run, refusals, and a machine without Slurm's commands.
// The real cluster's test is tests/slurm/slurm_test.sh (ctest label `slurm`).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "support/test_support.hpp"

namespace tritongym::testing {
namespace {

namespace fs = std::filesystem;

// The CLI with PATH reduced to a folder that holds no Slurm command.
process::ProcessResult run_cli_without_slurm(const std::vector<std::string>& arguments, const fs::path& empty_bin) {
  fs::create_directories(empty_bin);
  process::ProcessOptions options;
  options.argv = {cli_path()};
  options.argv.insert(options.argv.end(), arguments.begin(), arguments.end());
  options.working_directory = source_dir();
  std::map<std::string, std::string> environment;
  for (char** entry = environ; *entry; ++entry) {
    std::string text = *entry;
    size_t equals = text.find('=');
    if (equals != std::string::npos) environment[text.substr(0, equals)] = text.substr(equals + 1);
  }
  environment["PATH"] = empty_bin.string();
  options.environment = environment;
  options.timeout_s = 120;
  auto result = process::run_process(options);
  if (!result) ADD_FAILURE() << result.status().message();
  return result ? result.value() : process::ProcessResult{};
}

TEST(SlurmCli, DryRunPrintsBothScriptsAndWritesNothing) {
  TemporaryDirectory dir;
  std::string out = (dir.path() / "run").string();
  auto result = run_cli({"slurm", "examples/quickstart.yaml", "output.dir=" + out, "--shards", "3", "--partition", "cpu",
                         "--time", "1:00:00", "--extra-sbatch", "--qos=test", "--dry-run"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  for (const std::string& expected :
       {std::string("#SBATCH --array=0-2\n"), std::string("#SBATCH --partition=cpu\n"), std::string("#SBATCH --qos=test\n"),
        // quickstart: budget.max_wall_seconds 600, and a minute to record
        std::string("#SBATCH --signal=B:TERM@660\n"),
        "sbatch --parsable --dependency=afterany:<the array's job id> " + out + "/slurm/merge.sbatch",
        " run '" + out + "/slurm/run.yaml' --shard \"$index/$shards\"",
        "#SBATCH --output=" + out + "/slurm/logs/merge.log"})
    EXPECT_NE(result.stdout_text.find(expected), std::string::npos) << "missing: " << expected;
  EXPECT_FALSE(fs::exists(out)) << "--dry-run wrote the run folder";
}

TEST(SlurmCli, ArgumentsAreChecked) {
  auto no_shards = run_cli({"slurm", "examples/quickstart.yaml", "--dry-run"});
  EXPECT_EQ(no_shards.exit_code, 2);
  EXPECT_NE(no_shards.stderr_text.find("--shards N"), std::string::npos);
  EXPECT_EQ(run_cli({"slurm", "examples/quickstart.yaml", "--shards", "0", "--dry-run"}).exit_code, 2);
  auto spaced = run_cli({"slurm", "examples/quickstart.yaml", "output.dir=/tmp/a b", "--shards", "2", "--dry-run"});
  EXPECT_EQ(spaced.exit_code, 2);
  EXPECT_NE(spaced.stderr_text.find("#SBATCH"), std::string::npos) << spaced.stderr_text;
  auto bad_extra = run_cli({"slurm", "examples/quickstart.yaml", "--shards", "2", "--extra-sbatch", "qos=high", "--dry-run"});
  EXPECT_EQ(bad_extra.exit_code, 2);
  EXPECT_NE(bad_extra.stderr_text.find("'qos=high' is not an sbatch option"), std::string::npos);
}

TEST(SlurmCli, ABadRunFileIsRefusedBeforeAnythingIsSubmitted) {
  auto result = run_cli({"slurm", "examples/quickstart.yaml", "suites.0.tasks=[standard/vector-ad]", "--shards", "2",
                         "--dry-run"});
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_NE(result.stderr_text.find("did you mean 'standard/vector-add'"), std::string::npos) << result.stderr_text;
}

TEST(SlurmCli, WithoutSlurmOnPathItSaysWhatIsMissing) {
  TemporaryDirectory dir;
  auto result = run_cli_without_slurm(
      {"slurm", "examples/quickstart.yaml", "output.dir=" + (dir.path() / "run").string(), "--shards", "2"},
      dir.path() / "bin");
  EXPECT_EQ(result.exit_code, 6) << result.stderr_text;
  EXPECT_NE(result.stderr_text.find("Slurm's squeue, sbatch are not on PATH"), std::string::npos) << result.stderr_text;
  EXPECT_FALSE(fs::exists(dir.path() / "run" / "slurm" / "submissions.json"));
}

TEST(SlurmCli, AFolderSubmittedBeforeIsRefused) {
  TemporaryDirectory dir;
  dir.write("run/slurm/submissions.json", "{}");
  auto result = run_cli({"slurm", "examples/quickstart.yaml", "output.dir=" + (dir.path() / "run").string(), "--shards", "2"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.stderr_text.find("already submitted to Slurm"), std::string::npos) << result.stderr_text;
  EXPECT_NE(result.stderr_text.find("tritongym slurm resume"), std::string::npos);
}

TEST(SlurmCli, StatusAndResumeNeedASubmittedFolder) {
  TemporaryDirectory dir;
  for (const char* command : {"status", "resume"}) {
    auto result = run_cli({"slurm", command, dir.path().string()});
    EXPECT_EQ(result.exit_code, 2) << command;
    EXPECT_NE(result.stderr_text.find("holds no Slurm submission"), std::string::npos) << result.stderr_text;
  }
}

TEST(SlurmCli, StatusReadsTheStoresWithoutSlurm) {
  TemporaryDirectory dir;
  std::string run_dir = (dir.path() / "run").string();
  dir.write("run/slurm/submissions.json",
            "{\"schema\": \"tritongym.slurm.v1\", \"run_name\": \"quickstart\", \"run_dir\": \"" + run_dir +
                "\", \"shard_count\": 2, \"submissions\": [{\"submitted_at\": \"2026-12-07T08:00:00Z\", "
                "\"array_job\": \"12\", \"shards\": [0, 1], \"merge_job\": \"13\"}]}");
  auto result = run_cli_without_slurm({"slurm", "status", run_dir}, dir.path() / "bin");
  EXPECT_EQ(result.exit_code, 1) << result.stderr_text;
  EXPECT_NE(result.stdout_text.find("no store yet"), std::string::npos) << result.stdout_text;
  EXPECT_NE(result.stdout_text.find("12_1"), std::string::npos);
  EXPECT_NE(result.stdout_text.find("Slurm's state is not shown"), std::string::npos);
  EXPECT_NE(result.stdout_text.find("0 of 2 shards complete"), std::string::npos);
}

TEST(SlurmCli, ServeIsNotInThisVersion) {
  auto result = run_cli({"slurm", "serve"});
  EXPECT_EQ(result.exit_code, 5);
  EXPECT_NE(result.stderr_text.find("tritongym serve"), std::string::npos);
}

}  // namespace
}  // namespace tritongym::testing
