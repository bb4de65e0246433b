// The conformance kit: one set of test bodies that every plugin of a kind must pass.
// By default it runs against every plugin in <build>/plugins; set TRITONGYM_CONFORMANCE_PATH
// (colon-separated folders) to run it against other plugins, e.g. an out-of-tree one.
// A plugin's plugin.yaml may give `conformance: {config: ...}`: the config the kit creates it with.
#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "episode/episode.hpp"
#include "plugins/loader.hpp"
#include "support/test_support.hpp"

namespace tritongym::plugins {

// Test names show the plugin id, not the manifest's bytes.
void PrintTo(const PluginManifest& manifest, std::ostream* out) { *out << manifest.id; }

namespace {

std::vector<std::string> conformance_paths() {
  const char* env = std::getenv("TRITONGYM_CONFORMANCE_PATH");
  return split_path_list(env && *env ? env : testing::builtin_plugin_dir());
}

std::vector<PluginManifest> manifests_of(std::optional<PluginKind> kind) {
  std::vector<PluginManifest> out;
  for (auto& manifest : scan_manifests(conformance_paths()).manifests)
    if (!kind || manifest.kind == *kind) out.push_back(manifest);
  return out;
}

std::string test_name(const ::testing::TestParamInfo<PluginManifest>& info) {
  std::string name = info.param.id;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

// Conformance configs may name "${TRITONGYM_TEST_LLM_SERVER}": the kit's loopback LLM server
// (tests/fixtures/llm_server), started on first use, speaking the OpenAI and Anthropic formats.
std::string with_test_server(std::string config) {
  const std::string placeholder = "${TRITONGYM_TEST_LLM_SERVER}";
  size_t at = config.find(placeholder);
  if (at == std::string::npos) return config;
  static testing::LoopbackLlmServer server;  // killed at the process's exit, by its destructor
  for (; at != std::string::npos; at = config.find(placeholder)) config.replace(at, placeholder.size(), server.base_url());
  return config;
}

// Loads the plugin under test (alone) and creates its objects.
class PluginConformance : public ::testing::TestWithParam<PluginManifest> {
 protected:
  void SetUp() override {
    Status loaded = load_plugin(GetParam(), registry_);
    ASSERT_TRUE(loaded) << loaded.message();
    registry_.freeze();
  }

  PluginContext context(std::string config_json) const {
    PluginContext context;
    context.config_json = with_test_server(std::move(config_json));
    context.config_origin = "conformance kit";
    context.plugin_dir = GetParam().directory;
    context.project_root = testing::source_dir();
    return context;
  }

  // The manifest's conformance config with one key added.
  std::string config_with(const std::string& key, const boost::json::value& value) const {
    boost::json::value config = boost::json::parse(GetParam().conformance_config_json);
    if (!config.is_object()) config = boost::json::object();
    config.as_object()[key] = value;
    return boost::json::serialize(config);
  }

  template <class Interface>
  Result<std::unique_ptr<Interface>> create(const std::string& config_json) const {
    return registry_.create<Interface>(GetParam().id, context(config_json));
  }

  template <class Interface>
  void expect_config_contract() {
    const PluginManifest& manifest = GetParam();
    auto created = create<Interface>(manifest.conformance_config_json);
    ASSERT_TRUE(created) << manifest.id << " cannot be created with its conformance config: "
                         << created.status().to_string();
    // Unknown keys are refused with the key's JSON pointer (the host turns it into file:line).
    auto unknown = create<Interface>(config_with("tritongym_conformance_no_such_key", 1));
    ASSERT_FALSE(unknown) << manifest.id << " accepted an unknown config key";
    EXPECT_EQ(unknown.status().code(), StatusCode::invalid_config);
    EXPECT_EQ(unknown.status().location(), "/tritongym_conformance_no_such_key");
    // Non-object config is an error value, not a crash.
    EXPECT_FALSE(create<Interface>("[1, 2]"));
    EXPECT_FALSE(create<Interface>("{not json"));
    // Every key and default that plugin.yaml documents is one the plugin knows, of the right type
    // (a default may still be refused for other reasons, e.g. a key that the environment lacks).
    for (const auto& field : manifest.config) {
      if (field.default_value.empty()) continue;
      auto with_default = create<Interface>(config_with(field.name, boost::json::parse(field.default_value)));
      if (with_default) continue;
      const Status& status = with_default.status();
      bool type_or_name = status.location() == "/" + field.name &&
                          (status.message().rfind("expected ", 0) == 0 || status.message().rfind("unknown key", 0) == 0);
      EXPECT_FALSE(type_or_name) << "plugin.yaml documents " << field.name << ": " << field.default_value
                                 << " but the plugin's config struct disagrees: " << status.to_string();
    }
  }

  Registry registry_;
};

// ------------------------------------------------------------------ every plugin

class AnyPlugin : public PluginConformance {};

TEST_P(AnyPlugin, RegistersExactlyItsManifestIdUnderItsKind) {
  const PluginManifest& manifest = GetParam();
  EXPECT_TRUE(registry_.contains(manifest.kind, manifest.id));
  EXPECT_EQ(manifest.id.find(std::string(".") + kind_name(manifest.kind) + "."), manifest.id.find('.'));
  EXPECT_FALSE(manifest.description.empty());
  EXPECT_FALSE(manifest.version.empty());
}

INSTANTIATE_TEST_SUITE_P(Conformance, AnyPlugin, ::testing::ValuesIn(manifests_of(std::nullopt)), test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(AnyPlugin);

// ------------------------------------------------------------------ backends

class BackendPlugin : public PluginConformance {};

TEST_P(BackendPlugin, HonoursTheConfigContract) { expect_config_contract<ModelBackend>(); }

TEST_P(BackendPlugin, AnswersAsTheAssistantAndServesConcurrentCalls) {
  auto backend = create<ModelBackend>(GetParam().conformance_config_json);
  ASSERT_TRUE(backend) << backend.status().to_string();
  EXPECT_FALSE((*backend)->model_name().empty());
  ChatRequest request;
  request.task_id = "tiny/add-one";  // a fixture task: the oracle backend answers from its folder
  request.messages.push_back({Role::user, "Write a kernel.", {}, {}, {}});
  auto first = (*backend)->chat(request);
  ASSERT_TRUE(first) << first.status().to_string();
  EXPECT_EQ(first->message.role, Role::assistant);
  EXPECT_GE(first->usage.input_tokens, 0);
  EXPECT_GE(first->usage.output_tokens, 0);
  // chat() is documented thread-safe: concurrent calls must not crash or interfere.
  std::vector<std::thread> threads;
  std::vector<std::string> contents(8);
  for (size_t i = 0; i < contents.size(); ++i)
    threads.emplace_back([&, i] {
      auto response = (*backend)->chat(request);
      contents[i] = response ? response->message.content : "error: " + response.status().message();
    });
  for (auto& thread : threads) thread.join();
  for (const auto& content : contents) EXPECT_EQ(content, first->message.content);
}

INSTANTIATE_TEST_SUITE_P(Conformance, BackendPlugin, ::testing::ValuesIn(manifests_of(PluginKind::backend)), test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(BackendPlugin);

// ------------------------------------------------------------------ suites

class SuitePlugin : public PluginConformance {};

TEST_P(SuitePlugin, HonoursTheConfigContract) { expect_config_contract<Suite>(); }

TEST_P(SuitePlugin, TasksAreCompleteAndUnique) {
  auto suite = create<Suite>(GetParam().conformance_config_json);
  ASSERT_TRUE(suite) << suite.status().to_string();
  auto tasks = (*suite)->load_tasks();
  ASSERT_TRUE(tasks) << tasks.status().to_string();
  ASSERT_FALSE(tasks->empty()) << "the conformance config should select at least one task";
  std::set<std::string> ids;
  for (const auto& task : *tasks) {
    SCOPED_TRACE(task.id);
    EXPECT_TRUE(ids.insert(task.id).second) << "duplicate task id";
    EXPECT_FALSE(task.entry_function.empty());
    EXPECT_FALSE(task.description.empty());
    EXPECT_FALSE(task.visible_shapes.empty());
    EXPECT_TRUE(task.split == "standard" || task.split == "ood" || task.split == "dsl" || task.split == "community");
  }
  auto again = (*suite)->load_tasks();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->size(), tasks->size()) << "load_tasks must be repeatable";
}

INSTANTIATE_TEST_SUITE_P(Conformance, SuitePlugin, ::testing::ValuesIn(manifests_of(PluginKind::suite)), test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SuitePlugin);

// ------------------------------------------------------------------ workflows

class WorkflowPlugin : public PluginConformance {
 protected:
  // A real scripted backend, loaded from the built-in plugins, that always submits a trivial file.
  std::unique_ptr<ModelBackend> scripted_model() {
    load_plugin(*read_manifest(testing::builtin_plugin_dir() + "/tritongym_backend_scripted/plugin.yaml"), backends_);
    PluginContext context;
    context.config_json =
        R"({"repeat_last":true,"replies":[{"content":"```python\ndef entry(x):\n    return x\n```",
            "tool_calls":[{"name":"submit","arguments":{"code":"def entry(x):\n    return x\n"}}]}]})";
    auto backend = backends_.create<ModelBackend>("tritongym.backend.scripted", context);
    EXPECT_TRUE(backend) << backend.status().to_string();
    return backend ? std::move(backend.value()) : nullptr;
  }
  episode::EpisodeSetup setup(ModelBackend* model, Budget budget) {
    episode::EpisodeSetup setup;
    setup.task.id = "conformance/identity";
    setup.task.entry_function = "entry";
    setup.task.entry_parameters = {"x"};
    setup.task.description = "Return x.";
    setup.task.dsl = "triton";
    setup.task.visible_shapes = {{"visible-0", {{"N", 16}}}};
    setup.model = model;
    setup.budget = std::move(budget);
    return setup;
  }
  Registry backends_;
};

