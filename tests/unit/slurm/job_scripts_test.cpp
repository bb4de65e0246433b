#include "slurm/job_scripts.hpp"

#include <gtest/gtest.h>

#include "support/test_support.hpp"
#include "tritongym/support/subprocess.hpp"

namespace tritongym::slurm {
namespace {

JobScriptInputs inputs() {
  JobScriptInputs in;
  in.run_name = "quickstart";
  in.run_dir = "/shared/runs/quickstart";
  in.working_dir = "/shared/tritongym";
  in.shard_count = 3;
  in.tritongym = {"/shared/tritongym/build/bin/tritongym", "--plugin-path", "/shared/it's here"};
  in.written_at = "2026-12-07T08:00:00Z";
  in.source = "examples/quickstart.yaml samples=2";
  return in;
}

TEST(JobScripts, ArraySpecCompressesRuns) {
  EXPECT_EQ(array_spec({0, 1, 2}), "0-2");
  EXPECT_EQ(array_spec({5, 0, 2, 1, 7, 6}), "0-2,5-7");
  EXPECT_EQ(array_spec({4}), "4");
  EXPECT_EQ(array_spec({1, 1, 3}), "1,3");
}

TEST(JobScripts, ShellQuoteSurvivesTheShell) {
  std::string tricky = "it's $HOME `x` \"y\" \\";
  process::ProcessOptions options;
  options.argv = {"bash", "-c", "printf %s " + shell_quote(tricky)};
  auto ran = process::run_process(options);
  ASSERT_TRUE(ran);
  EXPECT_EQ(ran->stdout_text, tricky);
}

TEST(JobScripts, TheArrayRunsOrResumesItsShard) {
  JobScriptInputs in = inputs();
  in.options.partition = "gpu";
  in.options.account = "lab";
  in.options.time_limit = "4:00:00";
  in.options.gpus_per_shard = 1;
  in.options.stop_seconds_before_limit = 660;
  in.options.extra_sbatch = {"--qos=high", "--mem=32G"};
  std::string script = shard_array_script(in);
  for (const char* line :
       {"#SBATCH --array=0-2\n", "#SBATCH --output=/shared/runs/quickstart/slurm/logs/shard-%a.log\n",
        "#SBATCH --open-mode=append\n", "#SBATCH --chdir=/shared/tritongym\n", "#SBATCH --requeue\n",
        "#SBATCH --partition=gpu\n", "#SBATCH --account=lab\n", "#SBATCH --time=4:00:00\n", "#SBATCH --gres=gpu:1\n",
        "#SBATCH --signal=B:TERM@660\n", "#SBATCH --qos=high\n#SBATCH --mem=32G\n",
        "exec \"${tritongym[@]}\" resume \"$shard_dir\"\n",
        "exec \"${tritongym[@]}\" run '/shared/runs/quickstart/slurm/run.yaml' --shard \"$index/$shards\"\n",
        "tritongym=('/shared/tritongym/build/bin/tritongym' '--plugin-path' '/shared/it'\\''s here')\n"})
    EXPECT_NE(script.find(line), std::string::npos) << "missing: " << line << "\nin:\n" << script;
  // Every #SBATCH line comes before the first command: sbatch stops reading them there.
  EXPECT_LT(script.rfind("#SBATCH"), script.find("set -euo pipefail"));
  EXPECT_EQ(script.find("--gres", script.find("set -euo")), std::string::npos);
}

TEST(JobScripts, NoTimeLimitNoSignalNoGpus) {
  std::string script = shard_array_script(inputs());
  EXPECT_EQ(script.find("#SBATCH --signal"), std::string::npos);
  EXPECT_EQ(script.find("#SBATCH --gres"), std::string::npos);
  EXPECT_EQ(script.find("#SBATCH --time"), std::string::npos);
}

TEST(JobScripts, TheMergeRebuildsMergedAndEndsWithStatus) {
  std::string script = merge_script(inputs());
  EXPECT_NE(script.find("#SBATCH --output=/shared/runs/quickstart/slurm/logs/merge.log\n"), std::string::npos);
  EXPECT_EQ(script.find("--array"), std::string::npos);
  EXPECT_EQ(script.find("--requeue"), std::string::npos);
  size_t merge = script.find("merge \"${stores[@]}\" --into \"$run_dir/merged.next\"");
  size_t swap = script.find("mv \"$run_dir/merged.next\" \"$run_dir/merged\"");
  size_t status = script.rfind("exec \"${tritongym[@]}\" slurm status \"$run_dir\"");
  ASSERT_NE(merge, std::string::npos) << script;
  EXPECT_LT(merge, swap);
  EXPECT_LT(swap, status);
}

TEST(JobScripts, ScriptsAreValidBash) {
  testing::TemporaryDirectory folder;
  for (const auto& text : {shard_array_script(inputs()), merge_script(inputs())}) {
    process::ProcessOptions options;
    options.argv = {"bash", "-n", folder.write("script.sh", text)};
    auto ran = process::run_process(options);
    ASSERT_TRUE(ran);
    EXPECT_TRUE(ran->succeeded()) << ran->stderr_text;
  }
}

TEST(JobScripts, TimeLimitsInSlurmsFormats) {
  EXPECT_EQ(parse_time_limit_seconds("30").value(), 1800);
  EXPECT_EQ(parse_time_limit_seconds("30:15").value(), 1815);
  EXPECT_EQ(parse_time_limit_seconds("4:00:00").value(), 14400);
  EXPECT_EQ(parse_time_limit_seconds("1-0").value(), 86400);
  EXPECT_EQ(parse_time_limit_seconds("2-12:30").value(), 2 * 86400 + 12 * 3600 + 30 * 60);
  EXPECT_EQ(parse_time_limit_seconds("1-00:00:10").value(), 86410);
  for (const char* bad : {"", "four hours", "1:2:3:4", "-5", "1--2", "1:", "12h"})
    EXPECT_EQ(parse_time_limit_seconds(bad).status().code(), StatusCode::invalid_argument) << bad;
}

TEST(JobScripts, SbatchValuesAndExtraOptionsAreChecked) {
  EXPECT_TRUE(check_sbatch_value("/shared/runs/a-b_c.1", "x").is_ok());
  for (const char* bad : {"/runs/with space", "/runs/100%", "/runs/it's", "a\nb"}) {
    Status status = check_sbatch_value(bad, "the run folder");
    EXPECT_EQ(status.code(), StatusCode::invalid_argument) << bad;
    EXPECT_NE(status.message().find("the run folder"), std::string::npos);
  }
  auto extra = parse_extra_sbatch({"--qos=high  --mem=32G", "-C a100"});
  EXPECT_FALSE(extra);
  auto good = parse_extra_sbatch({"--qos=high  --mem=32G", "--constraint=a100"});
  ASSERT_TRUE(good);
  EXPECT_EQ(good.value(), (std::vector<std::string>{"--qos=high", "--mem=32G", "--constraint=a100"}));
  EXPECT_FALSE(parse_extra_sbatch({"--comment='x'"}));
}

}  // namespace
}  // namespace tritongym::slurm
