// The CLI end to end, through the real executable and the real plugins.
#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "plugins/manifest.hpp"
#include "tritongym/support/child_process.hpp"
#include "support/test_support.hpp"

namespace tritongym::testing {
namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream file(path);
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

// One JSON object a line of stdout (eval --batch).
std::vector<boost::json::object> json_lines(const process::ProcessResult& result) {
  std::vector<boost::json::object> lines;
  std::istringstream out(result.stdout_text);
  for (std::string line; std::getline(out, line);) lines.push_back(boost::json::parse(line).as_object());
  return lines;
}

boost::json::value parse_stdout(const process::ProcessResult& result) {
  boost::system::error_code error;
  auto value = boost::json::parse(result.stdout_text, error);
  EXPECT_FALSE(error) << "stdout is not JSON: " << result.stdout_text.substr(0, 500);
  return value;
}

TEST(Cli, HelpListsEveryCommand) {
  auto result = run_cli({"--help"});
  EXPECT_EQ(result.exit_code, 0);
  for (const char* command : {"run", "resume", "eval", "report", "merge", "export", "plugins", "tasks", "doctor"})
    EXPECT_NE(result.stdout_text.find(std::string("  ") + command), std::string::npos) << command;
}

TEST(Cli, HelpAfterACommandDescribesThatCommand) {
  auto eval = run_cli({"eval", "--help"});
  EXPECT_EQ(eval.exit_code, 0) << eval.stderr_text;
  EXPECT_NE(eval.stdout_text.find("usage: tritongym eval"), std::string::npos) << eval.stdout_text;
  EXPECT_EQ(eval.stdout_text.find("commands:"), std::string::npos) << "not the global help: " << eval.stdout_text;
  auto tasks = run_cli({"tasks", "check", "-h"});
  EXPECT_EQ(tasks.exit_code, 0) << tasks.stderr_text;
  EXPECT_NE(tasks.stdout_text.find("usage: tritongym tasks"), std::string::npos) << tasks.stdout_text;
  EXPECT_NE(tasks.stdout_text.find("--split"), std::string::npos) << tasks.stdout_text;
}

TEST(Cli, AGlobalOptionAfterTheCommandSaysWhereItGoes) {
  auto result = run_cli({"eval", "--log-level", "warn", "--task", "standard/softmax"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.stderr_text.find("'--log-level' is a global option: put it before the command"), std::string::npos)
      << result.stderr_text;
}

TEST(Cli, VersionPrintsTheFingerprint) {
  auto result = run_cli({"--version"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_NE(result.stdout_text.find("cxx11abi="), std::string::npos);
}

TEST(Cli, NoCommandIsAUsageError) { EXPECT_EQ(run_cli({}).exit_code, 2); }

TEST(Cli, UnknownCommandSuggests) {
  auto result = run_cli({"plugns"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.stderr_text.find("did you mean 'plugins'"), std::string::npos) << result.stderr_text;
}

TEST(Cli, PluginsListJsonShowsTheShippedPlugins) {
  auto result = run_cli({"plugins", "list", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  auto json = parse_stdout(result);
  std::map<std::string, std::string> kinds;
  for (const auto& plugin : json.at("plugins").as_array())
    kinds[std::string(plugin.at("id").as_string())] = std::string(plugin.at("kind").as_string());
  EXPECT_EQ(kinds["tritongym.suite.directory"], "suite");
  EXPECT_EQ(kinds["tritongym.backend.scripted"], "backend");
  EXPECT_EQ(kinds["tritongym.workflow.one-shot"], "workflow");
  // The five evaluating tools are one library, whose manifest declares all five.
  std::map<std::string, std::string> libraries;
  for (const auto& plugin : json.at("plugins").as_array())
    libraries[std::string(plugin.at("id").as_string())] = std::string(plugin.at("library").as_string());
  for (const char* tool : {"compile", "test", "benchmark", "profile", "submit"}) {
    const std::string id = std::string("tritongym.tool.") + tool;
    EXPECT_EQ(kinds[id], "tool") << id;
    EXPECT_EQ(libraries[id], libraries["tritongym.tool.compile"]) << id;
  }
  EXPECT_NE(libraries["tritongym.tool.docs"], libraries["tritongym.tool.compile"]);
  for (const auto& plugin : json.at("plugins").as_array())
    if (plugin.at("id") == "tritongym.tool.test") {
      EXPECT_EQ(plugin.at("library_ids").as_array().size(), 5u);
    }
}

TEST(Cli, PluginsListFiltersByKind) {
  auto result = run_cli({"plugins", "list", "--kind", "workflow"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_NE(result.stdout_text.find("tritongym.workflow.one-shot"), std::string::npos);
  EXPECT_EQ(result.stdout_text.find("tritongym.backend.scripted"), std::string::npos);
  EXPECT_EQ(run_cli({"plugins", "list", "--kind", "workflw"}).exit_code, 2);
}

TEST(Cli, PluginsListDoesNotRunPluginCode) {
  // A plugin whose registration throws, and one with no entry point, are listed all the same.
  auto result = run_cli({"--plugin-path", fixture_plugin_dir(), "plugins", "list", "--json"});
  auto json = parse_stdout(result);
  bool listed = false;
  for (const auto& plugin : json.at("plugins").as_array())
    listed = listed || plugin.at("id") == "fixture.workflow.throwing-register";
  EXPECT_TRUE(listed);
  EXPECT_EQ(json.at("manifest_errors").as_array().size(), 1u);  // bad-manifest
}

TEST(Cli, PluginsDoctorLoadsEachAndShowsWhyOthersFail) {
  auto clean = run_cli({"plugins", "doctor"});
  EXPECT_EQ(clean.exit_code, 0) << clean.stdout_text << clean.stderr_text;
  size_t builtin = plugins::scan_manifests({builtin_plugin_dir()}).manifests.size();
  std::string all_loaded = std::to_string(builtin) + " of " + std::to_string(builtin) + " plugins loaded";
  EXPECT_NE(clean.stdout_text.find(all_loaded), std::string::npos) << clean.stdout_text;

  auto broken = run_cli({"--plugin-path", fixture_plugin_dir(), "plugins", "doctor", "--json"});
  EXPECT_EQ(broken.exit_code, 4);
  auto json = parse_stdout(broken);
  std::map<std::string, std::string> reasons;
  for (const auto& plugin : json.at("plugins").as_array())
    reasons[std::string(plugin.at("id").as_string())] = std::string(plugin.at("reason").as_string());
  EXPECT_NE(reasons["fixture.workflow.bad-abi"].find("ABI version 999"), std::string::npos);
  EXPECT_NE(reasons["fixture.workflow.no-entry"].find("entry point"), std::string::npos);
  EXPECT_EQ(reasons["fixture.workflow.good"], "");
  EXPECT_EQ(reasons["tritongym.workflow.one-shot"], "");
  EXPECT_EQ(reasons["fixture.workflow.second"], "");  // one of two plugins of one library
  EXPECT_NE(reasons["fixture.workflow.present"].find("declares 'fixture.workflow.absent', which it does not register"),
            std::string::npos) << reasons["fixture.workflow.present"];
  EXPECT_NE(reasons["fixture.workflow.declared-a"].find("registers 'fixture.workflow.stowaway'"), std::string::npos);
}

TEST(Cli, PluginPathFromTheEnvironment) {
  process::ProcessOptions options;
  options.argv = {cli_path(), "plugins", "list"};
  std::map<std::string, std::string> environment;  // this process's environment, plus the variable
  for (char** entry = environ; *entry; ++entry) {
    std::string text = *entry;
    size_t equals = text.find('=');
    if (equals != std::string::npos) environment[text.substr(0, equals)] = text.substr(equals + 1);
  }
  environment["TRITONGYM_PLUGIN_PATH"] = fixture_plugin_dir() + "/good";
  options.environment = environment;
  auto result = process::run_process(options);
  ASSERT_TRUE(result);
  EXPECT_NE(result->stdout_text.find("fixture.workflow.good"), std::string::npos);
}

TEST(Cli, DoctorOnThisMachineSaysWhatIsMissingWithoutCrashing) {
  auto result = run_cli({"doctor", "--json"}, "", 180);
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  auto json = parse_stdout(result);
  bool has_gpu = !json.at("gpus").as_array().empty();
  for (const auto& capability : json.at("capabilities").as_array()) {
    std::string name(capability.at("name").as_string());
    if (name.find("CUDA executor") != std::string::npos) {
      EXPECT_EQ(capability.at("available").as_bool(), has_gpu && json.at("python").at("torch_cuda").as_bool());
      if (!has_gpu) {
        EXPECT_FALSE(capability.at("missing").as_string().empty());
      }
    }
    if (name.find("plugins") != std::string::npos) {
      EXPECT_TRUE(capability.at("available").as_bool());
    }
  }
  // The kernel's Landlock ABI, read by the host as the worker's sandbox reads it.
  if (std::string executable(json.at("python").at("executable").as_string()); !executable.empty()) {
    process::ProcessOptions python;
    python.argv = {executable, "-c", "from tritongym_worker.sandbox import landlock_abi; print(landlock_abi())"};
    python.environment = std::map<std::string, std::string>{
        {"PYTHONPATH", source_dir() + "/plugins/executors/worker"}, {"PATH", "/usr/bin:/bin"}};
    auto worker_abi = process::run_process(python);
    ASSERT_TRUE(worker_abi);
    EXPECT_EQ(std::to_string(json.at("landlock_abi").as_int64()) + "\n", worker_abi->stdout_text)
        << worker_abi->stderr_text;
    // What a candidate's child gets, by the worker's own probe: the seccomp filter at least, on any Linux we run on.
    const auto& sandbox = json.at("sandbox").as_object();
    EXPECT_TRUE(sandbox.at("probed").as_bool()) << boost::json::serialize(sandbox);
    EXPECT_NE(boost::json::serialize(sandbox.at("network")).find("\"seccomp\""), std::string::npos)
        << boost::json::serialize(sandbox);
  }
  auto text = run_cli({"doctor"}, "", 180);
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.stdout_text.find("capability"), std::string::npos);
  EXPECT_NE(text.stdout_text.find("\nsandbox "), std::string::npos) << text.stdout_text;
  EXPECT_NE(text.stdout_text.find("candidates confined (executor sandbox: required)"), std::string::npos)
      << text.stdout_text;
  if (!has_gpu) {
    EXPECT_NE(text.stdout_text.find("GPU           none"), std::string::npos) << text.stdout_text;
  }
}

TEST(Cli, TasksListShowsTheShippedTasks) {
  auto result = run_cli({"tasks", "list", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  auto json = parse_stdout(result);
  std::set<std::string> ids;
  for (const auto& task : json.as_array()) ids.insert(std::string(task.at("id").as_string()));
  EXPECT_TRUE(ids.count("standard/vector-add"));
  EXPECT_TRUE(ids.count("standard/softmax"));
  auto filtered = parse_stdout(run_cli({"tasks", "list", "--json", "--split", "ood"}));
  for (const auto& task : filtered.as_array()) EXPECT_EQ(task.at("split"), "ood");
}

TEST(Cli, TasksListReportsABrokenTaskFile) {
  auto result = run_cli({"tasks", "list", "--root", source_dir() + "/tests/fixtures/suites"});
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_NE(result.stderr_text.find("typo/task.yaml:4:1"), std::string::npos) << result.stderr_text;
}

TEST(Cli, RunCheckPrintsTheResolvedConfig) {
  auto result = run_cli({"run", "examples/quickstart.yaml", "--check", "samples=3"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_NE(result.stdout_text.find("plugin: tritongym.workflow.one-shot"), std::string::npos);  // inlined file
  EXPECT_NE(result.stdout_text.find("samples: 3"), std::string::npos);
  EXPECT_NE(result.stderr_text.find("3 tasks x 2 models x 2 workflows x 3 samples = 36 episodes"), std::string::npos)
      << result.stderr_text;
}

TEST(Cli, RunChecksEveryToolItsFileConfigures) {
  auto result = run_cli({"run", "examples/quickstart.yaml", "--check",
                         "tools=[{plugin: tritongym.tool.benchmark, config: {reveal_orcale: true}}]"});
  EXPECT_EQ(result.exit_code, 3) << result.stdout_text << result.stderr_text;
  EXPECT_NE(result.stderr_text.find("did you mean 'reveal_oracle'"), std::string::npos) << result.stderr_text;
  auto unknown = run_cli({"run", "examples/quickstart.yaml", "--check", "tools=[tritongym.tool.tset]"});
  EXPECT_EQ(unknown.exit_code, 3) << unknown.stderr_text;
  EXPECT_NE(unknown.stderr_text.find("tritongym.tool.test"), std::string::npos) << unknown.stderr_text;
}

TEST(Cli, RunWritesTheResolvedConfigAndTheStore) {
  TemporaryDirectory dir;
  auto result = run_cli({"run", "examples/quickstart.yaml", "output.dir=" + dir.path().string() + "/out",
                         "suites.0.tasks=[standard/vector-add]", "executor.plugin=tritongym.executor.triton-interpreter"});
  EXPECT_EQ(result.exit_code, 0) << result.stderr_text;
  // 1 task x 2 models x 2 workflows; the run ends with the leaderboard and the report's paths.
  EXPECT_NE(result.stdout_text.find("4 of 4 episodes recorded, 4 passed; finished"), std::string::npos)
      << result.stdout_text;
  EXPECT_NE(result.stdout_text.find("Pass@1"), std::string::npos) << result.stdout_text;
  EXPECT_NE(result.stdout_text.find("HTML report: " + (dir.path() / "out" / "report.html").string()), std::string::npos)
      << result.stdout_text;
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "out" / "run.sqlite"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "out" / "report.html"));
  std::ifstream trajectories(dir.path() / "out" / "trajectories.jsonl");
  int lines = 0;
  for (std::string line; std::getline(trajectories, line);) {
    ++lines;
    EXPECT_NE(line.find("\"transcript\":["), std::string::npos) << line.substr(0, 300);
  }
  EXPECT_EQ(lines, 4);
  // `report` reads the same store back: the JSON document names the run and counts its episodes.
  auto report = run_cli({"report", (dir.path() / "out").string(), "--json"});
  ASSERT_EQ(report.exit_code, 0) << report.stderr_text;
  boost::system::error_code error;
  auto json = boost::json::parse(report.stdout_text, error);
  ASSERT_FALSE(error) << report.stdout_text.substr(0, 500);
  EXPECT_NE(report.stdout_text.find("\"quickstart\""), std::string::npos);
  EXPECT_NE(report.stdout_text.find("tritongym.report.v1"), std::string::npos);
  std::ifstream resolved(dir.path() / "out" / "resolved-config.yaml");
  ASSERT_TRUE(resolved.good());
  std::stringstream text;
  text << resolved.rdbuf();
  EXPECT_NE(text.str().find("name: quickstart"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "out" / "tritongym.log"));
}

TEST(Cli, RunReportsConfigErrorsWithFileLineColumnAndSuggestion) {
  TemporaryDirectory dir;
  std::string file = dir.write("bad.yaml",
                               "name: bad\nsuites: [{}]\nmodels:\n  - name: m\n    backend: tritongym.backend.scriptd\n"
                               "workflows: [{name: w, plugin: tritongym.workflow.one-shot}]\n");
  auto unknown_plugin = run_cli({"run", file, "--check"});
  EXPECT_EQ(unknown_plugin.exit_code, 3);
  EXPECT_NE(unknown_plugin.stderr_text.find(file + ":5:14"), std::string::npos) << unknown_plugin.stderr_text;
  EXPECT_NE(unknown_plugin.stderr_text.find("did you mean 'tritongym.backend.scripted'"), std::string::npos);

  std::string plugin_config = dir.write(
      "plugin-config.yaml",
      "name: bad\nsuites: [{}]\nmodels:\n  - name: m\n    backend: tritongym.backend.scripted\n    config:\n"
      "      replies: [{content: hi}]\n      model_nme: x\nworkflows: [{name: w, plugin: tritongym.workflow.one-shot}]\n");
  auto bad_key = run_cli({"run", plugin_config, "--check"});
  EXPECT_EQ(bad_key.exit_code, 3);
  EXPECT_NE(bad_key.stderr_text.find(plugin_config + ":8:7"), std::string::npos) << bad_key.stderr_text;
  EXPECT_NE(bad_key.stderr_text.find("did you mean 'model_name'"), std::string::npos) << bad_key.stderr_text;

  std::string broken_yaml = dir.write("broken.yaml", "name: [unclosed\n");
  auto syntax = run_cli({"run", broken_yaml});
  EXPECT_EQ(syntax.exit_code, 3);
  EXPECT_NE(syntax.stderr_text.find(broken_yaml + ":"), std::string::npos) << syntax.stderr_text;
}

TEST(Cli, RunRejectsAnUnknownTaskWithASuggestion) {
  auto result = run_cli({"run", "examples/quickstart.yaml", "--check", "suites.0.tasks=[standard/vector-ad]"});
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_NE(result.stderr_text.find("did you mean 'standard/vector-add'"), std::string::npos) << result.stderr_text;
}

TEST(Cli, RunOfAMissingFileIsAUsageError) {
  auto result = run_cli({"run", "no/such/file.yaml"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.stderr_text.find("no/such/file.yaml"), std::string::npos);
}

TEST(Cli, RunEngineCommandsWithoutTheirArgumentsAreUsageErrors) {
  for (const char* command : {"resume", "merge", "export"}) {
    auto result = run_cli({command});
    EXPECT_EQ(result.exit_code, 2) << command;
    EXPECT_NE(result.stderr_text.find("error: " + std::string(command) + " needs"), std::string::npos)
        << command << ": " << result.stderr_text;
  }
}

TEST(Cli, EvalJudgesACandidateFile) {
  std::string candidates = source_dir() + "/tests/fixtures/candidates/vector-add/";
  auto passed = run_cli({"eval", "--task", "standard/vector-add", "--code", candidates + "correct.py", "--json",
                         "--executor", "tritongym.executor.triton-interpreter", "--seeds", "1"});
  ASSERT_EQ(passed.exit_code, 0) << passed.stdout_text << passed.stderr_text;
  auto json = parse_stdout(passed);
  EXPECT_EQ(json.at("verdict"), "passed");
  EXPECT_EQ(json.at("executor"), "tritongym.executor.triton-interpreter");  // the id; the executor's record is `record`
  ASSERT_TRUE(json.as_object().contains("record") && json.at("record").is_object()) << passed.stdout_text;
  EXPECT_TRUE(json.at("record").as_object().contains("phase_seconds")) << passed.stdout_text;
  EXPECT_FALSE(json.at("shapes").as_array().empty());

  auto wrong = run_cli({"eval", "--task", "standard/vector-add", "--code", candidates + "wrong.py", "--seeds", "1"});
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_EQ(wrong.stdout_text.rfind("wrong_answer:", 0), 0u) << wrong.stdout_text;
  // `auto` says which executor it chose and why.
  EXPECT_NE(wrong.stderr_text.find("executor tritongym.executor.triton-"), std::string::npos) << wrong.stderr_text;
}

TEST(Cli, ACandidateCannotReadTheHostsEnvironmentThroughProc) {
  process::ProcessOptions options;
  options.argv = {cli_path(), "--log-level", "warn", "eval", "--task", "standard/vector-add", "--seeds", "1",
                  "--executor", "tritongym.executor.triton-interpreter", "--code",
                  source_dir() + "/tests/fixtures/candidates/vector-add/reads_host_environment.py"};
  options.working_directory = source_dir();
  std::map<std::string, std::string> environment;
  for (char** entry = environ; *entry; ++entry) {
    std::string text = *entry;
    size_t equals = text.find('=');
    if (equals != std::string::npos) environment[text.substr(0, equals)] = text.substr(equals + 1);
  }
  environment["OPENAI_API_KEY"] = "sk-tritongym-secret-in-the-host";  // in the host's initial environment
  options.environment = environment;
  options.timeout_s = 180;
  auto result = process::run_process(options);
  ASSERT_TRUE(result);
  EXPECT_NE(result->stdout_text.find("NO LEAK"), std::string::npos) << result->stdout_text << result->stderr_text;
  EXPECT_EQ(result->stdout_text.rfind("LEAK [", 0), std::string::npos) << result->stdout_text;
  EXPECT_EQ(result->stdout_text.find("\nLEAK ["), std::string::npos) << result->stdout_text;
}

TEST(Cli, EvalBatchJudgesEveryLineThroughOneExecutor) {
  TemporaryDirectory dir;
  std::string fixtures = source_dir() + "/tests/fixtures/candidates/vector-add/";
  std::string batch = dir.write("batch.txt", "# task candidate\nstandard/vector-add " + fixtures + "correct.py\n\n"
                                             "standard/vector-add " + fixtures + "wrong.py\n");
  auto result = run_cli({"eval", "--batch", batch, "--executor", "tritongym.executor.triton-interpreter", "--seeds", "1"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  std::vector<boost::json::object> lines = json_lines(result);
  ASSERT_EQ(lines.size(), 2u) << result.stdout_text;
  EXPECT_EQ(lines[0].at("verdict"), "passed");
  EXPECT_EQ(lines[1].at("verdict"), "wrong_answer");
  EXPECT_EQ(lines[1].at("task"), "standard/vector-add");
  EXPECT_GT(lines[0].at("host_seconds").as_double(), 0.0);
  // When each was started, since judging began: in the file's order, the first at once.
  EXPECT_GE(lines[0].at("started_s").as_double(), 0.0);
  EXPECT_LT(lines[0].at("started_s").as_double(), 1.0);
  EXPECT_GE(lines[1].at("started_s").as_double(), lines[0].at("started_s").as_double());
  for (const auto& line : lines) {  // the record's phases, copied out of it; the record itself left out
    EXPECT_TRUE(line.contains("phase_seconds") && line.at("phase_seconds").is_object()) << boost::json::serialize(line);
    EXPECT_FALSE(line.contains("record"));
    EXPECT_FALSE(line.contains("executor"));
  }
  EXPECT_NE(result.stderr_text.find("the executor started in"), std::string::npos) << result.stderr_text;
}

TEST(Cli, EvalBatchStartsTheCandidatesThatAutotuneFirst) {
  // An autotuner benchmarks every config at every key: started last, it would end the batch long after the
  // rest. One slot, so the order in which they start is the whole story; the results keep the file's order.
  TemporaryDirectory dir;
  std::string fixtures = source_dir() + "/tests/fixtures/candidates/vector-add/";
  std::string batch = dir.write("batch.txt", "standard/vector-add " + fixtures + "correct.py\nstandard/vector-add " +
                                                 fixtures + "wrong.py\nstandard/vector-add " + fixtures + "autotuned.py\n");
  auto result = run_cli({"eval", "--batch", batch, "--executor", "tritongym.executor.triton-interpreter", "--seeds", "1",
                         "--executor-config", R"({"workers": 1})"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  std::vector<boost::json::object> lines = json_lines(result);
  ASSERT_EQ(lines.size(), 3u) << result.stdout_text;
  EXPECT_EQ(std::string(lines[0].at("code").as_string()), fixtures + "correct.py");
  EXPECT_EQ(std::string(lines[2].at("code").as_string()), fixtures + "autotuned.py");
  EXPECT_EQ(lines[2].at("verdict"), "passed") << boost::json::serialize(lines[2]);
  const double autotuned = lines[2].at("started_s").as_double();
  const double correct = lines[0].at("started_s").as_double(), wrong = lines[1].at("started_s").as_double();
  EXPECT_LT(autotuned, correct);
  EXPECT_LT(correct, wrong);
  // One slot: each starts when the one before it ended.
  EXPECT_GE(correct, autotuned + lines[2].at("host_seconds").as_double() - 0.05);
}

TEST(Cli, EvalBatchHasTheCasesOfTheNextLinesMadeWhileItJudges) {
  // One slot and three tasks: while the first line is judged, the executor is told of the next two
  // (Executor::expect), and the reference worker makes their cases meanwhile. Each line says how many cases were
  // made for it and how many it found made. --in-order: cumsum's oracle autotunes, and would otherwise go first.
  TemporaryDirectory dir;
  std::string oracles = source_dir() + "/tasks/standard/";
  std::string batch = dir.write("batch.txt", "standard/row-sum " + oracles + "row-sum/oracle.py\nstandard/cumsum " +
                                                 oracles + "cumsum/oracle.py\nstandard/transpose-2d " + oracles +
                                                 "transpose-2d/oracle.py\n");
  auto result = run_cli({"eval", "--batch", batch, "--in-order", "--executor", "tritongym.executor.triton-interpreter",
                         "--seeds", "1", "--executor-config", R"({"workers": 1})"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  std::vector<boost::json::object> lines = json_lines(result);
  ASSERT_EQ(lines.size(), 3u) << result.stdout_text;
  auto count = [&](size_t line, const char* key) {
    return lines[line].at("cases_prepared").at(key).to_number<int64_t>();
  };
  for (size_t line = 0; line < 3; ++line) EXPECT_EQ(lines[line].at("verdict"), "passed") << boost::json::serialize(lines[line]);
  EXPECT_GT(count(0, "made"), 0);  // nothing came before it
  EXPECT_EQ(count(0, "found"), 0);
  for (size_t line = 1; line < 3; ++line) {
    EXPECT_EQ(count(line, "made"), 0) << boost::json::serialize(lines[line]);
    EXPECT_GT(count(line, "found"), 0);
  }
}

TEST(Cli, EvalBatchInOrderStartsTheCandidatesInTheLinesOrder) {
  // --in-order: the order of before, to measure against (bench/eval_throughput.py --in-order-also).
  TemporaryDirectory dir;
  std::string fixtures = source_dir() + "/tests/fixtures/candidates/vector-add/";
  std::string batch = dir.write("batch.txt", "standard/vector-add " + fixtures + "correct.py\nstandard/vector-add " +
                                                 fixtures + "autotuned.py\n");
  auto result = run_cli({"eval", "--batch", batch, "--in-order", "--executor", "tritongym.executor.triton-interpreter",
                         "--seeds", "1", "--executor-config", R"({"workers": 1})"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  std::vector<boost::json::object> lines = json_lines(result);
  ASSERT_EQ(lines.size(), 2u) << result.stdout_text;
  EXPECT_EQ(lines[1].at("verdict"), "passed") << boost::json::serialize(lines[1]);
  EXPECT_LT(lines[0].at("started_s").as_double(), lines[1].at("started_s").as_double());
  EXPECT_GE(lines[1].at("started_s").as_double(), lines[0].at("host_seconds").as_double() - 0.05);
}

TEST(Cli, EvalBatchFromStdinJudgesEachLineAsItComes) {
  // The CLI's stdin and stdout are the child's request and reply pipes: a caller that keeps one process, and its
  // warm workers, for candidates it sends over time.
  TemporaryDirectory dir;
  std::string fixtures = source_dir() + "/tests/fixtures/candidates/vector-add/";
  process::ChildOptions options;
  options.argv = {"/bin/sh", "-c", "exec \"$0\" eval --batch - --executor tritongym.executor.triton-interpreter "
                  "--seeds 1 <&3 >&4 3<&- 4>&-", cli_path()};
  options.working_directory = source_dir();
  options.stderr_path = (dir.path() / "stderr.txt").string();
  auto started = process::ChildProcess::start(options);
  ASSERT_TRUE(started) << started.status().message();
  process::ChildProcess& cli = started.value();
  auto next_line = [&]() -> boost::json::object {
    auto line = cli.receive_line(180);
    if (!line) {
      ADD_FAILURE() << line.status().message() << "\nstderr: " << read_file(dir.path() / "stderr.txt");
      return {};
    }
    return boost::json::parse(*line).as_object();
  };
  ASSERT_TRUE(cli.send_line("standard/vector-add " + fixtures + "correct.py"));
  // Its result comes while stdin is still open.
  auto first = next_line();
  EXPECT_EQ(first["verdict"], "passed") << boost::json::serialize(first);
  EXPECT_EQ(first["task"], "standard/vector-add");
  // A bad line gets an error line in its place, and the stream goes on.
  ASSERT_TRUE(cli.send_line("# a comment, and a blank line\n\nstandard/vector-ad " + fixtures + "correct.py"));
  ASSERT_TRUE(cli.send_line("standard/vector-add " + fixtures + "wrong.py"));
  auto refused = next_line();
  EXPECT_EQ(refused["line"], 4) << boost::json::serialize(refused);
  EXPECT_NE(std::string(refused["error"].as_string()).find("did you mean 'standard/vector-add'"), std::string::npos)
      << boost::json::serialize(refused);
  auto wrong = next_line();
  EXPECT_EQ(wrong["verdict"], "wrong_answer") << boost::json::serialize(wrong);
  // The end of stdin ends the batch: every line was answered; one was refused, so the exit code says so.
  cli.close_requests();
  for (int i = 0; i < 300 && cli.running(); ++i) ::usleep(20000);
  EXPECT_EQ(cli.describe_end(), "exit code 2");
  EXPECT_NE(read_file(dir.path() / "stderr.txt").find("batch: candidates from stdin"), std::string::npos);
}

TEST(Cli, EvalExplainsBadArguments) {
  auto unknown_task = run_cli({"eval", "--task", "standard/vector-ad", "--code", "README.md"});
  EXPECT_EQ(unknown_task.exit_code, 2);
  EXPECT_NE(unknown_task.stderr_text.find("did you mean 'standard/vector-add'"), std::string::npos);
  auto missing_file = run_cli({"eval", "--task", "standard/vector-add", "--code", "no/such.py"});
  EXPECT_EQ(missing_file.exit_code, 2);
  auto unknown_executor = run_cli({"eval", "--task", "standard/vector-add", "--code", "README.md", "--executor", "triton-cuda"});
  EXPECT_EQ(unknown_executor.exit_code, 4);
  EXPECT_NE(unknown_executor.stderr_text.find("did you mean 'tritongym.executor.triton-cuda'"), std::string::npos)
      << unknown_executor.stderr_text;
  auto bad_config = run_cli({"eval", "--task", "standard/vector-add", "--code", "README.md", "--executor",
                             "tritongym.executor.triton-interpreter", "--executor-config", R"({"timing_secs": 0.1})"});
  EXPECT_EQ(bad_config.exit_code, 3);
  EXPECT_NE(bad_config.stderr_text.find("--executor-config /timing_secs"), std::string::npos) << bad_config.stderr_text;
  EXPECT_NE(bad_config.stderr_text.find("did you mean 'timing_seconds'"), std::string::npos) << bad_config.stderr_text;
  auto missing_batch = run_cli({"eval", "--batch", "no/such.txt", "--executor", "tritongym.executor.triton-interpreter"});
  EXPECT_EQ(missing_batch.exit_code, 2);
  EXPECT_NE(missing_batch.stderr_text.find("no/such.txt"), std::string::npos) << missing_batch.stderr_text;
}

TEST(Cli, TasksShowDescribesOneTask) {
  auto json = parse_stdout(run_cli({"tasks", "show", "standard/softmax", "--json"}));
  EXPECT_EQ(json.at("entry_function"), "softmax");
  EXPECT_FALSE(json.at("description").as_string().empty());
  EXPECT_FALSE(json.at("held_out_shapes").as_array().empty());
  auto missing = run_cli({"tasks", "show", "standard/sofmax"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.stderr_text.find("did you mean 'standard/softmax'"), std::string::npos);
}

TEST(Cli, TasksCheckPassesAGoodTaskAndNamesWhatIsDegenerate) {
  auto good = run_cli({"tasks", "check", "standard/vector-add", "--executor", "tritongym.executor.triton-interpreter"});
  EXPECT_EQ(good.exit_code, 0) << good.stdout_text << good.stderr_text;
  EXPECT_NE(good.stdout_text.find("1 passed, 0 failed"), std::string::npos) << good.stdout_text;
  // Each task's line on stderr as it is checked, so that a sweep stopped partway keeps what it found.
  EXPECT_NE(good.stderr_text.find("tasks check: 1 of 1 standard/vector-add ok in "), std::string::npos) << good.stderr_text;
  auto bad = run_cli({"tasks", "check", "--json", "--root", source_dir() + "/tests/fixtures/degenerate-suites",
                      "--executor", "tritongym.executor.triton-interpreter"});
  EXPECT_EQ(bad.exit_code, 1);
  std::map<std::string, std::string> problems;
  boost::json::value report = parse_stdout(bad);
  for (const auto& task : report.at("tasks").as_array())
    problems[std::string(task.at("task").as_string())] = boost::json::serialize(task.at("problems"));
  EXPECT_NE(problems["degenerate/tiny-output"].find("within tolerance of zero"), std::string::npos);
  EXPECT_NE(problems["degenerate/ignores-input"].find("same for different random inputs"), std::string::npos);
  EXPECT_NE(problems["degenerate/ignores-input"].find("does not vary along axis [1]"), std::string::npos);
  EXPECT_NE(bad.stderr_text.find("degenerate/tiny-output FAILED: degenerate: "), std::string::npos) << bad.stderr_text;
}

// tasks audit checks what tasks check does (CI runs only the audit over the shipped tasks): degenerate outputs are
// `outputs-vary` findings with the same sentences.
TEST(Cli, TasksAuditNamesDegenerateOutputsAsTasksCheckDoes) {
  auto audit = run_cli({"tasks", "audit", "--json", "--root", source_dir() + "/tests/fixtures/degenerate-suites",
                        "--executor", "tritongym.executor.triton-interpreter"});
  EXPECT_EQ(audit.exit_code, 1) << audit.stderr_text;
  std::map<std::string, std::vector<std::string>> degenerate;  // task -> the outputs-vary findings' details
  const boost::json::value report = parse_stdout(audit);
  for (const auto& task : report.at("tasks").as_array())
    for (const auto& finding : task.at("findings").as_array())
      if (finding.at("rule").as_string() == "outputs-vary")
        degenerate[std::string(task.at("task").as_string())].push_back(std::string(finding.at("detail").as_string()));
  auto names = [&](const std::string& task, const std::string& words) {
    for (const auto& detail : degenerate[task])
      if (detail.find(words) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(names("degenerate/tiny-output", "within tolerance of zero")) << audit.stdout_text;
  EXPECT_TRUE(names("degenerate/ignores-input", "same for different random inputs")) << audit.stdout_text;
  EXPECT_TRUE(names("degenerate/ignores-input", "does not vary along axis [1]")) << audit.stdout_text;
  // A task on the bar has none.
  auto good = run_cli({"tasks", "audit", "standard/vector-add", "--json", "--executor",
                       "tritongym.executor.triton-interpreter"});
  EXPECT_EQ(boost::json::serialize(parse_stdout(good)).find("outputs-vary"), std::string::npos) << good.stdout_text;
}

// tasks audit on the interpreter: the rules that read task.yaml and the tolerance check run, exemptions are applied
// and listed, a violation exits 1, and --out writes the table as JSON and Markdown.
TEST(Cli, TasksAuditChecksTheBarAndAppliesExemptions) {
  TemporaryDirectory out;
  auto audit = run_cli({"tasks", "audit", "--root", source_dir() + "/tests/fixtures/audit-suites", "--executor",
                        "tritongym.executor.triton-interpreter", "--out", out.path().string()});
  EXPECT_EQ(audit.exit_code, 1) << audit.stdout_text << audit.stderr_text;
  EXPECT_NE(audit.stderr_text.find("tasks audit: 2 of 2 audit/on-the-bar ok in "), std::string::npos) << audit.stderr_text;
  EXPECT_NE(audit.stdout_text.find("audit: 2 tasks (0 timed, 0 shapes), 4 violations in 1 tasks, 1 exempt"),
            std::string::npos) << audit.stdout_text;
  std::ifstream written(out.path() / "audit.json");
  ASSERT_TRUE(written.good());
  std::stringstream text;
  text << written.rdbuf();
  std::map<std::string, boost::json::object> tasks;
  const boost::json::value document = boost::json::parse(text.str());
  for (const auto& task : document.at("tasks").as_array())
    tasks[std::string(task.at("task").as_string())] = task.as_object();
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(tasks["audit/on-the-bar"].at("violations").as_int64(), 0);
  std::map<std::string, bool> rules;  // rule -> exempt
  for (const auto& finding : tasks["audit/off-the-bar"].at("findings").as_array())
    rules[std::string(finding.at("rule").as_string())] = finding.at("exempt").as_bool();
  EXPECT_EQ(rules, (std::map<std::string, bool>{{"odd-held-out", false}, {"larger-held-out", false}, {"formulas", false},
                                                {"audit-exempt", false}, {"tolerance-fails-1pct", true}}));
  EXPECT_TRUE(std::filesystem::exists(out.path() / "audit.md"));
  // The real tasks' tolerance check: a 1% error fails vector-add's and matmul-fp16's (fp16 at rtol 4e-3, since the
  // audit found that 1e-2 let a 1.01x answer pass); the fixture above shows the finding when it does not.
  auto real = run_cli({"tasks", "audit", "standard/vector-add", "standard/matmul-fp16", "--json", "--executor",
                       "tritongym.executor.triton-interpreter"});
  std::map<std::string, std::string> found;
  const boost::json::value reported = parse_stdout(real);
  for (const auto& task : reported.at("tasks").as_array())
    found[std::string(task.at("task").as_string())] = boost::json::serialize(task.at("findings"));
  EXPECT_EQ(found["standard/vector-add"].find("tolerance-fails-1pct"), std::string::npos) << found["standard/vector-add"];
  EXPECT_EQ(found["standard/matmul-fp16"].find("tolerance-fails-1pct"), std::string::npos) << found["standard/matmul-fp16"];
}

// tasks audit --jobs: tasks audited at once give the same findings as one at a time, and the table keeps the
// suite's order whichever task ended first; --jobs 0 is refused.
TEST(Cli, TasksAuditJobsAuditTasksAtOnceInTheSuitesOrder) {
  const std::string root = source_dir() + "/tests/fixtures/audit-suites";
  const std::string interpreter = "tritongym.executor.triton-interpreter";
  auto findings = [](const process::ProcessResult& result) {
    std::vector<std::pair<std::string, std::string>> rows;
    const boost::json::value document = parse_stdout(result);
    for (const auto& task : document.at("tasks").as_array())
      rows.emplace_back(std::string(task.at("task").as_string()), boost::json::serialize(task.at("findings")));
    return rows;
  };
  auto one = run_cli({"tasks", "audit", "--root", root, "--executor", interpreter, "--json"});
  auto two = run_cli({"tasks", "audit", "--root", root, "--executor", interpreter, "--json", "--jobs", "2"});
  EXPECT_EQ(two.exit_code, 1) << two.stderr_text;
  const auto rows = findings(two);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].first, "audit/off-the-bar");
  EXPECT_EQ(rows[1].first, "audit/on-the-bar");
  EXPECT_EQ(rows, findings(one));
  auto none = run_cli({"tasks", "audit", "--root", root, "--executor", interpreter, "--jobs", "0"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.stderr_text.find("--jobs must be at least 1"), std::string::npos) << none.stderr_text;
}

// tasks audit --resume: the tasks --out's audit.json holds are kept (a sweep cut by a time limit goes on), the rest
// audited; a file of another executor, or not an audit, is refused with its path.
TEST(Cli, TasksAuditResumesFromItsOwnTable) {
  TemporaryDirectory out;
  const std::string root = source_dir() + "/tests/fixtures/audit-suites";
  const std::string interpreter = "tritongym.executor.triton-interpreter";
  auto first = run_cli({"tasks", "audit", "audit/on-the-bar", "--root", root, "--executor", interpreter, "--out",
                        out.path().string()});
  EXPECT_EQ(first.exit_code, 0) << first.stdout_text << first.stderr_text;
  auto resumed = run_cli({"tasks", "audit", "--root", root, "--executor", interpreter, "--out", out.path().string(),
                          "--resume"});
  EXPECT_EQ(resumed.exit_code, 1) << resumed.stdout_text << resumed.stderr_text;
  EXPECT_NE(resumed.stderr_text.find("tasks audit: 1 of 2 tasks already audited in"), std::string::npos)
      << resumed.stderr_text;
  EXPECT_EQ(resumed.stderr_text.find("audit/on-the-bar ok in"), std::string::npos) << resumed.stderr_text;
  EXPECT_NE(resumed.stderr_text.find("tasks audit: 2 of 2 audit/off-the-bar 4 violation(s): "), std::string::npos)
      << resumed.stderr_text;
  EXPECT_NE(resumed.stdout_text.find("audit: 2 tasks (0 timed, 0 shapes), 4 violations in 1 tasks, 1 exempt"),
            std::string::npos) << resumed.stdout_text;
  std::ifstream written(out.path() / "audit.json");
  std::stringstream text;
  text << written.rdbuf();
  EXPECT_EQ(boost::json::parse(text.str()).at("tasks").as_array().size(), 2u);
  auto other = run_cli({"tasks", "audit", "--root", root, "--executor", "tritongym.executor.triton-cuda", "--out",
                        out.path().string(), "--resume"});
  EXPECT_NE(other.exit_code, 0);
  if (other.stderr_text.find("was written by executor 'tritongym.executor.triton-interpreter'") == std::string::npos) {
    EXPECT_NE(other.stderr_text.find("error"), std::string::npos) << other.stderr_text;  // no GPU: no cuda executor
  }
  std::ofstream(out.path() / "audit.json") << "{\"executor\": \"" << interpreter << "\", \"tasks\": 3}";
  auto broken = run_cli({"tasks", "audit", "--root", root, "--executor", interpreter, "--out", out.path().string(),
                         "--resume"});
  EXPECT_EQ(broken.exit_code, 1);
  EXPECT_NE(broken.stderr_text.find("audit.json: not an audit.json: no \"tasks\" array"), std::string::npos)
      << broken.stderr_text;
  auto no_out = run_cli({"tasks", "audit", "--root", root, "--executor", interpreter, "--resume"});
  EXPECT_EQ(no_out.exit_code, 2);
  EXPECT_NE(no_out.stderr_text.find("--resume needs --out DIR"), std::string::npos) << no_out.stderr_text;
}

// tasks audit --resume over a part of the tasks keeps the table's other tasks on disk, and audits again a task
// whose files changed since its row was written (a table carried between GPU sessions stays true).
TEST(Cli, TasksAuditResumeKeepsOtherTasksAndRedoesChangedOnes) {
  TemporaryDirectory out, root;
  std::filesystem::copy(source_dir() + "/tests/fixtures/audit-suites", root.path(),
                        std::filesystem::copy_options::recursive);
  const std::string interpreter = "tritongym.executor.triton-interpreter";
  auto sweep = [&](std::vector<std::string> ids) {
    std::vector<std::string> args = {"tasks", "audit"};
    args.insert(args.end(), ids.begin(), ids.end());
    for (std::string arg : {std::string("--root"), root.path().string(), std::string("--executor"), interpreter,
                            std::string("--out"), out.path().string(), std::string("--resume")})
      args.push_back(arg);
    return run_cli(args);
  };
  auto rows = [&] {
    std::ifstream written(out.path() / "audit.json");
    std::stringstream text;
    text << written.rdbuf();
    std::set<std::string> ids;
    const boost::json::value document = boost::json::parse(text.str());
    for (const auto& task : document.at("tasks").as_array())
      ids.insert(std::string(task.at("task").as_string()));
    return ids;
  };
  sweep({});
  EXPECT_EQ(rows(), (std::set<std::string>{"audit/on-the-bar", "audit/off-the-bar"}));
  auto part = sweep({"audit/off-the-bar"});
  EXPECT_NE(part.stderr_text.find("tasks audit: 1 of 1 tasks already audited in"), std::string::npos) << part.stderr_text;
  EXPECT_EQ(rows(), (std::set<std::string>{"audit/on-the-bar", "audit/off-the-bar"})) << "a partial sweep kept both rows";
  std::ofstream(root.path() / "audit" / "on-the-bar" / "task.yaml", std::ios::app) << "# changed\n";
  auto changed = sweep({});
  EXPECT_NE(changed.stderr_text.find("tasks audit: 1 of 2 tasks already audited in " + out.path().string() +
                                     " (1 changed since: audited again)"),
            std::string::npos) << changed.stderr_text;
  EXPECT_NE(changed.stderr_text.find("audit/on-the-bar ok in"), std::string::npos) << changed.stderr_text;
}

TEST(Cli, TasksCheckTakesTheExecutorsConfigAndSaysWhereItIsWrong) {
  auto not_json = run_cli({"tasks", "check", "standard/vector-add", "--executor", "tritongym.executor.triton-interpreter",
                           "--executor-config", "[1]"});
  EXPECT_EQ(not_json.exit_code, 3);
  EXPECT_NE(not_json.stderr_text.find("--executor-config must be a JSON object"), std::string::npos) << not_json.stderr_text;
  auto bad_value = run_cli({"tasks", "check", "standard/vector-add", "--executor", "tritongym.executor.triton-interpreter",
                            "--executor-config", R"({"prepare_ahead": -2})"});
  EXPECT_EQ(bad_value.exit_code, 3);
  EXPECT_NE(bad_value.stderr_text.find("--executor-config /prepare_ahead"), std::string::npos) << bad_value.stderr_text;
  auto no_deadline = run_cli({"tasks", "check", "standard/vector-add", "--executor",
                              "tritongym.executor.triton-interpreter", "--executor-config", R"({"compile_seconds": 0})"});
  EXPECT_EQ(no_deadline.exit_code, 3);
  EXPECT_NE(no_deadline.stderr_text.find("--executor-config /compile_seconds: compile_seconds must be more than 0"),
            std::string::npos)
      << no_deadline.stderr_text;
  auto off = run_cli({"tasks", "check", "standard/vector-add", "--executor", "tritongym.executor.triton-interpreter",
                      "--executor-config", R"({"prepare_ahead": 0})"});
  EXPECT_EQ(off.exit_code, 0) << off.stdout_text << off.stderr_text;
}

TEST(Cli, BadLogLevelIsAUsageError) {
  auto result = run_cli({"--log-level", "loud", "plugins", "list"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.stderr_text.find("unknown log level 'loud'"), std::string::npos);
}

TEST(Cli, HostDoesNotLinkCudaOrPython) {
  process::ProcessOptions options;
  options.argv = {"ldd", cli_path()};
  auto result = process::run_process(options);
  ASSERT_TRUE(result);
  ASSERT_EQ(result->exit_code, 0);
  EXPECT_EQ(result->stdout_text.find("libcuda"), std::string::npos) << result->stdout_text;
  EXPECT_EQ(result->stdout_text.find("libpython"), std::string::npos) << result->stdout_text;
}

}  // namespace
}  // namespace tritongym::testing
