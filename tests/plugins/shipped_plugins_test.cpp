// Behaviour of the shipped plugins beyond the conformance kit, each through the real library.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "episode/episode.hpp"
#include "plugins/loader.hpp"
#include "support/test_support.hpp"

namespace tritongym::plugins {
namespace {

class ShippedPlugins : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    registry_ = new Registry;
    load_plugins({testing::builtin_plugin_dir()}, *registry_);
  }
  template <class Interface>
  Result<std::unique_ptr<Interface>> create(const std::string& id, const std::string& config_json) {
    PluginContext context;
    context.config_json = config_json;
    context.project_root = testing::source_dir();
    return registry_->create<Interface>(id, context);
  }
  // The directory suite over one task of `split`: a small valid task.yaml (8 lines) followed by `tail`, written
  // as suite/scale/task.yaml under `root`.
  Result<std::vector<TaskSpec>> load_one_task(const testing::TemporaryDirectory& root, const std::string& split,
                                              const std::string& tail) {
    root.write("suite/scale/task.yaml", "split: " + split + R"(
category: scan
entry: {function: scale, parameters: [x]}
description: Return 2 * x.
inputs:
  - {name: x, shape: [N]}
shapes:
  visible: [{N: 1024}]
)" + tail);
    auto suite = create<Suite>("tritongym.suite.directory", R"({"root":")" + root.path().string() + R"("})");
    EXPECT_TRUE(suite);
    return (*suite)->load_tasks();
  }
  static Registry* registry_;  // shared: loading once keeps the suite fast
};
Registry* ShippedPlugins::registry_ = nullptr;

// ------------------------------------------------------------------ directory suite

TEST_F(ShippedPlugins, DirectorySuiteReadsTaskYaml) {
  auto suite = create<Suite>("tritongym.suite.directory", R"({"root":"tests/fixtures/suites","suites":["tiny"]})");
  ASSERT_TRUE(suite) << suite.status().to_string();
  auto tasks = (*suite)->load_tasks();
  ASSERT_TRUE(tasks) << tasks.status().to_string();
  ASSERT_EQ(tasks->size(), 2u);
  const TaskSpec& add = (*tasks)[0];
  EXPECT_EQ(add.id, "tiny/add-one");
  EXPECT_EQ(add.dsl, "triton");  // the default
  EXPECT_EQ(add.entry_parameters, std::vector<std::string>{"x"});
  EXPECT_EQ(add.visible_shapes.at(0).dims.at("N"), 1024);
  EXPECT_EQ(add.held_out_shapes.at(0).name, "held-out-0");
  EXPECT_DOUBLE_EQ(add.tolerance.at("float32").atol, 1e-6);
  EXPECT_EQ((*tasks)[1].split, "ood");
  EXPECT_EQ((*tasks)[1].visible_shapes.size(), 2u);
}

TEST_F(ShippedPlugins, DirectorySuiteNamesTheFileLineAndKeyOfABadTask) {
  auto suite = create<Suite>("tritongym.suite.directory", R"({"root":"tests/fixtures/suites","suites":["broken"]})");
  ASSERT_TRUE(suite);
  auto tasks = (*suite)->load_tasks();
  ASSERT_FALSE(tasks);
  EXPECT_NE(tasks.status().location().find("broken/typo/task.yaml:4:1"), std::string::npos) << tasks.status().location();
  EXPECT_NE(tasks.status().message().find("did you mean 'description'"), std::string::npos) << tasks.status().message();
}

