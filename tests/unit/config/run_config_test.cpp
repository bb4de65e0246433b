#include "config/run_config.hpp"

#include <gtest/gtest.h>

#include "support/test_support.hpp"

namespace tritongym::config {
namespace {

using testing::TemporaryDirectory;

constexpr const char* kRun = R"(name: exp
suites:
  - config: {root: tasks}
    splits: [standard]
    limit: 3
models:
  - name: m1
    backend: tritongym.backend.scripted
    config:
      replies: [{content: hi}]
workflows:
  - flows/one.yaml
  - name: inline
    plugin: tritongym.workflow.one-shot
budget:
  max_turns: 7
  max_calls_per_tool: {test: 3}
  max_dollars: 2.5
samples: 4
output: {dir: out}
)";

TEST(RunConfig, LoadsTypesAndInlinesWorkflowFiles) {
  TemporaryDirectory dir;
  dir.write("flows/one.yaml", "name: from-file\nplugin: tritongym.workflow.one-shot\nconfig: {max_output_tokens: 10}\n");
  auto run = load_run_config(dir.write("run.yaml", kRun), {}, "");
  ASSERT_TRUE(run) << run.status().to_string();
  EXPECT_EQ(run->name, "exp");
  ASSERT_EQ(run->suites.size(), 1u);
  EXPECT_EQ(run->suites[0].plugin.id, "tritongym.suite.directory");  // the default suite plugin
  EXPECT_EQ(run->suites[0].splits, std::vector<std::string>{"standard"});
  EXPECT_EQ(run->suites[0].limit, 3);
  ASSERT_EQ(run->models.size(), 1u);
  EXPECT_EQ(run->models[0].backend.config_json, R"({"replies":[{"content":"hi"}]})");
  ASSERT_EQ(run->workflows.size(), 2u);
  EXPECT_EQ(run->workflows[0].name, "from-file");
  EXPECT_EQ(run->workflows[0].plugin.config_json, R"({"max_output_tokens":10})");
  // Errors in a workflow file's config point into that file.
  EXPECT_NE(run->workflows[0].plugin.config_sources.locate("/max_output_tokens").file.find("flows/one.yaml"),
            std::string::npos);
  EXPECT_EQ(run->executor.id, "auto");
  EXPECT_EQ(run->budget.max_turns, 7);
  EXPECT_EQ(run->budget.max_calls_per_tool.at("test"), 3);
  EXPECT_EQ(run->budget.max_dollars, 2.5);
  EXPECT_FALSE(run->budget.max_gpu_seconds.has_value());
  EXPECT_EQ(run->samples, 4);
  EXPECT_TRUE(std::filesystem::path(run->output_dir).is_absolute());
  // The resolved tree has the workflow file inlined.
  EXPECT_TRUE(run->resolved.find("workflows")->items()[0].is_mapping());
}

TEST(RunConfig, OverridesApplyBeforeValidation) {
  TemporaryDirectory dir;
  dir.write("flows/one.yaml", "name: from-file\nplugin: tritongym.workflow.one-shot\n");
  auto run = load_run_config(dir.write("run.yaml", kRun), {"samples=2", "budget.max_turns=1"}, "");
  ASSERT_TRUE(run) << run.status().to_string();
  EXPECT_EQ(run->samples, 2);
  EXPECT_EQ(run->budget.max_turns, 1);
  auto bad = load_run_config(dir.path() / "run.yaml", {"samples=0"}, "");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.status().location().find("samples=0"), std::string::npos) << bad.status().location();
}

TEST(RunConfig, MissingWorkflowFileSaysWhere) {
  TemporaryDirectory dir;
  std::string file = dir.write("run.yaml", kRun);
  auto run = load_run_config(file, {}, "");
  ASSERT_FALSE(run);
  EXPECT_EQ(run.status().location(), file + ":12:5");
  EXPECT_NE(run.status().message().find("flows/one.yaml"), std::string::npos);
}

TEST(RunConfig, DuplicateModelNamesAreRejected) {
  TemporaryDirectory dir;
  std::string file = dir.write("run.yaml",
                               "name: x\nsuites: [{}]\nmodels:\n  - {name: a, backend: b}\n  - {name: a, backend: c}\n"
                               "workflows: [{name: w, plugin: p}]\n");
  auto run = load_run_config(file, {}, "");
  ASSERT_FALSE(run);
  EXPECT_NE(run.status().message().find("two models are named 'a'"), std::string::npos);
  EXPECT_EQ(run.status().location(), file + ":5:12");
}

TEST(RunConfig, UnknownTopLevelKeySuggests) {
  TemporaryDirectory dir;
  std::string file = dir.write("run.yaml", "name: x\nsuites: []\nmodels: []\nworkflows: []\nbugdet: {}\n");
  auto run = load_run_config(file, {}, "");
  ASSERT_FALSE(run);
  EXPECT_EQ(run.status().location(), file + ":5:1");
  EXPECT_NE(run.status().message().find("did you mean 'budget'"), std::string::npos);
}

TEST(RunConfig, WorkflowFilesResolveAgainstTheProjectRoot) {
  TemporaryDirectory dir;
  std::string file = dir.write("elsewhere/run.yaml",
                               "name: x\nsuites: [{}]\nmodels: [{name: a, backend: b}]\nworkflows: [workflows/one-shot.yaml]\n");
  auto run = load_run_config(file, {}, testing::source_dir());
  ASSERT_TRUE(run) << run.status().to_string();
  EXPECT_EQ(run->workflows[0].plugin.id, "tritongym.workflow.one-shot");
}

TEST(RunConfig, ToolsAreIdsOrPluginsWithConfigAndNeverTwice) {
  TemporaryDirectory dir;
  dir.write("flows/one.yaml", "name: from-file\nplugin: tritongym.workflow.one-shot\n");
  std::string with_tools = std::string(kRun) +
                           "tools:\n  - tritongym.tool.test\n  - plugin: tritongym.tool.benchmark\n"
                           "    config: {reveal_oracle: true}\n";
  auto run = load_run_config(dir.write("run.yaml", with_tools), {}, "");
  ASSERT_TRUE(run) << run.status().to_string();
  ASSERT_EQ(run->tools.size(), 2u);
  EXPECT_EQ(run->tools[0].id, "tritongym.tool.test");
  EXPECT_EQ(run->tools[0].config_json, "{}");
  EXPECT_EQ(run->tools[1].id, "tritongym.tool.benchmark");
  EXPECT_EQ(run->tools[1].config_json, R"({"reveal_oracle":true})");

  auto twice = load_run_config(dir.write("twice.yaml", std::string(kRun) + "tools: [tritongym.tool.test, tritongym.tool.test]\n"),
                               {}, "");
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.status().message().find("listed twice"), std::string::npos) << twice.status().to_string();
  EXPECT_NE(twice.status().location().find("twice.yaml:"), std::string::npos) << twice.status().to_string();
}

TEST(RunConfig, TheQuickstartLoads) {
  auto run = load_run_config(testing::source_dir() + "/examples/quickstart.yaml", {}, testing::source_dir());
  ASSERT_TRUE(run) << run.status().to_string();
  EXPECT_EQ(run->name, "quickstart");
  EXPECT_FALSE(run->models.empty());
}

}  // namespace
}  // namespace tritongym::config
