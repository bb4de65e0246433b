#include "slurm/serve_script.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "support/test_support.hpp"
#include "tritongym/support/subprocess.hpp"

namespace tritongym::slurm {
namespace {

ServeJobInputs inputs() {
  ServeJobInputs in;
  in.servers_dir = "/shared/servers";
  in.working_dir = "/shared/tritongym";
  in.servers = 2;
  in.tritongym = {"/shared/tritongym/build/bin/tritongym", "--plugin-path", "/shared/it's here"};
  in.serve_options = {"--executor", "tritongym.executor.triton-cuda", "--executor-config", "{\"workers\": 4}",
                      "--token-file", "/shared/token"};
  in.written_at = "2026-12-07T08:00:00Z";
  return in;
}

bool has(const std::string& script, const std::string& text) { return script.find(text) != std::string::npos; }

TEST(ServeScript, OneServerPerNodeWithItsGpus) {
  ServeJobInputs in = inputs();
  in.gpus_per_server = 8;
  in.cpus_per_server = 32;
  in.options.partition = "gpu";
  in.options.account = "lab";
  in.options.time_limit = "1-0";
  in.drain_seconds_before_limit = 120;
  in.options.extra_sbatch = {"--qos=high", "--exclusive"};
  std::string script = serve_script(in);
  for (const char* line :
       {"#SBATCH --job-name=tritongym-serve\n", "#SBATCH --output=/shared/servers/logs/serve-%j.log\n",
        "#SBATCH --chdir=/shared/tritongym\n", "#SBATCH --nodes=2\n", "#SBATCH --ntasks-per-node=1\n",
        "#SBATCH --gres=gpu:8\n", "#SBATCH --cpus-per-task=32\n", "#SBATCH --partition=gpu\n",
        "#SBATCH --account=lab\n", "#SBATCH --time=1-0\n", "#SBATCH --signal=TERM@120\n",
        "#SBATCH --qos=high\n#SBATCH --exclusive\n",
        "tritongym=('/shared/tritongym/build/bin/tritongym' '--plugin-path' '/shared/it'\\''s here')\n",
        "serve_options=('--executor' 'tritongym.executor.triton-cuda' '--executor-config' '{\"workers\": 4}' "
        "'--token-file' '/shared/token')\n",
        "export TRITONGYM_ENDPOINTS_DIR='/shared/servers/endpoints'\n", "port=0\n",
        "srun --kill-on-bad-exit=0 bash -c", "serve --listen \"0.0.0.0:$port\" \"${serve_options[@]}\"\n"})
    EXPECT_TRUE(has(script, line)) << "missing: " << line << "\nin:\n" << script;
  EXPECT_FALSE(has(script, "--ntasks=")) << script;
  EXPECT_FALSE(has(script, "--gpus-per-task")) << script;
  // Every #SBATCH line comes before the first command: sbatch stops reading them there.
  EXPECT_LT(script.rfind("#SBATCH"), script.find("set -euo pipefail"));
}

TEST(ServeScript, ACountOfServersIsTasksEachWithItsGpus) {
  ServeJobInputs in = inputs();
  in.placement = ServerPlacement::by_count;
  in.servers = 3;
  in.gpus_per_server = 1;
  std::string script = serve_script(in);
  EXPECT_TRUE(has(script, "#SBATCH --ntasks=3\n")) << script;
  EXPECT_TRUE(has(script, "#SBATCH --gpus-per-task=1\n")) << script;
  EXPECT_FALSE(has(script, "--nodes=")) << script;
  EXPECT_FALSE(has(script, "--gres")) << script;
  EXPECT_FALSE(has(script, "--cpus-per-task")) << script;
  EXPECT_FALSE(has(script, "#SBATCH --partition")) << script;
  EXPECT_FALSE(has(script, "#SBATCH --signal")) << script;  // no time limit, no early signal
}

// The script as bash runs it, with srun replaced by a stand-in that runs the task command twice (tasks 0 and 1)
// and a stand-in tritongym that prints what it was given: each server gets its own endpoint file, in the
// endpoints folder, and the job's leftovers go when the script ends.
TEST(ServeScript, EachTaskGetsItsOwnEndpointFileAndLeftoversGo) {
  testing::TemporaryDirectory dir;
  std::string bin = (dir.path() / "bin").string();
  dir.write("bin/srun",
            "#!/bin/bash\n"
            "while [[ $1 == --* ]]; do shift; done\n"
            "for task in 0 1; do SLURM_PROCID=$task \"$@\"; done\n");
  dir.write("bin/fake-tritongym",
            "#!/bin/bash\n"
            "file=${@: -1}\n"
            "echo \"args: $*\" >> \"$(dirname \"$file\")/../calls.txt\"\n"
            "echo 'node:1' > \"$file\"\n");
  for (const char* name : {"bin/srun", "bin/fake-tritongym"})
    std::filesystem::permissions(dir.path() / name, std::filesystem::perms::owner_exec, std::filesystem::perm_options::add);
  ServeJobInputs in = inputs();
  in.servers_dir = (dir.path() / "servers").string();
  in.tritongym = {(dir.path() / "bin/fake-tritongym").string(), "--log-level", "debug"};
  std::string script = dir.write("serve.sbatch", serve_script(in));
  process::ProcessOptions options;
  options.argv = {"bash", script};
  options.environment = std::map<std::string, std::string>{
      {"PATH", bin + ":/usr/bin:/bin"}, {"SLURM_JOB_ID", "77"}, {"SLURM_JOB_NODELIST", "node[1-2]"}};
  options.timeout_s = 60;
  auto ran = process::run_process(options);
  ASSERT_TRUE(ran) << ran.status().message();
  EXPECT_TRUE(ran->succeeded()) << ran->stdout_text << ran->stderr_text;
  EXPECT_TRUE(has(ran->stdout_text, "== evaluation servers of job 77 on node[1-2]")) << ran->stdout_text;
  std::ifstream calls(dir.path() / "servers/calls.txt");
  std::string first, second;
  std::getline(calls, first);
  std::getline(calls, second);
  std::string endpoints = in.servers_dir + "/endpoints";
  EXPECT_EQ(first, "args: --log-level debug serve --listen 0.0.0.0:0 --executor tritongym.executor.triton-cuda "
                   "--executor-config {\"workers\": 4} --token-file /shared/token --endpoint-file " +
                       endpoints + "/77-0.endpoint");
  EXPECT_TRUE(has(second, "--endpoint-file " + endpoints + "/77-1.endpoint")) << second;
  // The stand-in servers exited without removing their files; the script's exit removed them.
  EXPECT_TRUE(std::filesystem::is_directory(endpoints));
  EXPECT_FALSE(std::filesystem::exists(endpoints + "/77-0.endpoint"));
  EXPECT_FALSE(std::filesystem::exists(endpoints + "/77-1.endpoint"));
}

TEST(ServeScript, OutsideSlurmItSaysHowToSubmitIt) {
  testing::TemporaryDirectory dir;
  ServeJobInputs in = inputs();
  in.servers_dir = (dir.path() / "servers").string();
  std::string script = dir.write("serve.sbatch", serve_script(in));
  process::ProcessOptions options;
  options.argv = {"env", "-u", "SLURM_JOB_ID", "bash", script};
  options.timeout_s = 60;
  auto ran = process::run_process(options);
  ASSERT_TRUE(ran);
  EXPECT_FALSE(ran->succeeded());
  EXPECT_TRUE(has(ran->stderr_text, "submit it with sbatch")) << ran->stderr_text;
}

}  // namespace
}  // namespace tritongym::slurm