TEST_F(ShippedPlugins, DirectorySuiteRefusesAByteFormulaBlindToTheDtypeSize) {
  // float32 and float16 move different bytes: "8 * N" is right for one of them only.
  namespace fs = std::filesystem;
  fs::path root = fs::temp_directory_path() / ("tritongym-bytes-" + std::to_string(::getpid()));
  fs::create_directories(root / "suite" / "scale");
  std::string yaml = R"(split: standard
category: elementwise
entry: {function: scale, parameters: [x]}
description: Return 2 * x.
inputs:
  - {name: x, shape: [N]}
dtypes: [float32, float16]
shapes:
  visible: [{N: 1024}]
bytes: "8 * N"
)";
  std::ofstream(root / "suite" / "scale" / "task.yaml") << yaml;
  auto suite = create<Suite>("tritongym.suite.directory", R"({"root":")" + root.string() + R"("})");
  ASSERT_TRUE(suite);
  auto tasks = (*suite)->load_tasks();
  ASSERT_FALSE(tasks);
  EXPECT_NE(tasks.status().location().find("scale/task.yaml:10:"), std::string::npos) << tasks.status().location();
  EXPECT_NE(tasks.status().message().find("does not use dtype_bytes"), std::string::npos) << tasks.status().message();
  EXPECT_NE(tasks.status().message().find("float16 2, float32 4"), std::string::npos) << tasks.status().message();

  std::ofstream(root / "suite" / "scale" / "task.yaml") << yaml.substr(0, yaml.find("bytes:")) << "bytes: \"2 * dtype_bytes * N\"\n";
  auto fixed = (*suite)->load_tasks();
  EXPECT_TRUE(fixed) << fixed.status().to_string();
  fs::remove_all(root);
}

// entry.scalars (the parameters make_inputs returns as Python numbers) reach the task; a name that is not a
// parameter is refused where it is written.
TEST_F(ShippedPlugins, DirectorySuiteReadsTheEntrysScalars) {
  testing::TemporaryDirectory root;
  std::filesystem::create_directories(root.path() / "suite" / "scale");
  auto load = [&](const std::string& scalars) {
    std::ofstream(root.path() / "suite" / "scale" / "task.yaml")
        << "split: standard\ncategory: elementwise\nentry: {function: scale, parameters: [x, factor], scalars: ["
        << scalars << "]}\ndescription: Return factor * x.\ndtypes: [float32]\nshapes:\n  visible: [{N: 1024}]\n"
        << "bytes: \"2 * dtype_bytes * N\"\n";
    auto suite = create<Suite>("tritongym.suite.directory", R"({"root":")" + root.path().string() + R"("})");
    return (*suite)->load_tasks();
  };
  auto good = load("factor");
  ASSERT_TRUE(good) << good.status().to_string();
  ASSERT_EQ(good->size(), 1u);
  EXPECT_EQ(good->front().entry_scalars, std::vector<std::string>{"factor"});
  auto unknown = load("facter");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.status().message().find("entry.scalars names 'facter', which is not one of entry.parameters"),
            std::string::npos) << unknown.status().message();
  EXPECT_NE(unknown.status().location().find("scale/task.yaml:3:"), std::string::npos) << unknown.status().location();
}

TEST_F(ShippedPlugins, DirectorySuiteReadsWhatAnOodTaskSearchedAndRefusesAMalformedRecord) {
  testing::TemporaryDirectory root;
  auto load = [&](const std::string& ood_search) { return load_one_task(root, "ood", ood_search); };
  auto searched = load("ood_search:\n  - {set: KernelBench, found: none}\n  - {set: Liger-Kernel, found: \"x\"}\n");
  EXPECT_TRUE(searched) << searched.status().to_string();

  auto misspelt = load("ood_search:\n  - {set: KernelBench, fund: none}\n");
  ASSERT_FALSE(misspelt);
  EXPECT_NE(misspelt.status().location().find("scale/task.yaml:10:"), std::string::npos) << misspelt.status().location();
  EXPECT_NE(misspelt.status().message().find("did you mean 'found'"), std::string::npos) << misspelt.status().message();
  auto bare = load("ood_search: KernelBench\n");
  ASSERT_FALSE(bare);
  EXPECT_NE(bare.status().message().find("{set: NAME, found: WHAT}"), std::string::npos) << bare.status().message();
  auto empty = load("ood_search:\n  - {set: KernelBench, found: \"\"}\n");
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.status().message().find("'found' must not be empty"), std::string::npos) << empty.status().message();
}