TEST_P(WorkflowPlugin, HonoursTheConfigContract) { expect_config_contract<Workflow>(); }

TEST_P(WorkflowPlugin, RunsAnEpisodeToItsEndWithinBudget) {
  auto workflow = create<Workflow>(GetParam().conformance_config_json);
  ASSERT_TRUE(workflow) << workflow.status().to_string();
  auto model = scripted_model();
  ASSERT_TRUE(model);
  Budget budget;
  budget.max_turns = 6;
  budget.max_tool_calls = 6;
  episode::Episode episode(setup(model.get(), budget));
  auto outcome = (*workflow)->run(episode);
  ASSERT_TRUE(outcome) << outcome.status().to_string();
  EXPECT_GE(episode.usage().turns, 1) << "a workflow must consult the model";
  EXPECT_LE(episode.usage().turns, 6);
  bool has_candidate = !outcome->final_code.empty() || !episode.last_candidate().empty();
  EXPECT_TRUE(has_candidate) << "the scripted model offered code; the workflow kept none";
}

TEST_P(WorkflowPlugin, StopsCleanlyWhenTheBudgetIsAlreadySpent) {
  auto workflow = create<Workflow>(GetParam().conformance_config_json);
  ASSERT_TRUE(workflow);
  auto model = scripted_model();
  Budget budget;
  budget.max_turns = 0;
  episode::Episode episode(setup(model.get(), budget));
  auto outcome = (*workflow)->run(episode);  // an error value or an outcome, never a crash or a hang
  EXPECT_EQ(episode.usage().turns, 0);
  if (!outcome) {
    EXPECT_EQ(outcome.status().code(), StatusCode::resource_exhausted);
  }
}

