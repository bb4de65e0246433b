// `tritongym slurm` where no cluster is needed: --dry-run, refusals, a machine without Slurm's commands, and
// stand-ins for sbatch, squeue and scancel where an answer is needed that a real cluster cannot give on demand.
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

// A folder of stand-ins for Slurm's commands (bash scripts of builtins alone), for the cases a real cluster
// cannot be made to show on demand: sbatch refusing a job, squeue naming a job that runs.
fs::path stand_in_slurm(const TemporaryDirectory& dir, const std::map<std::string, std::string>& scripts) {
  for (const auto& [name, body] : scripts) {
    dir.write("bin/" + name, "#!/bin/bash\n" + body);
    fs::permissions(dir.path() / "bin" / name, fs::perms::owner_exec, fs::perm_options::add);
  }
  return dir.path() / "bin";
}

constexpr const char* kInterpreter = "tritongym.executor.triton-interpreter";

TEST(SlurmServeCli, DryRunPrintsTheScriptAndWritesNothing) {
  TemporaryDirectory dir;
  std::string token = dir.write("token", "a-secret-never-printed\n");
  fs::permissions(token, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace);
  std::string servers = (dir.path() / "servers").string();
  auto result = run_cli({"slurm", "serve", "--nodes", "2", "--gpus-per-server", "4", "--cpus-per-server", "16",
                         "--partition", "gpu", "--time", "8:00:00", "--extra-sbatch", "--qos=test", "--token-file",
                         token, "--dir", servers, "--executor", kInterpreter, "--queue", "8", "--dry-run"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  for (const std::string& expected :
       {std::string("#SBATCH --nodes=2\n"), std::string("#SBATCH --ntasks-per-node=1\n"),
        std::string("#SBATCH --gres=gpu:4\n"), std::string("#SBATCH --cpus-per-task=16\n"),
        std::string("#SBATCH --partition=gpu\n"), std::string("#SBATCH --time=8:00:00\n"),
        std::string("#SBATCH --signal=TERM@120\n"),  // the servers drain two minutes before the limit
        std::string("#SBATCH --qos=test\n"), "#SBATCH --output=" + servers + "/logs/serve-%j.log\n",
        "sbatch --parsable " + servers + "/serve.sbatch",
        "serve_options=('--token-file' '" + token + "' '--executor' '" + kInterpreter + "' '--queue' '8')\n",
        "export TRITONGYM_ENDPOINTS_DIR='" + servers + "/endpoints'\n"})
    EXPECT_NE(result.stdout_text.find(expected), std::string::npos) << "missing: " << expected << "\n" << result.stdout_text;
  EXPECT_EQ(result.stdout_text.find("a-secret"), std::string::npos);
  EXPECT_EQ(result.stderr_text.find("a-secret"), std::string::npos);
  EXPECT_FALSE(fs::exists(servers)) << "--dry-run wrote the servers' folder";
}

TEST(SlurmServeCli, ArgumentsAreCheckedBeforeAnythingIsWritten) {
  TemporaryDirectory dir;
  std::string token = dir.write("token", "t0ken\n");
  std::string servers = (dir.path() / "servers").string();
  auto refused = [&](std::vector<std::string> arguments, const std::string& said) {
    arguments.insert(arguments.begin(), {"slurm", "serve", "--dir", servers});
    auto result = run_cli(arguments);
    EXPECT_EQ(result.exit_code, 2) << said << "\n" << result.stderr_text;
    EXPECT_NE(result.stderr_text.find(said), std::string::npos) << result.stderr_text;
  };
  refused({"--dry-run"}, "slurm serve needs --token-file F");
  refused({"--token-file", dir.write("empty-token", "\n")}, "empty-token");
  refused({"--token-file", token, "--nodes", "2", "--count", "2"}, "not both");
  refused({"--token-file", token, "--count", "0"}, "--count must be 1 or more");
  refused({"--token-file", token, "--count", "2", "--port", "8500"}, "would ask for the same port");
  refused({"--token-file", token, "--port", "70000"}, "is not a port");
  refused({"--token-file", token, "--listen", "0.0.0.0:1"}, "--listen is set by slurm serve");
  refused({"--token-file", token, "--executor", "tritongym.executor.triton-interpeter"},
          "did you mean 'tritongym.executor.triton-interpreter'");
  refused({"--token-file", token, "--executor-config", "{workers: 2"}, "is not a JSON object");
  refused({"--token-file", token, "--root", (dir.path() / "no-tasks").string()}, "is not a folder");
  refused({"--token-file", token, "--time", "soon"}, "is not a Slurm time limit");
  refused({"--token-file", token, "--partition", "a b"}, "#SBATCH");
  refused({"--token-file", token, "--extra-sbatch", "exclusive"}, "'exclusive' is not an sbatch option");
  refused({"--token-file", token, "--workers", "2"}, "unrecognised option '--workers'");
  EXPECT_FALSE(fs::exists(servers));
}

TEST(SlurmServeCli, WithoutSlurmOnPathItSaysWhatIsMissing) {
  TemporaryDirectory dir;
  std::string servers = (dir.path() / "servers").string();
  auto result = run_cli_without_slurm({"slurm", "serve", "--token-file", dir.write("token", "t\n"), "--dir", servers,
                                       "--executor", kInterpreter},
                                      dir.path() / "bin");
  EXPECT_EQ(result.exit_code, 6) << result.stderr_text;
  EXPECT_NE(result.stderr_text.find("Slurm's squeue, sbatch are not on PATH"), std::string::npos) << result.stderr_text;
  EXPECT_FALSE(fs::exists(servers));
}

TEST(SlurmServeCli, WhatSbatchSaysWhenItRefusesIsShown) {
  TemporaryDirectory dir;
  std::string servers = (dir.path() / "servers").string();
  fs::path bin = stand_in_slurm(dir, {{"squeue", "exit 0\n"},
                                      {"sbatch", "echo 'sbatch: error: invalid partition specified: gpux' >&2\nexit 1\n"}});
  auto result = run_cli_without_slurm({"slurm", "serve", "--token-file", dir.write("token", "t\n"), "--dir", servers,
                                       "--partition", "gpux", "--executor", kInterpreter},
                                      bin);
  EXPECT_EQ(result.exit_code, 1) << result.stderr_text;
  EXPECT_NE(result.stderr_text.find("sbatch --parsable " + servers + "/serve.sbatch` failed"), std::string::npos)
      << result.stderr_text;
  EXPECT_NE(result.stderr_text.find("invalid partition specified: gpux"), std::string::npos) << result.stderr_text;
  EXPECT_TRUE(fs::exists(servers + "/serve.sbatch"));
  EXPECT_FALSE(fs::exists(servers + "/serve.json")) << "a job sbatch refused is recorded";
}

// squeue says job 12 runs and job 9 is gone: 12's endpoint is listed, 9's left out; stop cancels 12 alone, and a
// second `slurm serve` into the folder is refused while 12 runs.
TEST(SlurmServeCli, EndpointsAndStopGoByWhatSqueueSays) {
  TemporaryDirectory dir;
  std::string servers = (dir.path() / "servers").string();
  dir.write("servers/serve.json", R"({"schema": "tritongym.slurm-serve.v1", "servers_dir": ")" + servers +
                                      R"(", "jobs": [{"job": "9", "submitted_at": "2026-12-07T08:00:00Z", "servers": 1,)"
                                      R"( "placement": "nodes"}, {"job": "12", "submitted_at": "2026-12-07T09:00:00Z",)"
                                      R"( "servers": 2, "placement": "nodes"}]})");
  dir.write("servers/endpoints/12-0.endpoint", "# tritongym serve on node1 (pid 4); bearer token in /t\nnode1:40001\n");
  dir.write("servers/endpoints/12-1.endpoint", "# tritongym serve on node2 (pid 5)\nnode2:40002\n");
  dir.write("servers/endpoints/9-0.endpoint", "# killed before it could remove this\nnode3:40003\n");
  fs::path bin = stand_in_slurm(dir, {{"squeue", "echo '12|12|N/A|RUNNING|None'\n"},
                                      {"scancel", "echo \"$*\" > " + (dir.path() / "cancelled").string() + "\n"},
                                      {"sbatch", "echo 99\n"}});
  auto listed = run_cli_without_slurm({"slurm", "endpoints", servers}, bin);
  EXPECT_EQ(listed.exit_code, 0) << listed.stderr_text;
  EXPECT_EQ(listed.stdout_text, "node1:40001\nnode2:40002\n");
  EXPECT_NE(listed.stderr_text.find("left out: node3:40003"), std::string::npos) << listed.stderr_text;
  auto as_json = run_cli_without_slurm({"slurm", "endpoints", servers, "--json"}, bin);
  EXPECT_EQ(as_json.exit_code, 0) << as_json.stderr_text;
  EXPECT_NE(as_json.stdout_text.find(R"("address":"node3:40003")"), std::string::npos) << as_json.stdout_text;
  EXPECT_NE(as_json.stdout_text.find(R"("slurm_state":"RUNNING","live":true)"), std::string::npos) << as_json.stdout_text;

  auto again = run_cli_without_slurm({"slurm", "serve", "--token-file", dir.write("token", "t\n"), "--dir", servers,
                                      "--executor", kInterpreter},
                                     bin);
  EXPECT_EQ(again.exit_code, 1) << again.stderr_text;
  EXPECT_NE(again.stderr_text.find("has servers in Slurm already: job 12 (RUNNING)"), std::string::npos)
      << again.stderr_text;

  auto stopped = run_cli_without_slurm({"slurm", "serve", "stop", servers}, bin);
  EXPECT_EQ(stopped.exit_code, 0) << stopped.stderr_text;
  EXPECT_NE(stopped.stdout_text.find("job 12 (RUNNING): cancelled"), std::string::npos) << stopped.stdout_text;
  EXPECT_NE(stopped.stdout_text.find("job 9: not in Slurm's queue any more"), std::string::npos) << stopped.stdout_text;
  std::ifstream cancelled(dir.path() / "cancelled");
  std::string cancelled_jobs;
  std::getline(cancelled, cancelled_jobs);
  EXPECT_EQ(cancelled_jobs, "12");
}

TEST(SlurmServeCli, StopAndEndpointsNeedTheServersFolder) {
  TemporaryDirectory dir;
  auto stop = run_cli({"slurm", "serve", "stop", dir.path().string()});
  EXPECT_EQ(stop.exit_code, 2);
  EXPECT_NE(stop.stderr_text.find("holds no servers submitted to Slurm"), std::string::npos) << stop.stderr_text;
  auto listed = run_cli({"slurm", "endpoints", (dir.path() / "nowhere").string()});
  EXPECT_EQ(listed.exit_code, 2);
  EXPECT_NE(listed.stderr_text.find("is not a folder"), std::string::npos) << listed.stderr_text;
  // A folder whose servers have not written their files yet: nothing on stdout, exit 1.
  fs::create_directories(dir.path() / "servers");
  auto none = run_cli_without_slurm({"slurm", "endpoints", (dir.path() / "servers").string()}, dir.path() / "bin");
  EXPECT_EQ(none.exit_code, 1) << none.stderr_text;
  EXPECT_EQ(none.stdout_text, "");
  EXPECT_NE(none.stderr_text.find("squeue is not on PATH"), std::string::npos) << none.stderr_text;
  EXPECT_NE(none.stderr_text.find("no server listens yet"), std::string::npos) << none.stderr_text;
}

}  // namespace
}  // namespace tritongym::testing