// task.yaml's compute_unit and audit_exempt reach the task; a unit that is not one, or an exemption without its
// reason, is refused where it is written.
TEST_F(ShippedPlugins, DirectorySuiteReadsTheComputeUnitAndTheAuditExemptions) {
  testing::TemporaryDirectory root;
  auto load = [&](const std::string& tail) { return load_one_task(root, "standard", tail); };
  auto good = load("compute_unit: simt\naudit_exempt:\n  shape-at-20us@visible-0: a one-line reason\n");
  ASSERT_TRUE(good) << good.status().to_string();
  EXPECT_EQ(good->front().compute_unit, "simt");
  EXPECT_EQ(good->front().audit_exemptions.at("shape-at-20us@visible-0"), "a one-line reason");
  auto gather = load("compute_unit: l2-gather\n");
  ASSERT_TRUE(gather) << gather.status().to_string();
  EXPECT_EQ(gather->front().compute_unit, "l2-gather");
  auto unit = load("compute_unit: simd\n");
  ASSERT_FALSE(unit);
  EXPECT_NE(unit.status().message().find("did you mean 'simt'"), std::string::npos) << unit.status().message();
  EXPECT_NE(unit.status().location().find("scale/task.yaml:9:"), std::string::npos) << unit.status().location();
  auto reasonless = load("audit_exempt:\n  formulas: \"\"\n");
  ASSERT_FALSE(reasonless);
  EXPECT_NE(reasonless.status().message().find("needs a one-line reason"), std::string::npos)
      << reasonless.status().message();
}

// docs/task-format.md, "Out of distribution": every shipped OOD task says what was searched.
TEST_F(ShippedPlugins, EveryShippedOodTaskNamesTheSetsSearched) {
  auto suite = create<Suite>("tritongym.suite.directory", R"({"suites":["ood"]})");
  ASSERT_TRUE(suite);
  auto tasks = (*suite)->load_tasks();
  ASSERT_TRUE(tasks) << tasks.status().to_string();
  ASSERT_FALSE(tasks->empty());
  for (const auto& task : *tasks) {
    std::ifstream in(task.source_file);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("\nood_search:"), std::string::npos) << task.source_file;
  }
}

TEST_F(ShippedPlugins, DirectorySuiteCanSkipBadTasks) {
  auto suite = create<Suite>("tritongym.suite.directory", R"({"root":"tests/fixtures/suites","skip_invalid":true})");
  ASSERT_TRUE(suite);
  auto tasks = (*suite)->load_tasks();
  ASSERT_TRUE(tasks) << tasks.status().to_string();
  EXPECT_EQ(tasks->size(), 2u);
}

TEST_F(ShippedPlugins, DirectorySuiteSuggestsAMisspeltSuite) {
  auto suite = create<Suite>("tritongym.suite.directory", R"({"root":"tests/fixtures/suites","suites":["tiyn"]})");
  ASSERT_TRUE(suite);
  auto tasks = (*suite)->load_tasks();
  ASSERT_FALSE(tasks);
  EXPECT_NE(tasks.status().message().find("did you mean 'tiny'"), std::string::npos) << tasks.status().message();
}

TEST_F(ShippedPlugins, TheShippedTasksParse) {
  auto suite = create<Suite>("tritongym.suite.directory", R"({})");
  ASSERT_TRUE(suite);
  auto tasks = (*suite)->load_tasks();
  ASSERT_TRUE(tasks) << tasks.status().to_string();
  EXPECT_GE(tasks->size(), 2u);
  for (const auto& task : *tasks) {
    EXPECT_FALSE(task.reference_path.empty()) << task.id;
    EXPECT_FALSE(task.oracle_path.empty()) << task.id;
  }
}

// ------------------------------------------------------------------ scripted backend

ChatRequest request_after(int assistant_turns, const std::string& task_id = "t") {
  ChatRequest request;
  request.task_id = task_id;
  request.messages.push_back({Role::user, "go", {}, {}, {}});
  for (int i = 0; i < assistant_turns; ++i) request.messages.push_back({Role::assistant, "earlier", {}, {}, {}});
  return request;
}

TEST_F(ShippedPlugins, ScriptedBackendPlaysRepliesByTurn) {
  auto backend = create<ModelBackend>("tritongym.backend.scripted",
                                      R"({"replies":[{"content":"first"},{"content":"second","usage":{"input_tokens":5,"output_tokens":2}}]})");
  ASSERT_TRUE(backend) << backend.status().to_string();
  EXPECT_EQ((*backend)->chat(request_after(0))->message.content, "first");
  auto second = (*backend)->chat(request_after(1));
  EXPECT_EQ(second->message.content, "second");
  EXPECT_EQ(second->usage.input_tokens, 5);
  auto exhausted = (*backend)->chat(request_after(2));
  ASSERT_FALSE(exhausted);
  EXPECT_NE(exhausted.status().message().find("has 2 replies and turn 3 was asked for"), std::string::npos);
}