INSTANTIATE_TEST_SUITE_P(Conformance, WorkflowPlugin, ::testing::ValuesIn(manifests_of(PluginKind::workflow)), test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(WorkflowPlugin);

// ------------------------------------------------------------------ tools, executors, DSLs

class ToolPlugin : public PluginConformance {};
TEST_P(ToolPlugin, HonoursTheConfigContract) { expect_config_contract<Tool>(); }
TEST_P(ToolPlugin, SchemaIsAJsonObjectSchema) {
  auto tool = create<Tool>(GetParam().conformance_config_json);
  ASSERT_TRUE(tool);
  ToolSchema schema = (*tool)->schema();
  EXPECT_FALSE(schema.name.empty());
  EXPECT_FALSE(schema.description.empty());
  boost::json::value parameters = boost::json::parse(schema.parameters_json);
  ASSERT_TRUE(parameters.is_object());
  EXPECT_EQ(parameters.as_object().at("type"), "object");
}
INSTANTIATE_TEST_SUITE_P(Conformance, ToolPlugin, ::testing::ValuesIn(manifests_of(PluginKind::tool)), test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ToolPlugin);

class ExecutorPlugin : public PluginConformance {};
TEST_P(ExecutorPlugin, HonoursTheConfigContract) { expect_config_contract<Executor>(); }
TEST_P(ExecutorPlugin, JudgesAnOracleAndAWrongCandidate) {
  PluginContext plugin = context(GetParam().conformance_config_json);
  const char* python = std::getenv("TRITONGYM_PYTHON");
  std::string venv = testing::source_dir() + "/.venv/bin/python";
  plugin.python_executable = python && *python ? python : std::filesystem::exists(venv) ? venv : "/usr/bin/python3";
  auto executor = registry_.create<Executor>(GetParam().id, plugin);
  ASSERT_TRUE(executor) << executor.status().to_string();
  Status available = (*executor)->availability();
  if (!available.is_ok()) GTEST_SKIP() << GetParam().id << " cannot run here: " << available.message();
  EXPECT_GE((*executor)->info().parallel_slots, 1);
  EXPECT_FALSE((*executor)->info().device.empty());
  EvaluationRequest request;
  request.task.id = "tiny/add-one";
  request.task.entry_function = "add_one";
  request.task.entry_parameters = {"x"};
  request.task.reference_path = testing::source_dir() + "/tests/fixtures/suites/tiny/add-one/reference.py";
  request.task.inputs_json = R"([{"name":"x","shape":["N"]}])";
  request.task.visible_shapes = {{"visible-0", {{"N", 1000}}}};
  request.task.dtypes = {"float32"};
  std::ifstream oracle(testing::source_dir() + "/tests/fixtures/suites/tiny/add-one/oracle.py");
  request.source_code.assign(std::istreambuf_iterator<char>(oracle), {});
  auto passed = (*executor)->evaluate(request);
  ASSERT_TRUE(passed) << passed.status().to_string();
  EXPECT_EQ(passed->verdict, Verdict::passed) << passed->message;
  request.source_code = "def add_one(x):\n    return x + 2\n";
  auto wrong = (*executor)->evaluate(request);
  ASSERT_TRUE(wrong) << wrong.status().to_string();
  EXPECT_EQ(wrong->verdict, Verdict::wrong_answer) << wrong->message;
}
INSTANTIATE_TEST_SUITE_P(Conformance, ExecutorPlugin, ::testing::ValuesIn(manifests_of(PluginKind::executor)), test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ExecutorPlugin);

class DslPlugin : public PluginConformance {};
TEST_P(DslPlugin, HonoursTheConfigContract) { expect_config_contract<Dsl>(); }
TEST_P(DslPlugin, NamesItselfAndServesDocs) {
  auto dsl = create<Dsl>(GetParam().conformance_config_json);
  ASSERT_TRUE(dsl);
  EXPECT_FALSE((*dsl)->name().empty());
  EXPECT_FALSE((*dsl)->candidate_rules().empty());
  auto docs = (*dsl)->docs("program_id");
  ASSERT_TRUE(docs) << docs.status().to_string();
  EXPECT_FALSE(docs->empty());
}
// Executors know frontends by short lowercase names ("gluon", "triton"); "" sets no rule at run time.
TEST_P(DslPlugin, NamesTheFrontendOfItsKernels) {
  auto dsl = create<Dsl>(GetParam().conformance_config_json);
  ASSERT_TRUE(dsl);
  const std::string frontend = (*dsl)->required_kernel_frontend();
  for (char c : frontend) EXPECT_TRUE(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-') << frontend;
  EXPECT_EQ(frontend, (*dsl)->required_kernel_frontend()) << "constant for the object's lifetime";
}
INSTANTIATE_TEST_SUITE_P(Conformance, DslPlugin, ::testing::ValuesIn(manifests_of(PluginKind::dsl)), test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(DslPlugin);

}  // namespace
}  // namespace tritongym::plugins