TEST_F(ShippedPlugins, ScriptedBackendPlaysToolCallsIncludingMalformedOnes) {
  auto backend = create<ModelBackend>(
      "tritongym.backend.scripted",
      R"({"replies":[{"tool_calls":[{"name":"test","arguments":{"code":"x"}},{"name":"test","arguments":"{\"code\": broken"}]}]})");
  ASSERT_TRUE(backend);
  auto response = (*backend)->chat(request_after(0));
  ASSERT_TRUE(response);
  ASSERT_EQ(response->message.tool_calls.size(), 2u);
  EXPECT_EQ(response->message.tool_calls[0].arguments_json, R"({"code":"x"})");
  EXPECT_EQ(response->message.tool_calls[1].arguments_json, R"({"code": broken)");
  EXPECT_EQ(response->finish_reason, "tool_calls");
  EXPECT_EQ(response->message.tool_calls[0].id, "call_0_0");
}

TEST_F(ShippedPlugins, ScriptedBackendPerTaskScriptsAndPlayedErrors) {
  auto backend = create<ModelBackend>(
      "tritongym.backend.scripted",
      R"({"replies":[{"content":"generic"}],"per_task":{"special":[{"error":"unavailable: overloaded"}]}})");
  ASSERT_TRUE(backend);
  EXPECT_EQ((*backend)->chat(request_after(0, "other"))->message.content, "generic");
  auto failed = (*backend)->chat(request_after(0, "special"));
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.status().code(), StatusCode::unavailable);
}

TEST_F(ShippedPlugins, ScriptedBackendLoadsScriptFilesWithContentFiles) {
  auto backend = create<ModelBackend>("tritongym.backend.scripted", R"({"script":"examples/scripts/quickstart-replies.yaml"})");
  ASSERT_TRUE(backend) << backend.status().to_string();
  auto response = (*backend)->chat(request_after(0, "standard/vector-add"));
  ASSERT_TRUE(response) << response.status().to_string();
  EXPECT_NE(response->message.content.find("```python\n"), std::string::npos) << response->message.content.substr(0, 80);
  EXPECT_NE(response->message.content.find("def vector_add"), std::string::npos);
}

TEST_F(ShippedPlugins, ScriptedBackendScriptFileErrorsSayWhere) {
  testing::TemporaryDirectory dir;
  std::string script = dir.write("script.yaml", "replies:\n  - content: hi\n    contnet: typo\n");
  auto backend = create<ModelBackend>("tritongym.backend.scripted", R"({"script":")" + script + R"("})");
  ASSERT_FALSE(backend);
  EXPECT_EQ(backend.status().location(), script + ":3:5");
  EXPECT_NE(backend.status().message().find("did you mean 'content'"), std::string::npos) << backend.status().message();
}

TEST_F(ShippedPlugins, ScriptedBackendNeedsSomethingToPlay) {
  auto backend = create<ModelBackend>("tritongym.backend.scripted", "{}");
  ASSERT_FALSE(backend);
  EXPECT_EQ(backend.status().code(), StatusCode::invalid_config);
}

// ------------------------------------------------------------------ the tool contract

TEST_F(ShippedPlugins, TheToolContractDocumentsEveryToolSchemaVerbatim) {
  std::ifstream in(testing::source_dir() + "/docs/tool-contract.md");
  std::string doc((std::istreambuf_iterator<char>(in)), {});
  for (const char* id : {"tritongym.tool.compile", "tritongym.tool.test", "tritongym.tool.benchmark",
                         "tritongym.tool.profile", "tritongym.tool.submit", "tritongym.tool.docs"}) {
    auto tool = create<Tool>(id, "{}");
    ASSERT_TRUE(tool) << id << ": " << tool.status().to_string();
    ToolSchema schema = (*tool)->schema();
    EXPECT_NE(doc.find("`" + schema.name + "`"), std::string::npos) << schema.name;
    EXPECT_NE(doc.find(schema.parameters_json), std::string::npos) << schema.name << " schema differs from the doc";
  }
}

// ------------------------------------------------------------------ oracle backend

TEST_F(ShippedPlugins, OracleBackendAnswersWithTheTasksOracle) {
  auto backend = create<ModelBackend>("tritongym.backend.oracle", R"({"root":"tasks"})");
  ASSERT_TRUE(backend) << backend.status().to_string();
  auto workflow = create<Workflow>("tritongym.workflow.one-shot", "{}");
  ASSERT_TRUE(workflow);
  episode::EpisodeSetup setup;
  setup.task.id = "standard/softmax";
  setup.model = backend->get();
  episode::Episode episode(setup);
  auto outcome = (*workflow)->run(episode);
  ASSERT_TRUE(outcome) << outcome.status().to_string();
  std::ifstream oracle(testing::source_dir() + "/tasks/standard/softmax/oracle.py");
  std::string expected((std::istreambuf_iterator<char>(oracle)), {});
  EXPECT_EQ(outcome->final_code, expected);

  ChatRequest with_submit;
  with_submit.task_id = "standard/softmax";
  with_submit.tools = {{"submit", "submit the final kernel", R"({"type":"object"})"}};
  auto response = (*backend)->chat(with_submit);
  ASSERT_TRUE(response);
  ASSERT_EQ(response->message.tool_calls.size(), 1u);
  EXPECT_EQ(response->message.tool_calls[0].name, "submit");
  EXPECT_NE(response->message.tool_calls[0].arguments_json.find("_softmax_kernel"), std::string::npos);

  ChatRequest unknown;
  unknown.task_id = "standard/no-such-task";
  auto missing = (*backend)->chat(unknown);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.status().code(), StatusCode::not_found);
}

// ------------------------------------------------------------------ Gluon DSL

TEST_F(ShippedPlugins, GluonChecksItsCandidatesAndServesItsReference) {
  PluginContext context;
  context.config_json = R"({"max_sections": 2})";
  context.plugin_dir = registry_->origin("tritongym.dsl.gluon")->manifest.directory;
  auto gluon = registry_->create<Dsl>("tritongym.dsl.gluon", context);
  ASSERT_TRUE(gluon) << gluon.status().to_string();
  EXPECT_EQ((*gluon)->name(), "gluon");
  EXPECT_NE((*gluon)->candidate_rules().find("@gluon.jit"), std::string::npos);
  std::string good = "from triton.experimental import gluon\nfrom triton.experimental.gluon import language as gl\n"
                     "@gluon.jit\ndef k(x_ptr):\n    pass\n";
  EXPECT_TRUE((*gluon)->check_source(good));
  Status plain_triton = (*gluon)->check_source("import triton\n@triton.jit\ndef k(x):\n    pass\n");
  ASSERT_FALSE(plain_triton);
  EXPECT_NE(plain_triton.message().find("must import it"), std::string::npos) << plain_triton.message();
  Status mixed = (*gluon)->check_source(good + "@triton.jit\ndef other(x):\n    pass\n");
  EXPECT_NE(mixed.message().find("not @triton.jit"), std::string::npos) << mixed.message();
  auto layouts = (*gluon)->docs("BlockedLayout size_per_thread");
  ASSERT_TRUE(layouts);
  EXPECT_NE(layouts->find("BlockedLayout"), std::string::npos);
  EXPECT_EQ(layouts->rfind("## ", 0), 0u) << "answers start at a section heading";
  auto nothing = (*gluon)->docs("zzzqqq");
  ASSERT_TRUE(nothing);
  EXPECT_NE(nothing->find("Sections:"), std::string::npos);
}

// The source check is the early warning of the DSL rule (the executor checks the kernels that ran): plain Triton
// is refused however the file spells it, and a Gluon file that names triton otherwise is not.
TEST_F(ShippedPlugins, GluonRefusesPlainTritonHoweverItIsSpeltAndNamesItsFrontend) {
  PluginContext context;
  context.config_json = "{}";
  context.plugin_dir = registry_->origin("tritongym.dsl.gluon")->manifest.directory;
  auto gluon = registry_->create<Dsl>("tritongym.dsl.gluon", context);
  ASSERT_TRUE(gluon) << gluon.status().to_string();
  EXPECT_EQ((*gluon)->required_kernel_frontend(), "gluon");
  const std::string head = "import torch\nimport triton\nfrom triton.experimental import gluon\n"
                           "from triton.experimental.gluon import language as gl\nfrom triton import language as tl\n"
                           "from triton.runtime import driver\n@gluon.jit\ndef g(x_ptr):\n    pass\n";
  EXPECT_TRUE((*gluon)->check_source(head + "def entry(x):\n    g[(triton.cdiv(4, 2),)](x)\n"));
  const std::vector<std::pair<std::string, std::string>> spellings = {
      {"from triton import jit\n@jit\ndef k(x):\n    pass\n", "from triton import jit"},
      {"from triton import (\n    cdiv,\n    jit as J,\n)\n@J\ndef k(x):\n    pass\n", "jit as J"},
      {"from triton.runtime.jit import JITFunction\n", "JITFunction"},
      {"import triton as t\n@t.jit\ndef k(x):\n    pass\n", "t.jit"},
      {"def body(x):\n    pass\nk = triton.jit(body)\n", "triton.jit"},
      {"@triton.jit(do_not_specialize=['n'])\ndef k(x, n):\n    pass\n", "@triton.jit"},
  };
  for (const auto& [plain, named] : spellings) {
    Status refused = (*gluon)->check_source(head + plain);
    ASSERT_FALSE(refused) << plain;
    EXPECT_NE(refused.message().find("this task is in Gluon: `"), std::string::npos) << refused.message();
    EXPECT_NE(refused.message().find(named), std::string::npos) << refused.message();
    EXPECT_NE(refused.message().find("write every kernel with @gluon.jit"), std::string::npos) << refused.message();
  }
}

// ------------------------------------------------------------------ one-shot workflow

struct OneShotRun {
  Result<WorkflowOutcome> outcome;
  BudgetUsage usage;
  std::vector<episode::EpisodeEvent> transcript;
};

class OneShot : public ShippedPlugins {
 protected:
  OneShotRun run_with(const std::string& replies_json) {
    auto backend = create<ModelBackend>("tritongym.backend.scripted", R"({"replies":)" + replies_json + "}");
    EXPECT_TRUE(backend) << backend.status().to_string();
    auto workflow = create<Workflow>("tritongym.workflow.one-shot", R"({"max_output_tokens":100})");
    EXPECT_TRUE(workflow) << workflow.status().to_string();
    episode::EpisodeSetup setup;
    setup.task.id = "tiny/add-one";
    setup.task.entry_function = "add_one";
    setup.model = backend->get();
    episode::Episode episode(setup);
    auto outcome = (*workflow)->run(episode);
    return {outcome, episode.usage(), episode.transcript()};
  }
};

TEST_F(OneShot, TakesTheCodeBlockOfTheOneReply) {
  auto run = run_with(R"([{"content":"Here:\n```python\ndef add_one(x):\n    return x + 1\n```\nDone."}])");
  ASSERT_TRUE(run.outcome) << run.outcome.status().to_string();
  EXPECT_EQ(run.outcome->final_code, "def add_one(x):\n    return x + 1\n");
  EXPECT_EQ(run.usage.turns, 1);
  EXPECT_EQ(run.usage.tool_calls, 0);
}

TEST_F(OneShot, AcceptsCodeSentAsAToolCall) {
  auto run = run_with(R"([{"tool_calls":[{"name":"submit","arguments":{"code":"def add_one(x): return x"}}]}])");
  ASSERT_TRUE(run.outcome);
  EXPECT_EQ(run.outcome->final_code, "def add_one(x): return x");
}

TEST_F(OneShot, AReplyWithoutCodeLeavesNothingToScore) {
  auto run = run_with(R"([{"content":"I cannot do that."}])");
  ASSERT_TRUE(run.outcome);
  EXPECT_EQ(run.outcome->final_code, "");
  EXPECT_NE(run.outcome->summary.find("no code"), std::string::npos);
}

TEST_F(OneShot, AFailedModelCallEndsTheEpisodeWithItsReason) {
  auto run = run_with(R"([{"error":"deadline_exceeded: no answer in 600 s"}])");
  ASSERT_FALSE(run.outcome);
  EXPECT_EQ(run.outcome.status().code(), StatusCode::deadline_exceeded);
}

TEST_F(OneShot, ConfigErrorsPointAtTheKey) {
  auto workflow = create<Workflow>("tritongym.workflow.one-shot", R"({"max_output_tokens":0})");
  ASSERT_FALSE(workflow);
  EXPECT_EQ(workflow.status().location(), "/max_output_tokens");
  auto typo = create<Workflow>("tritongym.workflow.one-shot", R"({"temprature":0.2})");
  EXPECT_NE(typo.status().message().find("did you mean 'temperature'"), std::string::npos);
}

}  // namespace
}  // namespace tritongym::plugins
