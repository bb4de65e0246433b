// The Triton executors through their real plugin libraries and real worker processes, against the
// fixture candidates in tests/fixtures/candidates/. Compiled once, linked twice: for the interpreter (CI) and for
// CUDA (label gpu; skipped visibly without a GPU); kExecutorUnderTest (executor_under_test_*.cpp) names the
// executor.
#include <boost/json.hpp>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "episode/episode.hpp"
#include "episode/episode_runner.hpp"
#include "judging/dsl_rule.hpp"
#include "plugins/loader.hpp"
#include "support/test_support.hpp"

namespace tritongym::plugins {

extern const char* const kExecutorUnderTest;  // constant-initialized: ready before kExecutor below

namespace {

const std::string kExecutor = kExecutorUnderTest;
const bool kCuda = kExecutor == "tritongym.executor.triton-cuda";
constexpr const char* kSecret = "sk-tritongym-test-secret-4242";

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The rows of a fixture corpus's README table (tests/fixtures/adversarial/, tests/fixtures/realworld/): each row whose
// first cell names a file in backticks, split into its cells, trimmed; the first cell is the bare file name.
std::vector<std::vector<std::string>> fixture_table(const std::string& readme_path) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream table(read_file(readme_path));
  for (std::string line; std::getline(table, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    std::vector<std::string> cells;
    std::stringstream row(line.substr(1));
    for (std::string cell; std::getline(row, cell, '|');) {
      cell.erase(0, cell.find_first_not_of(' '));
      cell.erase(cell.find_last_not_of(' ') + 1);
      cells.push_back(cell);
    }
    cells[0] = cells[0].substr(1, cells[0].size() - 2);
    rows.push_back(std::move(cells));
  }
  return rows;
}

// Whether a record's autotune_benchmarks shows a config that could not run: its time in timings_us
// ({kernel: {key: {config: µs}}}) is null.
bool shows_a_failed_config(const boost::json::value& benchmarks) {
  const auto* timings = benchmarks.is_object() ? benchmarks.as_object().if_contains("timings_us") : nullptr;
  if (!timings || !timings->is_object()) return false;
  for (const auto& kernel : timings->as_object()) {
    if (!kernel.value().is_object()) continue;
    for (const auto& key : kernel.value().as_object()) {
      if (!key.value().is_object()) continue;
      for (const auto& config : key.value().as_object())
        if (config.value().is_null()) return true;
    }
  }
  return false;
}

#define EXPECT_VERDICT(result, expected) \
  EXPECT_EQ(verdict_name((result).verdict), std::string(verdict_name(expected))) << (result).message

class TritonExecutorTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // Secrets in the host's environment must never reach a candidate.
    ::setenv("OPENAI_API_KEY", kSecret, 1);
    ::setenv("ANTHROPIC_API_KEY", kSecret, 1);
    registry_ = new Registry;
    load_plugins({testing::builtin_plugin_dir()}, *registry_);
    auto executor = registry_->create<Executor>(kExecutor, context(R"({"workers": 2, "recycle_after": 100, "timing_seconds": 0.15})"));
    ASSERT_TRUE(executor) << executor.status().to_string();
    executor_ = executor->release();
    available_ = executor_->availability();
    auto suite = registry_->create<Suite>("tritongym.suite.directory", context("{}"));
    ASSERT_TRUE(suite);
    auto tasks = (*suite)->load_tasks();
    ASSERT_TRUE(tasks) << tasks.status().to_string();
    tasks_ = new std::vector<TaskSpec>(tasks.value());
  }
  static void TearDownTestSuite() {
    delete executor_;  // kills the workers
    delete tasks_;
    delete registry_;
  }
  void SetUp() override {
    if (!available_.is_ok()) GTEST_SKIP() << kExecutor << " cannot run here: " << available_.message();
  }

  static PluginContext context(const std::string& config) {
    PluginContext plugin;
    plugin.config_json = config;
    plugin.project_root = testing::source_dir();
    plugin.python_executable = environment_python();
    if (const auto* origin = registry_->origin(kExecutor)) plugin.plugin_dir = origin->manifest.directory;
    return plugin;
  }
  static std::string environment_python() {
    const char* configured = std::getenv("TRITONGYM_PYTHON");
    if (configured && *configured) return configured;
    std::string venv = testing::source_dir() + "/.venv/bin/python";
    return std::filesystem::exists(venv) ? venv : "/usr/bin/python3";
  }
  static const TaskSpec& task(const std::string& id) {
    for (const auto& task : *tasks_)
      if (task.id == id) return task;
    throw std::runtime_error("no task " + id);
  }

  EvaluationResult evaluate(const std::string& fixture, EvaluationStage stage = EvaluationStage::test,
                            double timeout_s = 60, Executor* on = nullptr) {
    auto result = (on ? on : executor_)
                      ->evaluate(vector_add_request("tests/fixtures/candidates/vector-add/" + fixture + ".py", stage,
                                                    2, timeout_s));
    EXPECT_TRUE(result) << result.status().to_string();
    return result ? result.value() : EvaluationResult{};
  }
  // `fixture` judged while slow_checks.py is being checked beside it, in the executor's other worker (each of its
  // checks holds its share of the GPU for 0.6 s): {slow_checks.py's result, the fixture's}.
  std::pair<EvaluationResult, EvaluationResult> beside_slow_checks(const std::string& fixture, EvaluationStage stage,
                                                                   double timeout_s) {
    std::optional<EvaluationResult> slow;
    std::thread beside([&] { slow = evaluate("slow_checks", EvaluationStage::benchmark, 300); });
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));  // slow_checks.py has compiled, and checks
    EvaluationResult other = evaluate(fixture, stage, timeout_s);
    beside.join();
    EXPECT_TRUE(slow.has_value());
    if (slow) {  // the checks beside pass, and nothing in them is flagged, whatever the fixture did
      EXPECT_VERDICT(*slow, Verdict::passed);
      EXPECT_TRUE(slow->flags.empty()) << slow->message;
    }
    return {slow.value_or(EvaluationResult{}), std::move(other)};
  }
  // A vector-add candidate from a file of the repository.
  static EvaluationRequest vector_add_request(const std::string& path, EvaluationStage stage, int64_t seeds,
                                              double timeout_s) {
    EvaluationRequest request;
    request.task = task("standard/vector-add");
    request.source_code = read_file(testing::source_dir() + "/" + path);
    request.stage = stage;
    request.seeds_per_shape = seeds;
    request.timeout_s = timeout_s;
    return request;
  }
  // A key of the record as JSON text ("" when it is missing).
  static std::string record_value(const EvaluationResult& result, const char* key) {
    if (result.record_json.empty()) return "";
    auto record = boost::json::parse(result.record_json).as_object();
    const auto* value = record.if_contains(key);
    return value ? boost::json::serialize(*value) : std::string();
  }
  // The record's cases_prepared: {made, found}.
  static std::pair<int64_t, int64_t> cases_prepared(const EvaluationResult& result) {
    auto record = boost::json::parse(result.record_json).as_object();
    const auto& counts = record.at("cases_prepared").as_object();
    return {counts.at("made").to_number<int64_t>(), counts.at("found").to_number<int64_t>()};
  }
  static std::string record_text(const EvaluationResult& result, const char* key) {
    auto record = boost::json::parse(result.record_json).as_object();
    const auto* value = record.if_contains(key);
    return value && value->is_string() ? std::string(value->as_string()) : std::string();
  }

  static Registry* registry_;
  static Executor* executor_;
  static Status available_;
  static std::vector<TaskSpec>* tasks_;
};
Registry* TritonExecutorTest::registry_ = nullptr;
Executor* TritonExecutorTest::executor_ = nullptr;
Status TritonExecutorTest::available_;
std::vector<TaskSpec>* TritonExecutorTest::tasks_ = nullptr;

// The oracle sweep, as `tritongym tasks check` runs it: the final score of every oracle, with no baselines timed
// (torch.compile of a reference that loops took up to 295 s a task on the H200), but the speed-of-light floor.
TEST_F(TritonExecutorTest, EveryShippedOraclePasses) {
  // On the interpreter the ctest tasks_audit_on_the_interpreter runs every oracle at its small shapes (with the
  // degenerate-output checks besides): running them all here again took 319 s of CI (2026-12-07).
  if (!kCuda) GTEST_SKIP() << "on the interpreter, tasks_audit_on_the_interpreter checks every oracle";
  auto made = registry_->create<Executor>(kExecutor, context(R"({"workers": 2, "timing_seconds": 0.15, "baselines": []})"));
  ASSERT_TRUE(made) << made.status().to_string();
  for (const auto& task : *tasks_) {
    SCOPED_TRACE(task.id);
    if (!kCuda && task.dsl == "gluon") continue;  // Gluon has no interpreter
    EvaluationRequest request;
    request.task = task;
    request.source_code = read_file(task.oracle_path);
    request.stage = EvaluationStage::final_score;
    auto result = (*made)->evaluate(request);
    ASSERT_TRUE(result) << result.status().to_string();
    EXPECT_VERDICT(*result, Verdict::passed);
    EXPECT_FALSE(result->shapes.empty());
    for (const auto& shape : result->shapes) EXPECT_TRUE(shape.passed) << shape.shape << " " << shape.first_mismatch;
    if (kCuda) {  // on a GPU the final score covers the visible and the held-out shapes in every dtype, each timed
      const size_t dtypes = std::max<size_t>(task.dtypes.size(), 1);
      EXPECT_EQ(result->shapes.size(), (task.visible_shapes.size() + task.held_out_shapes.size()) * dtypes);
      for (const auto& shape : result->shapes) {
        ASSERT_TRUE(shape.timing) << shape.shape;
        EXPECT_FALSE(shape.timing->eager_us || shape.timing->compile_us || shape.timing->oracle_us) << shape.shape;
        if (!task.bytes_formula.empty()) {
          EXPECT_TRUE(shape.timing->speed_of_light_us) << shape.shape;
        }
      }
    }
  }
}

// Baselines are chosen by name; a name that is none of them is refused where it stands in the config.
TEST_F(TritonExecutorTest, AnUnknownBaselineIsAConfigErrorThatSaysWhere) {
  auto made = registry_->create<Executor>(kExecutor, context(R"({"baselines": ["eager", "compiled"]})"));
  ASSERT_FALSE(made);
  std::string error = made.status().to_string();
  EXPECT_NE(error.find("/baselines/1"), std::string::npos) << error;
  EXPECT_NE(error.find("'compiled'"), std::string::npos) << error;
  EXPECT_NE(error.find("did you mean 'compile'"), std::string::npos) << error;
  EXPECT_TRUE(registry_->create<Executor>(kExecutor, context(R"({"baselines": ["oracle"]})")));
}

TEST_F(TritonExecutorTest, CorrectCandidatePasses) {
  auto result = evaluate("correct");
  EXPECT_VERDICT(result, Verdict::passed);
  EXPECT_NE(result.message.find("within TritonGym's 0.01"), std::string::npos);
}

TEST_F(TritonExecutorTest, TheRecordSaysWhereTheTimeWent) {
  auto result = evaluate("correct");
  EXPECT_VERDICT(result, Verdict::passed);
  auto record = boost::json::parse(result.record_json).as_object();
  const auto& phases = record.at("phase_seconds").as_object();
  for (const char* phase : {"prepare", "candidate", "compare"}) EXPECT_GT(phases.at(phase).to_number<double>(), 0.0) << phase;
  EXPECT_TRUE(phases.contains("worker_wait")) << result.record_json.substr(0, 2000);  // apart from prepare_wait
  // Inside the candidate's child: the parts add up to no more than the whole candidate phase.
  const auto& inside = record.at("candidate_phases").as_object();
  double parts = 0.0;
  for (const char* phase : {"setup", "import", "load_inputs", "run", "save_outputs"}) {
    ASSERT_TRUE(inside.contains(phase)) << phase << " in " << result.record_json.substr(0, 2000);
    parts += inside.at(phase).to_number<double>();
  }
  EXPECT_GT(inside.at("run").to_number<double>(), 0.0);
  EXPECT_GT(inside.at("load_inputs").to_number<double>(), 0.0);
  EXPECT_LE(parts, phases.at("candidate").to_number<double>());
}

TEST_F(TritonExecutorTest, CompileStageReportsKernels) {
  auto result = evaluate("correct", EvaluationStage::compile);
  EXPECT_VERDICT(result, Verdict::passed);
  if (kCuda) {
    EXPECT_NE(result.record_json.find("\"registers\":"), std::string::npos) << result.record_json;
    EXPECT_NE(result.record_json.find("add_kernel"), std::string::npos);
  }
}

TEST_F(TritonExecutorTest, WrongAnswerSaysWhere) {
  auto result = evaluate("wrong");
  EXPECT_VERDICT(result, Verdict::wrong_answer);
  EXPECT_NE(result.message.find("expected"), std::string::npos) << result.message;
  ASSERT_FALSE(result.shapes.empty());
  EXPECT_FALSE(result.shapes[0].passed);
  EXPECT_NEAR(result.shapes[0].max_abs_error, 1e-3, 2e-4);
  EXPECT_NE(result.shapes[0].first_mismatch.find("output[0]"), std::string::npos) << result.shapes[0].first_mismatch;
}

TEST_F(TritonExecutorTest, SyntaxErrorIsACompileErrorWithItsLine) {
  auto result = evaluate("syntax_error");
  EXPECT_VERDICT(result, Verdict::compile_error);
  EXPECT_NE(result.message.find("candidate.py, line 4"), std::string::npos) << result.message;
  // Judged by the static checks' compile: no case made, no child forked, at every stage.
  for (auto stage : {EvaluationStage::test, EvaluationStage::compile}) {
    auto judged = evaluate("syntax_error", stage);
    EXPECT_VERDICT(judged, Verdict::compile_error);
    EXPECT_EQ(judged.message, result.message);
    auto record = boost::json::parse(judged.record_json).as_object();
    EXPECT_TRUE(record.contains("not_run")) << judged.record_json;
    EXPECT_FALSE(record.contains("cases_prepared")) << judged.record_json;
    EXPECT_FALSE(record.contains("candidate_phases")) << judged.record_json;
    EXPECT_FALSE(record.at("phase_seconds").as_object().contains("prepare")) << judged.record_json;
  }
}

TEST_F(TritonExecutorTest, MissingEntryIsACompileError) {
  auto result = evaluate("no_entry");
  EXPECT_VERDICT(result, Verdict::compile_error);
  EXPECT_NE(result.message.find("no function `vector_add`"), std::string::npos) << result.message;
}

TEST_F(TritonExecutorTest, ExceptionIsARuntimeErrorWithItsLine) {
  auto result = evaluate("raises");
  EXPECT_VERDICT(result, Verdict::runtime_error);
  EXPECT_NE(result.message.find("candidate.py, line 20, in vector_add"), std::string::npos) << result.message;
  EXPECT_NE(result.message.find("KeyError"), std::string::npos);
}

TEST_F(TritonExecutorTest, HangsTimeOutAndThePoolKeepsServing) {
  auto python_hang = evaluate("hang_python", EvaluationStage::test, 4);
  EXPECT_VERDICT(python_hang, Verdict::timeout);
  auto kernel_hang = evaluate("hang_kernel", EvaluationStage::test, kCuda ? 15 : 4);
  EXPECT_VERDICT(kernel_hang, Verdict::timeout);
  EXPECT_VERDICT(evaluate("correct"), Verdict::passed);
}

TEST_F(TritonExecutorTest, CrashIsReportedAndThePoolKeepsServing) {
  auto result = evaluate("crash");
  EXPECT_VERDICT(result, Verdict::crash);
  EXPECT_NE(result.message.find("SIGSEGV"), std::string::npos) << result.message;
  auto exited = evaluate("exits");
  EXPECT_VERDICT(exited, Verdict::crash);
  EXPECT_VERDICT(evaluate("correct"), Verdict::passed);
}

TEST_F(TritonExecutorTest, IllegalAddressIsCaughtAndThePoolKeepsServing) {
  auto result = evaluate("illegal_address");
  EXPECT_TRUE(result.verdict == Verdict::runtime_error || result.verdict == Verdict::crash)
      << verdict_name(result.verdict) << ": " << result.message;
  if (kCuda) {
    EXPECT_NE(result.message.find("illegal"), std::string::npos) << result.message;
  }
  EXPECT_VERDICT(evaluate("correct"), Verdict::passed);
}

TEST_F(TritonExecutorTest, RunningOutOfMemoryIsAnOomVerdict) {
  auto result = evaluate("oom", EvaluationStage::test, 120);
  EXPECT_VERDICT(result, Verdict::oom);
  EXPECT_VERDICT(evaluate("correct"), Verdict::passed);
}

TEST_F(TritonExecutorTest, ForkingIsRefused) {
  auto result = evaluate("forks");
  EXPECT_VERDICT(result, Verdict::runtime_error);
  EXPECT_NE(result.message.find("outlived"), std::string::npos) << result.message;
}

TEST_F(TritonExecutorTest, WritingOutsideItsFolderIsRefused) {
  std::filesystem::remove("/tmp/tritongym-escaped.txt");
  auto result = evaluate("writes_outside");
  EXPECT_VERDICT(result, Verdict::runtime_error);
  EXPECT_NE(result.message.find("Permission denied"), std::string::npos) << result.message;
  EXPECT_FALSE(std::filesystem::exists("/tmp/tritongym-escaped.txt"));
}

TEST_F(TritonExecutorTest, TheReferenceCacheIsOutOfReach) {
  auto result = evaluate("reads_reference");
  EXPECT_VERDICT(result, Verdict::runtime_error);
  EXPECT_NE(result.message.find("Permission denied"), std::string::npos) << result.message;
}

TEST_F(TritonExecutorTest, TheReferenceWorkersMemoryIsOutOfReach) {
  auto result = evaluate("reads_reference_memory");
  EXPECT_EQ(result.stdout_text.find("NO REFERENCE FOUND"), std::string::npos)
      << "the fixture did not find the reference worker; the test proves nothing: " << result.stdout_text;
  EXPECT_NE(result.stdout_text.find("BLOCKED"), std::string::npos) << result.stdout_text;
  EXPECT_EQ(result.stdout_text.find("READ"), std::string::npos) << result.stdout_text;
}

// What lets the host hold a child (the driver's checkpoint lock) must not let a candidate hold the reference
// worker: that would stop every evaluation. docs/anti-cheat.md, "The driver's checkpoint API".
TEST_F(TritonExecutorTest, ACandidateCannotHoldTheReferenceWorkerThroughTheDriver) {
  if (!kCuda) GTEST_SKIP() << "the checkpoint lock is the CUDA driver's";
  auto result = evaluate("holds_reference");
  EXPECT_VERDICT(result, Verdict::passed);
  if (result.stdout_text.find("NO CHECKPOINT API") != std::string::npos)
    GTEST_SKIP() << "this driver has no checkpoint API (older than CUDA 12.8)";
  EXPECT_EQ(result.stdout_text.find("NO REFERENCE FOUND"), std::string::npos)
      << "the fixture did not find the reference worker; the test proves nothing: " << result.stdout_text;
  EXPECT_NE(result.stdout_text.find("REFUSED"), std::string::npos) << result.stdout_text;
  EXPECT_EQ(result.stdout_text.find("HELD"), std::string::npos) << result.stdout_text;
}

// Nor another evaluation's child, fork server or spare child: holds_siblings.py tries the driver's checkpoint lock
// on every harness process it can see while slow_checks.py is being checked beside it.
TEST_F(TritonExecutorTest, ACandidateCannotHoldAnotherEvaluationsProcessesThroughTheDriver) {
  if (!kCuda) GTEST_SKIP() << "the checkpoint lock is the CUDA driver's";
  EvaluationResult probe = beside_slow_checks("holds_siblings", EvaluationStage::test, 120).second;
  EXPECT_VERDICT(probe, Verdict::passed);
  if (probe.stdout_text.find("NO CHECKPOINT API") != std::string::npos)
    GTEST_SKIP() << "this driver has no checkpoint API (older than CUDA 12.8)";
  EXPECT_EQ(probe.stdout_text.find("NO OTHER CANDIDATE PROCESS FOUND"), std::string::npos)
      << "the fixture found no other candidate process; the test proves nothing: " << probe.stdout_text;
  EXPECT_NE(probe.stdout_text.find("REFUSED candidate"), std::string::npos) << probe.stdout_text;
  EXPECT_EQ(probe.stdout_text.find("HELD"), std::string::npos) << probe.stdout_text;
}

TEST_F(TritonExecutorTest, CandidatesSeeNoSecretOfTheHost) {
  auto result = evaluate("prints_environment");
  EXPECT_VERDICT(result, Verdict::passed);
  EXPECT_NE(result.stdout_text.find("PYTHONPATH="), std::string::npos) << "the candidate printed its environment";
  EXPECT_EQ(result.stdout_text.find(kSecret), std::string::npos) << result.stdout_text;
  EXPECT_EQ(result.stdout_text.find("OPENAI_API_KEY"), std::string::npos);
}

TEST_F(TritonExecutorTest, OutputsMustBeFreshTensors) {
  auto aliasing = evaluate("returns_input");
  EXPECT_VERDICT(aliasing, Verdict::wrong_answer);
  EXPECT_NE(aliasing.message.find("shares memory with input 0"), std::string::npos) << aliasing.message;
  auto modifying = evaluate("modifies_input");
  EXPECT_VERDICT(modifying, Verdict::wrong_answer);
  EXPECT_NE(modifying.message.find("input 1 was modified"), std::string::npos) << modifying.message;
  auto nan = evaluate("returns_nan");
  EXPECT_VERDICT(nan, Verdict::wrong_answer);
  EXPECT_NE(nan.message.find("nan"), std::string::npos) << nan.message;
}

// The fork servers' Triton cache is the machine's, under cache_dir, kept across runs; where that folder cannot be
// made (here a file stands in its way), each fork server keeps a cache of its own and candidates are judged as
// before.
TEST_F(TritonExecutorTest, TheForkServersTritonCacheIsTheMachinesWhereItCanBeMade) {
  const auto base = std::filesystem::temp_directory_path() / ("tritongym-cache-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(base);
  std::filesystem::create_directories(base / "usable");
  std::ofstream(base / "a-file") << "not a folder";
  for (const auto& [cache, made] : {std::pair{base / "usable", true}, std::pair{base / "a-file", false}}) {
    SCOPED_TRACE(cache.string());
    auto executor = registry_->create<Executor>(
        kExecutor, context(R"({"workers": 1, "timing_seconds": 0.15, "cache_dir": ")" + cache.string() + R"("})"));
    ASSERT_TRUE(executor) << executor.status().to_string();
    auto result = (*executor)->evaluate(vector_add_request("tests/fixtures/candidates/vector-add/correct.py",
                                                           EvaluationStage::test, 1, 120));
    ASSERT_TRUE(result) << result.status().to_string();
    EXPECT_VERDICT(*result, Verdict::passed);
    EXPECT_EQ(std::filesystem::is_directory(cache / "triton-fork-servers"), made);
    if (made && kCuda) {  // the fork server's warm-up compiled into it (nothing compiles on the interpreter)
      EXPECT_FALSE(std::filesystem::is_empty(cache / "triton-fork-servers"));
    }
  }
  std::filesystem::remove_all(base);
}

TEST_F(TritonExecutorTest, AnUnknownDataPlaneIsAConfigErrorThatSaysWhere) {
  auto made = registry_->create<Executor>(kExecutor, context(R"({"data_plane": "disk"})"));
  ASSERT_FALSE(made);
  EXPECT_NE(made.status().to_string().find("data_plane"), std::string::npos) << made.status().to_string();
  EXPECT_NE(made.status().to_string().find("disk"), std::string::npos) << made.status().to_string();
}

// A caller that says which evaluation comes next (Executor::expect) finds its cases made when it comes: the
// reference worker makes them while no evaluation wants it (prepare_ahead.hpp). The record says how many cases
// the reference worker made for an evaluation and how many it found made.
TEST_F(TritonExecutorTest, AnExpectedEvaluationFindsItsCasesMade) {
  auto made = registry_->create<Executor>(kExecutor, context(R"({"workers": 1, "timing_seconds": 0.15})"));
  ASSERT_TRUE(made) << made.status().to_string();
  std::unique_ptr<Executor> executor = std::move(made.value());
  ASSERT_TRUE(executor->availability().is_ok());
  auto oracle = [](const std::string& id) {
    EvaluationRequest request;
    request.task = task(id);
    request.source_code = read_file(request.task.oracle_path);
    request.stage = EvaluationStage::test;
    request.seeds_per_shape = 2;
    request.timeout_s = 120;
    return request;
  };
  // Told nothing: every case is made when the evaluation comes.
  auto first = executor->evaluate(oracle("standard/row-sum"));
  ASSERT_TRUE(first) << first.status().to_string();
  EXPECT_VERDICT(first.value(), Verdict::passed);
  auto [first_made, first_found] = cases_prepared(first.value());
  EXPECT_GT(first_made, 0);
  EXPECT_EQ(first_found, 0);
  // Told of the next one before judging another: its cases are made meanwhile.
  executor->expect(oracle("standard/transpose-2d"));
  auto between = executor->evaluate(oracle("standard/cumsum"));
  ASSERT_TRUE(between) << between.status().to_string();
  EXPECT_VERDICT(between.value(), Verdict::passed);
  auto expected = executor->evaluate(oracle("standard/transpose-2d"));
  ASSERT_TRUE(expected) << expected.status().to_string();
  EXPECT_VERDICT(expected.value(), Verdict::passed);
  auto [made_then, found_then] = cases_prepared(expected.value());
  EXPECT_EQ(made_then, 0) << expected->record_json.substr(0, 600);
  EXPECT_GT(found_then, 0);
  // The same request again finds everything made, by the evaluation before it.
  auto again = executor->evaluate(oracle("standard/row-sum"));
  ASSERT_TRUE(again);
  EXPECT_EQ(cases_prepared(again.value()), std::make_pair(int64_t{0}, first_made + first_found));
}

// A hint that cannot be prepared (its reference fails) changes nothing: the evaluation, when it comes, reports
// the failure as it would have without the hint, and the executor goes on serving.
TEST_F(TritonExecutorTest, AHintWhoseReferenceFailsLeavesTheEvaluationToSayWhy) {
  auto made = registry_->create<Executor>(kExecutor, context(R"({"workers": 1})"));
  ASSERT_TRUE(made) << made.status().to_string();
  std::unique_ptr<Executor> executor = std::move(made.value());
  ASSERT_TRUE(executor->availability().is_ok());
  testing::TemporaryDirectory dir;
  EvaluationRequest broken = vector_add_request("tests/fixtures/candidates/vector-add/correct.py", EvaluationStage::test,
                                                1, 60);
  broken.task.id = "standard/vector-add-broken-reference";
  broken.task.reference_path = dir.write("reference.py", "def reference(a, b):\n    raise ValueError('no reference today')\n");
  executor->expect(broken);
  auto result = executor->evaluate(broken);
  ASSERT_FALSE(result);
  EXPECT_NE(result.status().message().find("no reference today"), std::string::npos) << result.status().to_string();
  auto fine = executor->evaluate(vector_add_request("tests/fixtures/candidates/vector-add/correct.py",
                                                    EvaluationStage::test, 1, 60));
  ASSERT_TRUE(fine) << fine.status().to_string();
  EXPECT_VERDICT(fine.value(), Verdict::passed);
}

// This test process's children, from /proc: pid, state, name (as the kernel keeps it: 15 characters) and command
// line (empty for a zombie).
struct OwnChild {
  pid_t pid = 0;
  char state = 0;
  std::string name, command_line;
};
std::vector<OwnChild> own_children() {
  std::vector<OwnChild> found;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string pid = entry.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const auto close = line.rfind(')');
    const auto open = line.find('(');
    if (close == std::string::npos || open == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    OwnChild child;
    pid_t parent = 0;
    rest >> child.state >> parent;
    if (parent != ::getpid()) continue;
    child.pid = static_cast<pid_t>(std::stol(pid));
    child.name = line.substr(open + 1, close - open - 1);
    std::ifstream cmdline(entry.path() / "cmdline");
    child.command_line.assign(std::istreambuf_iterator<char>(cmdline), std::istreambuf_iterator<char>());
    found.push_back(std::move(child));
  }
  return found;
}

// The worker processes (`python -m tritongym_worker`) among them, by pid, and any child left unreaped
// ("<pid> zombie": a zombie's command line is gone, so which it was cannot be told).
std::vector<std::string> own_workers() {
  std::vector<std::string> found;
  for (const auto& child : own_children()) {
    if (child.state == 'Z') found.push_back(std::to_string(child.pid) + " zombie");
    else if (child.command_line.find("tritongym_worker") != std::string::npos) found.push_back(std::to_string(child.pid));
  }
  std::sort(found.begin(), found.end());
  return found;
}

// The executor is available once its reference worker is; its candidate workers may still be starting then
// (an evaluation waits for the first). One that is judged at once passes, and an executor ended at once, its
// candidate workers perhaps still starting, leaves no worker process behind, not even an unreaped one.
TEST_F(TritonExecutorTest, AnExecutorEndedWhileItsCandidateWorkersStartLeavesNoWorkerBehind) {
  const std::vector<std::string> before = own_workers();  // the suite's executor's
  for (const bool judge : {true, false}) {
    auto made = registry_->create<Executor>(kExecutor, context(R"({"workers": 2, "timing_seconds": 0.15})"));
    ASSERT_TRUE(made) << made.status().to_string();
    std::unique_ptr<Executor> executor = std::move(made.value());
    ASSERT_TRUE(executor->availability().is_ok());
    if (judge) {
      EXPECT_VERDICT(evaluate("correct", EvaluationStage::test, 120, executor.get()), Verdict::passed);
    }
    executor.reset();
    EXPECT_EQ(own_workers(), before) << (judge ? "after a judging" : "ended at once");
  }
}

// A reference worker that dies, or retires after stopping a torch.compile past its deadline, takes the GPU data
// plane's blocks of every evaluation it served with it. An evaluation whose child was still being checked then
// (on 2026-12-02 an oracle opened its output block after another task's compile had retired the worker, and was
// scored a runtime error: CUDA_ERROR_INVALID_HANDLE) is judged again from its prepare, and its record says why.
TEST_F(TritonExecutorTest, AnEvaluationWhoseCasesTheReferenceWorkerLostIsJudgedAgain) {
  if (!kCuda) GTEST_SKIP() << "the GPU data plane is triton-cuda's (the interpreter's files outlive the worker)";
  auto reference_workers = [] {
    std::set<pid_t> found;
    for (const auto& child : own_children())
      if (child.state != 'Z' && child.command_line.find(std::string("--role\0reference", 16)) != std::string::npos)
        found.insert(child.pid);
    return found;
  };
  const std::set<pid_t> before = reference_workers();  // the suite's executor's
  auto made = registry_->create<Executor>(kExecutor, context(R"({"workers": 1, "timing_seconds": 0.15})"));
  ASSERT_TRUE(made) << made.status().to_string();
  std::unique_ptr<Executor> executor = std::move(made.value());
  ASSERT_TRUE(executor->availability().is_ok());
  pid_t reference = 0;
  for (pid_t pid : reference_workers())
    if (!before.count(pid)) reference = pid;
  ASSERT_NE(reference, 0) << "the new executor's reference worker was not found among this process's children";
  // Warmed by a first evaluation, the next one prepares in a fraction of a second; slow_checks.py then spends
  // 2.4 s in its checks (0.6 s a call), during which its reference worker is killed.
  EXPECT_VERDICT(evaluate("correct", EvaluationStage::test, 120, executor.get()), Verdict::passed);
  std::optional<EvaluationResult> judged;
  std::thread judging([&] { judged = evaluate("slow_checks", EvaluationStage::test, 120, executor.get()); });
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  EXPECT_EQ(::kill(reference, SIGKILL), 0);
  judging.join();
  ASSERT_TRUE(judged.has_value());
  EXPECT_VERDICT(*judged, Verdict::passed);
  const std::string again = record_value(*judged, "judged_again");
  EXPECT_NE(again.find("was replaced"), std::string::npos) << judged->record_json.substr(0, 2000);
  EXPECT_VERDICT(evaluate("correct", EvaluationStage::test, 120, executor.get()), Verdict::passed);  // and it goes on
}

// triton-cuda moves inputs and outputs through GPU memory (CUDA IPC) by default; the file transport stays
// available, and both must judge every candidate alike.
TEST_F(TritonExecutorTest, BothDataPlanesJudgeAlike) {
  if (!kCuda) GTEST_SKIP() << "the GPU data plane is triton-cuda's (the interpreter has files only)";
  auto files = registry_->create<Executor>(kExecutor, context(R"({"workers": 1, "data_plane": "files", "timing_seconds": 0.15})"));
  ASSERT_TRUE(files) << files.status().to_string();
  for (const char* fixture : {"correct", "wrong", "modifies_input", "returns_nan", "returns_input", "raises"}) {
    EvaluationResult on_gpu = evaluate(fixture, EvaluationStage::benchmark, 300);
    EvaluationResult on_files = evaluate(fixture, EvaluationStage::benchmark, 300, files->get());
    EXPECT_EQ(verdict_name(on_gpu.verdict), std::string(verdict_name(on_files.verdict)))
        << fixture << "\n gpu: " << on_gpu.message << "\n files: " << on_files.message;
    if (on_gpu.verdict == Verdict::passed || on_gpu.verdict == Verdict::wrong_answer) {
      EXPECT_EQ(record_text(on_gpu, "data_plane"), "gpu") << fixture;
      EXPECT_EQ(record_text(on_files, "data_plane"), "files") << fixture;
    }
  }
}

// A candidate that writes through its mapping of the reference worker's exported inputs is caught by the
// reference worker's own check, after the child has exited (tests/fixtures/candidates/vector-add/writes_harness_inputs.py).
TEST_F(TritonExecutorTest, WritingToTheHarnesssCopyOfTheInputsFails) {
  if (!kCuda) GTEST_SKIP() << "only the GPU data plane maps the harness's inputs into the candidate";
  auto result = executor_->evaluate(vector_add_request("tests/fixtures/candidates/vector-add/writes_harness_inputs.py",
                                                      EvaluationStage::test, 1, 120));
  ASSERT_TRUE(result) << result.status().to_string();
  EXPECT_VERDICT(*result, Verdict::wrong_answer);
  EXPECT_NE(result->message.find("harness's copy"), std::string::npos) << result->message;
  // The store's private copy is untouched: the next evaluation of the task passes.
  EXPECT_VERDICT(evaluate("correct"), Verdict::passed);
}

TEST_F(TritonExecutorTest, BenchmarkTimesOnTheGpuAndOnlyChecksOnTheInterpreter) {
  EvaluationResult result = evaluate("correct", EvaluationStage::benchmark, 300);
  EXPECT_VERDICT(result, Verdict::passed);
  ASSERT_FALSE(result.shapes.empty());
  if (!kCuda) {
    EXPECT_NE(result.message.find("not timed"), std::string::npos) << result.message;
    for (const auto& shape : result.shapes) EXPECT_FALSE(shape.timing) << shape.shape;
    return;
  }
  EXPECT_TRUE(result.flags.empty()) << result.message;
  for (const auto& shape : result.shapes) {
    ASSERT_TRUE(shape.timing) << shape.shape << ": " << result.message << "\n" << result.record_json.substr(0, 3000);
    const ShapeTiming& t = *shape.timing;
    EXPECT_GT(t.median_us, 0.0);
    EXPECT_GE(t.repetitions, 20);
    EXPECT_TRUE(t.cold_l2);
    // The host clock covers the events, which cover the kernels.
    EXPECT_GE(t.wall_median_us, 0.9 * t.event_median_us) << shape.shape;
    EXPECT_GE(t.event_median_us, 0.9 * t.median_us) << shape.shape;
    ASSERT_TRUE(t.eager_us && t.compile_us && t.oracle_us && t.speed_of_light_us) << result.record_json.substr(0, 3000);
    EXPECT_GT(*t.speed_of_light_us, 0.0);
    // The floor comes from measured ceilings (a device copy), which a streaming kernel can match: a
    // correct one may reach it but never the flagging margin below it.
    EXPECT_GT(t.median_us, 0.7 * *t.speed_of_light_us);
    ASSERT_FALSE(shape.kernels.empty());
    EXPECT_FALSE(shape.kernels.front().library) << shape.kernels.front().name;
    EXPECT_GT(shape.kernels.front().registers, 0);
  }
  // The GPU was the child's alone for its timed calls only: it said when they were done, and the determinism
  // check and the hand-over of the outputs came after, with the GPU shared again.
  auto record = boost::json::parse(result.record_json).as_object();
  const auto& phases = record.at("phase_seconds").as_object();
  // Its checks were compared before it was timed, and the outputs of its timed calls after.
  for (const char* phase : {"checks_compare", "timing_wait", "timing", "after_timing", "compare", "baselines",
                            "baselines_wait"})
    EXPECT_TRUE(phases.contains(phase)) << phase << " in " << boost::json::serialize(phases);
  const auto& inside = record.at("candidate_phases").as_object();
  for (const char* phase : {"tracing_start", "timing_timed_calls", "timing_warm_up", "timing_calls", "timing_collect",
                            "timing_determinism"})
    EXPECT_TRUE(inside.contains(phase)) << phase << " in " << boost::json::serialize(inside);
  EXPECT_LE(inside.at("timing_calls").to_number<double>(), inside.at("timing_timed_calls").to_number<double>());
  // Each compile's "idle" was enforced, not trusted: the child was held through the driver (idle_hold.hpp), and
  // an honest child, synchronised before it says so, is held at once.
  const auto& turns = record.at("turns").as_object();
  EXPECT_TRUE(turns.at("enforced").as_bool()) << boost::json::serialize(turns);
  if (const auto* compiles = record.if_contains("compiles_off_gpu")) {
    EXPECT_EQ(turns.at("holds").to_number<int64_t>(), compiles->to_number<int64_t>()) << boost::json::serialize(turns);
  }
  EXPECT_LT(turns.at("longest_hold_s").to_number<double>(), 0.1) << boost::json::serialize(turns);
}

// A candidate that fails its checks is not timed: they are compared while it waits to be timed, and it is let
// go without its timed calls (bench/cold_harness.py times no failure either). With compare_before_timing: false
// it is timed first and compared after; the verdict and the mismatch are the same.
TEST_F(TritonExecutorTest, ACandidateThatFailsItsChecksIsNotTimed) {
  EvaluationResult result = evaluate("wrong", EvaluationStage::benchmark, 300);
  EXPECT_VERDICT(result, Verdict::wrong_answer);
  ASSERT_FALSE(result.shapes.empty());
  EXPECT_FALSE(result.shapes[0].passed);
  EXPECT_NE(result.shapes[0].first_mismatch.find("output[0]"), std::string::npos) << result.shapes[0].first_mismatch;
  for (const auto& shape : result.shapes) EXPECT_FALSE(shape.timing) << shape.shape;
  auto record = boost::json::parse(result.record_json).as_object();
  const auto& phases = record.at("phase_seconds").as_object();
  const auto& inside = record.at("candidate_phases").as_object();
  if (!kCuda) {  // the interpreter times nothing: nothing was skipped
    EXPECT_FALSE(record.contains("timing_skipped")) << result.record_json.substr(0, 2000);
    EXPECT_FALSE(phases.contains("checks_compare")) << boost::json::serialize(phases);
    EXPECT_NE(result.message.find("not timed: the Triton interpreter"), std::string::npos) << result.message;
    return;
  }
  EXPECT_EQ(record_text(result, "timing_skipped"), "it failed its checks") << result.record_json.substr(0, 2000);
  EXPECT_NE(result.message.find("not timed: it failed its checks"), std::string::npos) << result.message;
  EXPECT_GT(phases.at("checks_compare").to_number<double>(), 0.0) << boost::json::serialize(phases);
  for (const char* phase : {"timing_wait", "timing", "after_timing", "compare"})
    EXPECT_FALSE(phases.contains(phase)) << phase << " in " << boost::json::serialize(phases);
  for (const char* phase : {"timing_timed_calls", "timing_determinism"})
    EXPECT_FALSE(inside.contains(phase)) << phase << " in " << boost::json::serialize(inside);

  auto made = registry_->create<Executor>(
      kExecutor, context(R"({"workers": 1, "timing_seconds": 0.15, "compare_before_timing": false})"));
  ASSERT_TRUE(made) << made.status().to_string();
  std::unique_ptr<Executor> after(std::move(made.value()));
  EvaluationResult timed = evaluate("wrong", EvaluationStage::benchmark, 300, after.get());
  EXPECT_VERDICT(timed, Verdict::wrong_answer);
  ASSERT_EQ(timed.shapes.size(), result.shapes.size());
  for (size_t i = 0; i < timed.shapes.size(); ++i) {  // the same failure (the two executors draw other inputs)
    EXPECT_EQ(timed.shapes[i].shape, result.shapes[i].shape);
    EXPECT_EQ(timed.shapes[i].passed, result.shapes[i].passed) << timed.shapes[i].shape;
    const std::string& first = result.shapes[i].first_mismatch;
    EXPECT_EQ(timed.shapes[i].first_mismatch.substr(0, first.find(" = ")), first.substr(0, first.find(" = ")));
  }
  EXPECT_EQ(record_value(timed, "timing_skipped"), "");
  auto timed_record = boost::json::parse(timed.record_json).as_object();
  const auto& timed_phases = timed_record.at("phase_seconds").as_object();
  EXPECT_FALSE(timed_phases.contains("checks_compare")) << boost::json::serialize(timed_phases);
  for (const char* phase : {"timing", "compare"})
    EXPECT_TRUE(timed_phases.contains(phase)) << phase << " in " << boost::json::serialize(timed_phases);
  EXPECT_TRUE(timed_record.at("candidate_phases").as_object().contains("timing_timed_calls"));

  // The file transport compares the outputs the child left in its folder, before timing as well.
  auto files = registry_->create<Executor>(kExecutor, context(R"({"workers": 1, "timing_seconds": 0.15,
                                                                   "data_plane": "files"})"));
  ASSERT_TRUE(files) << files.status().to_string();
  std::unique_ptr<Executor> on_files(std::move(files.value()));
  EvaluationResult wrong_on_files = evaluate("wrong", EvaluationStage::benchmark, 300, on_files.get());
  EXPECT_VERDICT(wrong_on_files, Verdict::wrong_answer);
  EXPECT_EQ(record_text(wrong_on_files, "timing_skipped"), "it failed its checks") << wrong_on_files.record_json.substr(0, 2000);
  EvaluationResult correct_on_files = evaluate("correct", EvaluationStage::benchmark, 300, on_files.get());
  EXPECT_VERDICT(correct_on_files, Verdict::passed);
  EXPECT_EQ(record_value(correct_on_files, "timing_skipped"), "");
  for (const auto& shape : correct_on_files.shapes) EXPECT_TRUE(shape.timing) << shape.shape << ": " << correct_on_files.message;
}

// A timing need not wait for the checks of the evaluation beside it: it holds that child through the driver
// (gpu_lock.hpp, CheckSuspension) and lets it go when its timed calls are done. slow_checks.py waits 0.6 s on
// the host in each of its 4 checks, holding its share; without the suspension, correct.py's timing would wait
// for those checks to end.
TEST_F(TritonExecutorTest, ATimingSuspendsTheChecksBesideItInsteadOfWaitingForThem) {
  if (!kCuda) GTEST_SKIP() << "suspending a checking child needs triton-cuda";
  auto [slow, timed] = beside_slow_checks("correct", EvaluationStage::benchmark, 300);
  EXPECT_VERDICT(timed, Verdict::passed);
  auto slow_record = boost::json::parse(slow.record_json).as_object();
  const auto& turns = slow_record.at("turns").as_object();
  if (turns.contains("error") && !turns.at("enforced").as_bool())
    GTEST_SKIP() << "the driver cannot hold processes here: " << boost::json::serialize(turns);
  EXPECT_GE(turns.at("suspensions").to_number<int64_t>(), 1) << boost::json::serialize(turns);
  EXPECT_GT(turns.at("suspended_s").to_number<double>(), 0.0) << boost::json::serialize(turns);
  auto timed_record = boost::json::parse(timed.record_json).as_object();
  const auto& phases = timed_record.at("phase_seconds").as_object();
  // Waiting for slow_checks.py's checks to end would have taken more than a second.
  EXPECT_LT(phases.at("timing_wait").to_number<double>(), 0.5) << boost::json::serialize(phases) << "\n"
                                                                  << boost::json::serialize(turns);
}

// An autotuned kernel's configs compile at once, on a pool of threads, before its autotuner benchmarks them
// (autotune_compile.py): autotuned.py's four configs are one batch and one turn off the GPU, not four; the
// second shape finds them compiled. The autotuner still chooses, with the GPU to itself while it benchmarks
// each key on the executor's budget (autotune_bench.py), and the candidate is judged as before.
TEST_F(TritonExecutorTest, AnAutotunedKernelsConfigsCompileAtOnceBeforeItsAutotunerBenchmarks) {
  EvaluationResult result = evaluate("autotuned", EvaluationStage::benchmark, 300);
  EXPECT_VERDICT(result, Verdict::passed);
  EXPECT_TRUE(result.flags.empty()) << result.message;
  auto record = boost::json::parse(result.record_json).as_object();
  if (!kCuda) {  // the interpreter compiles nothing, and tunes one config
    EXPECT_FALSE(record.contains("autotune_compiled")) << result.record_json;
    EXPECT_FALSE(record.contains("autotune_choices")) << result.record_json;
    return;
  }
  ASSERT_TRUE(record.contains("autotune_compiled")) << result.record_json;
  const auto& compiled = record.at("autotune_compiled").as_object();
  EXPECT_EQ(compiled.at("kernels").to_number<int64_t>(), 4) << boost::json::serialize(compiled);
  EXPECT_EQ(compiled.at("batches").to_number<int64_t>(), 1) << boost::json::serialize(compiled);
  EXPECT_EQ(record.at("compiles_off_gpu").to_number<int64_t>(), 1) << result.record_json;
  // What it chose, per key (one per visible size): the record says so.
  ASSERT_TRUE(record.contains("autotune_choices")) << result.record_json;
  const auto& chosen = record.at("autotune_choices").as_object();
  ASSERT_TRUE(chosen.contains("add_kernel")) << boost::json::serialize(chosen);
  EXPECT_EQ(chosen.at("add_kernel").as_object().size(), 2u) << boost::json::serialize(chosen);
  // Each key's four configs were benchmarked on the executor's budget, with the GPU to itself (autotune_bench.py):
  // the host took it alone once per key and gave it back before the timing.
  ASSERT_TRUE(record.contains("autotune_benchmarks")) << result.record_json;
  const auto& benchmarked = record.at("autotune_benchmarks").as_object();
  EXPECT_EQ(benchmarked.at("keys_alone").to_number<int64_t>(), 2) << boost::json::serialize(benchmarked);
  EXPECT_EQ(benchmarked.at("configs_on_budget").to_number<int64_t>(), 8) << boost::json::serialize(benchmarked);
  // What each config measured, per key: the record can tell a near tie from a clear choice.
  const auto& measured = benchmarked.at("timings_us").at("add_kernel").as_object();
  ASSERT_EQ(measured.size(), 2u) << boost::json::serialize(benchmarked);
  for (const auto& [key, configs] : measured) {
    EXPECT_EQ(configs.as_object().size(), 4u) << key;
    for (const auto& [config, us] : configs.as_object()) EXPECT_GT(us.to_number<double>(), 0.0) << key << " " << config;
  }
  const auto& turns = record.at("turns").as_object();
  EXPECT_EQ(turns.at("tunings_alone").to_number<int64_t>(), 2) << boost::json::serialize(turns);
  EXPECT_GT(turns.at("tuning_alone_s").to_number<double>(), 0.0) << boost::json::serialize(turns);
  for (const auto& shape : result.shapes) {
    ASSERT_TRUE(shape.timing.has_value()) << shape.shape;
    EXPECT_GT(shape.timing->median_us, 0.0) << shape.shape;
  }
}

TEST_F(TritonExecutorTest, ProfileListsTheKernelsThatRan) {
  if (!kCuda) GTEST_SKIP() << "profiling needs triton-cuda";
  EvaluationResult result = evaluate("correct", EvaluationStage::profile, 300);
  EXPECT_VERDICT(result, Verdict::passed);
  for (const auto& shape : result.shapes) {
    ASSERT_FALSE(shape.kernels.empty()) << shape.shape;
    EXPECT_EQ(shape.kernels.front().calls, 1);
    EXPECT_NE(shape.kernels.front().grid, "0,0,0");
  }
}

// The static checks run in the evaluation's own candidate worker (the source is parsed there, never run) and
// reach the result as warnings, on either executor.
TEST_F(TritonExecutorTest, StaticFindingsReachTheResultAsWarnings) {
  auto result = executor_->evaluate(vector_add_request("tests/fixtures/adversarial/try_fallback.py",
                                                      EvaluationStage::test, 1, 120));
  ASSERT_TRUE(result) << result.status().to_string();
  std::string said;
  for (const auto& warning : result->warnings) said += warning + "\n";
  EXPECT_NE(said.find("[try-fallback]"), std::string::npos) << said;
  EXPECT_NE(said.find("[torch-compute]"), std::string::npos) << said;
  auto record = boost::json::parse(result->record_json).as_object();
  EXPECT_TRUE(record.at("phase_seconds").as_object().contains("static_check")) << result->record_json.substr(0, 1500);
}

// A task's scalar parameters (task.yaml inputs with a `value:`) reach the static checks, so host arithmetic on them
// is not taken for a PyTorch kernel: adam-step's oracle computes its bias corrections from beta1, beta2 and step.
TEST_F(TritonExecutorTest, ArithmeticOnTheTasksScalarParametersIsNotFlaggedAsTorchCompute) {
  EvaluationRequest request;
  request.task = task("standard/adam-step");
  request.source_code = read_file(testing::source_dir() + "/tasks/standard/adam-step/oracle.py");
  request.stage = EvaluationStage::test;  // the static checks run from the test stage on
  request.seeds_per_shape = 1;
  request.timeout_s = 120;
  auto result = executor_->evaluate(request);
  ASSERT_TRUE(result) << result.status().to_string();
  std::string said;
  for (const auto& warning : result->warnings) said += warning + "\n";
  EXPECT_EQ(said.find("[torch-compute]"), std::string::npos) << said;

  // Arithmetic on parameters the task gives as tensors is still flagged (without the scalars, the oracle's own
  // bias corrections were: three findings).
  request.source_code += "\n\ndef adam_step_on_tensors(param, grad, m, v, lr, beta1, beta2, eps, weight_decay, step):\n"
                         "    return adam_step(param - grad, grad, m, v, lr, beta1, beta2, eps, weight_decay, step)\n";
  request.task.entry_function = "adam_step_on_tensors";
  auto flagged = executor_->evaluate(request);
  ASSERT_TRUE(flagged) << flagged.status().to_string();
  said.clear();
  for (const auto& warning : flagged->warnings) said += warning + "\n";
  EXPECT_NE(said.find("[torch-compute]"), std::string::npos) << said;
}

// tests/fixtures/adversarial/README.md: one candidate per exploit family, each caught with its reason.
TEST_F(TritonExecutorTest, EveryAdversarialCandidateIsCaughtForItsReason) {
  if (!kCuda) GTEST_SKIP() << "the adversarial corpus is judged with timing (triton-cuda); tests/worker covers the CPU side";
  std::string folder = testing::source_dir() + "/tests/fixtures/adversarial/";
  int checked = 0;
  for (const auto& cells : fixture_table(folder + "README.md")) {
    ASSERT_GE(cells.size(), 5u) << cells[0];
    const std::string& file = cells[0];
    EvaluationRequest request;
    request.task = task(cells[1]);
    request.source_code = read_file(folder + file);
    request.stage = EvaluationStage::final_score;
    request.seeds_per_shape = 2;
    request.timeout_s = 300;
    auto result = executor_->evaluate(request);
    ASSERT_TRUE(result) << file << ": " << result.status().to_string();
    std::string said = result->message;
    for (const auto& flag : result->flags) said += "\n" + flag;
    std::string verdict = verdict_name(result->verdict);
    // What the report check saw: it must not have been lost to a sampler that failed (one that does is started
    // again, and a turn it fails in is flagged for that instead of for the fixture's reason).
    const std::string check = record_value(*result, "report_check");
    if (check.find("sampler_restarted_after") != std::string::npos)
      std::cout << "[ NOTE     ] " << file << ": the GPU's sampler was started again: " << check << "\n";
    EXPECT_EQ(check.find("\"reason\":\"the sampler of GPU"), std::string::npos)
        << file << ": its timing report went unchecked: " << check;
    if (cells[3] == "flagged" && verdict == "wrong_answer") {
      // Failed earlier, by the correctness stage: caught all the same (README, Notes).
      std::cout << "[ NOTE     ] " << file << " failed the correctness stage before timing: "
                << said.substr(0, said.find('\n')) << "\n";
    } else {
      EXPECT_EQ(verdict, cells[3]) << file << ": " << said << "\nreport_check: " << check;
      EXPECT_NE(said.find(cells[4]), std::string::npos)
          << file << " should be caught for \"" << cells[4] << "\": " << said << "\nreport_check: " << check;
    }
    ++checked;
  }
  EXPECT_GE(checked, 15);
}

// tests/fixtures/realworld/README.md: the Triton patterns models copy from public code, each judged fairly. On
// triton-cuda every one passes and is timed with no flag (an autotuner's config that cannot fit is recorded as
// failed, not fatal); on the interpreter each passes, or is not_judged for what the interpreter lacks.
TEST_F(TritonExecutorTest, EveryRealWorldKernelIsJudgedFairly) {
  const std::string folder = testing::source_dir() + "/tests/fixtures/realworld/";
  int checked = 0;
  for (const auto& cells : fixture_table(folder + "README.md")) {
    ASSERT_EQ(cells.size(), 5u) << cells[0];
    const std::string& file = cells[0];
    const std::string& expected = kCuda ? cells[4] : cells[3];
    EvaluationRequest request;
    request.task = task(cells[1]);
    request.source_code = read_file(folder + file);
    request.stage = kCuda ? EvaluationStage::final_score : EvaluationStage::test;
    request.seeds_per_shape = 2;
    request.timeout_s = 300;
    auto result = executor_->evaluate(request);
    ASSERT_TRUE(result) << file << ": " << result.status().to_string();
    std::string said = result->message;
    for (const auto& flag : result->flags) said += "\nflag: " + flag;
    const std::string verdict = verdict_name(result->verdict);
    if (expected == "passed") {
      EXPECT_EQ(verdict, "passed") << file << ": " << said;
      EXPECT_TRUE(result->flags.empty()) << file << " was flagged: " << said;
    } else {
      ASSERT_EQ(expected.rfind("not_judged: ", 0), 0u) << file << ": the README expects \"" << expected << "\"";
      EXPECT_EQ(verdict, "not_judged") << file << ": " << said;
      const std::string reason = expected.substr(std::string("not_judged: ").size());
      EXPECT_NE(said.find(reason), std::string::npos) << file << " should say \"" << reason << "\": " << said;
    }
    if (kCuda && file == "autotune_matmul_impossible_config.py") {
      const std::string benchmarks = record_value(*result, "autotune_benchmarks");
      EXPECT_TRUE(!benchmarks.empty() && shows_a_failed_config(boost::json::parse(benchmarks)))
          << file << ": the config that needs more shared memory than the GPU has should be recorded as failed: "
          << benchmarks;
    }
    ++checked;
  }
  EXPECT_GE(checked, 14);
}

// The processes of tritongym-gpu-sampler this test process started (through its executor).
std::vector<pid_t> own_samplers() {
  std::vector<pid_t> found;
  for (const auto& child : own_children())
    if (child.name.rfind("tritongym-gpu-s", 0) == 0) found.push_back(child.pid);
  return found;
}

TEST_F(TritonExecutorTest, ASamplerKilledBetweenTurnsIsStartedAgainAndTheNextForgerIsStillCaught) {
  if (!kCuda) GTEST_SKIP() << "the report check samples a GPU (triton-cuda)";
  auto honest = executor_->evaluate(
      vector_add_request("tests/fixtures/candidates/vector-add/correct.py", EvaluationStage::benchmark, 1, 300));
  ASSERT_TRUE(honest) << honest.status().to_string();
  EXPECT_VERDICT(*honest, Verdict::passed);
  const std::string first = record_value(*honest, "report_check");
  if (first.find("\"checked\":true") == std::string::npos)
    GTEST_SKIP() << "this GPU is not sampled here: " << first;
  const auto samplers = own_samplers();
  ASSERT_EQ(samplers.size(), 1u) << "one sampler for the one GPU";
  ASSERT_EQ(::kill(samplers.front(), SIGKILL), 0);

  auto forger = executor_->evaluate(
      vector_add_request("tests/fixtures/adversarial/forged_report.py", EvaluationStage::benchmark, 1, 300));
  ASSERT_TRUE(forger) << forger.status().to_string();
  const std::string check = record_value(*forger, "report_check");
  EXPECT_VERDICT(*forger, Verdict::flagged);
  EXPECT_NE(check.find("\"checked\":true"), std::string::npos) << check;
  EXPECT_NE(check.find("\"sampler_restarted_after\":\"the sampler of GPU 0 failed"), std::string::npos) << check;
  bool caught = false;
  for (const auto& flag : forger->flags) caught = caught || flag.find("the report is not what ran on the GPU") != std::string::npos;
  EXPECT_TRUE(caught) << forger->message << "\n" << check;

  auto after = executor_->evaluate(
      vector_add_request("tests/fixtures/candidates/vector-add/correct.py", EvaluationStage::benchmark, 1, 300));
  ASSERT_TRUE(after) << after.status().to_string();
  EXPECT_VERDICT(*after, Verdict::passed);
  const std::string next = record_value(*after, "report_check");
  EXPECT_NE(next.find("\"checked\":true"), std::string::npos) << next;
  EXPECT_EQ(next.find("sampler_restarted_after"), std::string::npos) << "the new sampler goes on serving: " << next;
  EXPECT_EQ(own_samplers().size(), 1u);
}

TEST_F(TritonExecutorTest, ToolsReportThroughAnEpisode) {
  Registry tools;
  load_plugins({testing::builtin_plugin_dir()}, tools);
  auto compile = tools.create<Tool>("tritongym.tool.compile", context("{}"));
  auto test = tools.create<Tool>("tritongym.tool.test", context(R"({"seeds_per_shape": 1})"));
  auto backend = tools.create<ModelBackend>("tritongym.backend.scripted", [] {
    PluginContext plugin;
    plugin.config_json = R"({"replies":[{"content":"x"}]})";
    return plugin;
  }());
  ASSERT_TRUE(compile && test && backend);
  episode::EpisodeSetup setup;
  setup.task = task("standard/vector-add");
  setup.model = backend->get();
  setup.executor = executor_;
  setup.tools["compile"] = compile->get();
  setup.tools["test"] = test->get();
  episode::Episode episode(setup);
  auto json_code = [](const std::string& fixture) {
    std::string code = read_file(testing::source_dir() + "/tests/fixtures/candidates/vector-add/" + fixture + ".py");
    return std::string(R"({"code":)") + boost::json::serialize(boost::json::value(code)) + "}";
  };
  auto passed = episode.call_tool({"1", "test", json_code("correct")});
  ASSERT_TRUE(passed);
  EXPECT_TRUE(passed->ok) << passed->text;
  EXPECT_EQ(passed->text.rfind("passed:", 0), 0u) << passed->text;
  auto wrong = episode.call_tool({"2", "test", json_code("wrong")});
  EXPECT_FALSE(wrong->ok);
  EXPECT_EQ(wrong->text.rfind("wrong_answer:", 0), 0u) << wrong->text;
  EXPECT_NE(wrong->record_json.find("\"shapes\""), std::string::npos);
  auto broken = episode.call_tool({"3", "compile", json_code("syntax_error")});
  EXPECT_FALSE(broken->ok);
  EXPECT_NE(broken->text.find("candidate.py, line 4"), std::string::npos) << broken->text;
  auto compiled = episode.call_tool({"4", "compile", json_code("correct")});
  EXPECT_TRUE(compiled->ok) << compiled->text;
  EXPECT_EQ(compiled->text.rfind("compiled.", 0), 0u) << compiled->text;
  EXPECT_EQ(episode.usage().tool_calls, 4);
}

TEST_F(TritonExecutorTest, ReactWorkflowRunsEndToEndThroughRealTools) {
  Registry plugins;
  load_plugins({testing::builtin_plugin_dir()}, plugins);
  std::string candidates = testing::source_dir() + "/tests/fixtures/candidates/vector-add/";
  auto call = [](const std::string& tool, const std::string& code) {
    return boost::json::object{{"name", tool}, {"arguments", {{"code", code}}}};
  };
  // The scripted model tests a wrong kernel, reads the failure, tests the right one, then submits it.
  boost::json::array replies{
      {{"content", "First try."}, {"tool_calls", {call("test", read_file(candidates + "wrong.py"))}}},
      {{"content", "Fixing the offset."}, {"tool_calls", {call("test", read_file(candidates + "correct.py"))}}},
      {{"content", "Done."}, {"tool_calls", {call("submit", read_file(candidates + "correct.py"))}}}};
  PluginContext scripted = context(boost::json::serialize(boost::json::object{{"replies", replies}}));
  auto backend = plugins.create<ModelBackend>("tritongym.backend.scripted", scripted);
  auto workflow = plugins.create<Workflow>("tritongym.workflow.react", context("{}"));
  auto test = plugins.create<Tool>("tritongym.tool.test", context(R"({"seeds_per_shape": 1})"));
  auto submit = plugins.create<Tool>("tritongym.tool.submit", context("{}"));
  ASSERT_TRUE(backend && workflow && test && submit);
  episode::EpisodeSetup setup;
  setup.task = task("standard/vector-add");
  setup.model = backend->get();
  setup.executor = executor_;
  setup.tools = {{"test", test->get()}, {"submit", submit->get()}};
  setup.budget.max_turns = 10;
  episode::Episode episode(setup);
  auto outcome = (*workflow)->run(episode);
  ASSERT_TRUE(outcome) << outcome.status().to_string();
  EXPECT_EQ(outcome->final_code, read_file(candidates + "correct.py"));
  EXPECT_NE(outcome->summary.find("submitted at turn 3"), std::string::npos) << outcome->summary;
  EXPECT_EQ(episode.usage().turns, 3);
  EXPECT_EQ(episode.usage().tool_calls, 3);
  std::vector<std::string> results;
  for (const auto& event : episode.transcript())
    if (event.kind == episode::EpisodeEvent::Kind::tool_call) results.push_back(event.result.text.substr(0, 12));
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0], "wrong_answer");
  EXPECT_EQ(results[1].substr(0, 7), "passed:");
  EXPECT_EQ(results[2].substr(0, 10), "submitted;");
}

TEST_F(TritonExecutorTest, BestOfNStopsAtTheFirstAnswerThatPasses) {
  Registry plugins;
  load_plugins({testing::builtin_plugin_dir()}, plugins);
  auto backend = plugins.create<ModelBackend>("tritongym.backend.oracle", context(R"({"root":"tasks"})"));
  auto workflow = plugins.create<Workflow>("tritongym.workflow.best-of-n", context(R"({"n": 4})"));
  auto test = plugins.create<Tool>("tritongym.tool.test", context(R"({"seeds_per_shape": 1})"));
  auto submit = plugins.create<Tool>("tritongym.tool.submit", context("{}"));
  ASSERT_TRUE(backend && workflow && test && submit);
  episode::EpisodeSetup setup;
  setup.task = task("standard/softmax");
  setup.model = backend->get();
  setup.executor = executor_;
  setup.tools = {{"test", test->get()}, {"submit", submit->get()}};
  episode::Episode episode(setup);
  auto outcome = (*workflow)->run(episode);
  ASSERT_TRUE(outcome) << outcome.status().to_string();
  EXPECT_EQ(outcome->summary, "attempt 1 passed the visible shapes");
  EXPECT_EQ(outcome->final_code, read_file(task("standard/softmax").oracle_path));
  EXPECT_EQ(episode.usage().turns, 1);
  EXPECT_EQ(episode.usage().tool_calls, 2);  // test, then submit
}

TEST_F(TritonExecutorTest, LeaderKeepsThePassingVersionAndAppliesEdits) {
  Registry plugins;
  load_plugins({testing::builtin_plugin_dir()}, plugins);
  std::string correct = read_file(testing::source_dir() + "/tests/fixtures/candidates/vector-add/correct.py");
  std::string bad_edit = "<<<<<<< SEARCH\n    return launch(x, y, torch.empty_like(x))\n=======\n"
                         "    return launch(x, y, torch.empty_like(x)) * 2\n>>>>>>> REPLACE\n";
  std::string unknown_edit = "<<<<<<< SEARCH\nnot in the file\n=======\nx\n>>>>>>> REPLACE\n";
  boost::json::array replies{{{"content", "```python\n" + correct + "```"}}, {{"content", bad_edit}},
                             {{"content", unknown_edit}}};
  auto backend = plugins.create<ModelBackend>(
      "tritongym.backend.scripted",
      context(boost::json::serialize(boost::json::object{{"replies", replies}, {"order", "sequence"}})));
  auto workflow = plugins.create<Workflow>("tritongym.workflow.leader", context(R"({"rounds": 3})"));
  auto test = plugins.create<Tool>("tritongym.tool.test", context(R"({"seeds_per_shape": 1})"));
  ASSERT_TRUE(backend && workflow && test) << backend.status().to_string();
  episode::EpisodeSetup setup;
  setup.task = task("standard/vector-add");
  setup.model = backend->get();
  setup.executor = executor_;
  setup.tools = {{"test", test->get()}};
  episode::Episode episode(setup);
  auto outcome = (*workflow)->run(episode);
  ASSERT_TRUE(outcome) << outcome.status().to_string();
  EXPECT_EQ(outcome->final_code, correct);  // the failing edit did not replace the passing version
  EXPECT_EQ(outcome->summary, "1 versions accepted; best passes");
  EXPECT_EQ(episode.usage().turns, 3);
  EXPECT_EQ(episode.usage().tool_calls, 2);  // the unappliable edit was never tested
}

TEST_F(TritonExecutorTest, GeakReflectsOnAFailureAndOptimisesASuccess) {
  Registry plugins;
  load_plugins({testing::builtin_plugin_dir()}, plugins);
  std::string folder = testing::source_dir() + "/tests/fixtures/candidates/vector-add/";
  auto block = [&](const std::string& fixture) { return "```python\n" + read_file(folder + fixture + ".py") + "```"; };
  // generator: a wrong kernel; reflector: the fix; optimizer: the same kernel again.
  boost::json::array replies{{{"content", block("wrong")}}, {{"content", "The offset was wrong.\n" + block("correct")}},
                             {{"content", block("correct")}}};
  auto backend = plugins.create<ModelBackend>(
      "tritongym.backend.scripted",
      context(boost::json::serialize(boost::json::object{{"replies", replies}, {"order", "sequence"}})));
  auto workflow = plugins.create<Workflow>("tritongym.workflow.geak", context(R"({"candidates": 1, "iterations": 2})"));
  auto compile = plugins.create<Tool>("tritongym.tool.compile", context("{}"));
  auto test = plugins.create<Tool>("tritongym.tool.test", context(R"({"seeds_per_shape": 1})"));
  auto submit = plugins.create<Tool>("tritongym.tool.submit", context("{}"));
  ASSERT_TRUE(backend && workflow && compile && test && submit);
  episode::EpisodeSetup setup;
  setup.task = task("standard/vector-add");
  setup.model = backend->get();
  setup.executor = executor_;
  setup.tools = {{"compile", compile->get()}, {"test", test->get()}, {"submit", submit->get()}};
  episode::Episode episode(setup);
  auto outcome = (*workflow)->run(episode);
  ASSERT_TRUE(outcome) << outcome.status().to_string();
  EXPECT_EQ(outcome->final_code, read_file(folder + "correct.py"));
  EXPECT_EQ(outcome->summary, "1 of 1 lines found a passing version");
  EXPECT_EQ(episode.usage().turns, 3);
  EXPECT_EQ(episode.usage().calls_per_tool.at("compile"), 3);
  EXPECT_EQ(episode.usage().calls_per_tool.at("test"), 3);
  EXPECT_EQ(episode.usage().calls_per_tool.at("submit"), 1);
  // The verifier caught the wrong first version, which sent it to the reflector.
  const auto& events = episode.transcript();
  bool reflector_saw_failure = false;
  for (const auto& event : events)
    if (event.kind == episode::EpisodeEvent::Kind::tool_call && event.call.name == "test" &&
        event.result.text.rfind("wrong_answer", 0) == 0)
      reflector_saw_failure = true;
  EXPECT_TRUE(reflector_saw_failure);
}

TEST_F(TritonExecutorTest, AlphaEvolveKeepsTheFittestProgram) {
  Registry plugins;
  load_plugins({testing::builtin_plugin_dir()}, plugins);
  std::string folder = testing::source_dir() + "/tests/fixtures/candidates/vector-add/";
  auto block = [&](const std::string& fixture) { return "```python\n" + read_file(folder + fixture + ".py") + "```"; };
  boost::json::array replies{{{"content", block("wrong")}}, {{"content", block("correct")}},
                             {{"content", block("returns_nan")}}};
  auto backend = plugins.create<ModelBackend>(
      "tritongym.backend.scripted",
      context(boost::json::serialize(boost::json::object{{"replies", replies}, {"order", "sequence"}})));
  auto workflow = plugins.create<Workflow>("tritongym.workflow.alphaevolve",
                                           context(R"({"seed_programs": 1, "generations": 2, "population": 2})"));
  auto test = plugins.create<Tool>("tritongym.tool.test", context(R"({"seeds_per_shape": 1})"));
  ASSERT_TRUE(backend && workflow && test);
  episode::EpisodeSetup setup;
  setup.task = task("standard/vector-add");
  setup.model = backend->get();
  setup.executor = executor_;
  setup.tools = {{"test", test->get()}};
  episode::Episode episode(setup);
  auto outcome = (*workflow)->run(episode);
  ASSERT_TRUE(outcome) << outcome.status().to_string();
  EXPECT_EQ(outcome->final_code, read_file(folder + "correct.py"));
  EXPECT_EQ(outcome->summary, "best fitness 1.000000 from generation 2");
  EXPECT_EQ(episode.usage().turns, 3);
  EXPECT_EQ(episode.usage().tool_calls, 3);
}

TEST_F(TritonExecutorTest, APythonWorkflowDrivesTheSameEpisode) {
  Registry plugins;
  auto report = load_plugins({testing::builtin_plugin_dir()}, plugins);
  if (!plugins.contains(PluginKind::workflow, "tritongym.workflow.python")) {
    // Built but refused (on a machine whose Python is not the one it was built with), or not built at all.
    for (const auto& outcome : report.plugins)
      if (outcome.manifest.id == "tritongym.workflow.python") GTEST_SKIP() << outcome.message;
    GTEST_SKIP() << "the Python workflow plugin was not built (python3-dev and pybind11-dev are needed)";
  }
  std::string folder = testing::source_dir() + "/tests/fixtures/candidates/vector-add/";
  auto block = [&](const std::string& fixture) { return "```python\n" + read_file(folder + fixture + ".py") + "```"; };
  boost::json::array replies{{{"content", block("wrong")}}, {{"content", block("correct")}}};
  auto backend = plugins.create<ModelBackend>(
      "tritongym.backend.scripted", context(boost::json::serialize(boost::json::object{{"replies", replies}})));
  auto workflow = plugins.create<Workflow>(
      "tritongym.workflow.python", context(R"({"module":"examples/python-workflow/test_and_fix.py","options":{"rounds":3}})"));
  auto test = plugins.create<Tool>("tritongym.tool.test", context(R"({"seeds_per_shape": 1})"));
  auto submit = plugins.create<Tool>("tritongym.tool.submit", context("{}"));
  ASSERT_TRUE(backend && workflow && test && submit) << workflow.status().to_string();
  episode::EpisodeSetup setup;
  setup.task = task("standard/vector-add");
  setup.model = backend->get();
  setup.executor = executor_;
  setup.tools = {{"test", test->get()}, {"submit", submit->get()}};
  episode::Episode episode(setup);
  auto outcome = (*workflow)->run(episode);
  ASSERT_TRUE(outcome) << outcome.status().to_string();
  EXPECT_EQ(outcome->final_code, read_file(folder + "correct.py"));
  EXPECT_EQ(outcome->summary, "passed");
  EXPECT_EQ(episode.usage().turns, 2);
  EXPECT_EQ(episode.usage().calls_per_tool.at("test"), 2);
  EXPECT_EQ(episode.usage().calls_per_tool.at("submit"), 1);
}

// Every workflow, driven by the oracle backend (the harness's self-test), must solve the task, with
// the final candidate scored on every shape.
TEST_F(TritonExecutorTest, EveryWorkflowSolvesATaskWithTheOracleBackend) {
  Registry plugins;
  load_plugins({testing::builtin_plugin_dir()}, plugins);
  auto backend = plugins.create<ModelBackend>("tritongym.backend.oracle", context(R"({"root":"tasks"})"));
  auto compile = plugins.create<Tool>("tritongym.tool.compile", context("{}"));
  auto test = plugins.create<Tool>("tritongym.tool.test", context(R"({"seeds_per_shape": 1})"));
  auto submit = plugins.create<Tool>("tritongym.tool.submit", context("{}"));
  ASSERT_TRUE(backend && compile && test && submit);
  std::map<std::string, std::string> configs = {
      {"tritongym.workflow.python", R"({"module":"examples/python-workflow/test_and_fix.py"})"}};
  for (const auto& id : plugins.ids(PluginKind::workflow)) {
    SCOPED_TRACE(id);
    auto workflow = plugins.create<Workflow>(id, context(configs.count(id) ? configs[id] : "{}"));
    ASSERT_TRUE(workflow) << workflow.status().to_string();
    episode::EpisodeSetup setup;
    setup.task = task("standard/softmax");
    setup.model = backend->get();
    setup.executor = executor_;
    setup.tools = {{"compile", compile->get()}, {"test", test->get()}, {"submit", submit->get()}};
    setup.budget.max_turns = 12;
    auto result = episode::run_episode(**workflow, setup, 1);
    EXPECT_TRUE(result.workflow_status.is_ok()) << result.workflow_status.to_string();
    EXPECT_EQ(result.final_code, read_file(task("standard/softmax").oracle_path));
    ASSERT_TRUE(result.score) << result.score_status.to_string();
    EXPECT_TRUE(result.solved()) << verdict_name(result.score->verdict) << ": " << result.score->message;
  }
}

// Every workflow, driven by a scripted model that writes a correct kernel (in a block and through
// submit), runs end to end through the real tools and its final candidate passes every shape.
TEST_F(TritonExecutorTest, EveryWorkflowRunsEndToEndWithTheScriptedBackend) {
  Registry plugins;
  load_plugins({testing::builtin_plugin_dir()}, plugins);
  std::string correct = read_file(testing::source_dir() + "/tests/fixtures/candidates/vector-add/correct.py");
  boost::json::array replies{{{"content", "```python\n" + correct + "```"},
                              {"tool_calls", {{{"name", "submit"}, {"arguments", {{"code", correct}}}}}}}};
  auto compile = plugins.create<Tool>("tritongym.tool.compile", context("{}"));
  auto test = plugins.create<Tool>("tritongym.tool.test", context(R"({"seeds_per_shape": 1})"));
  auto submit = plugins.create<Tool>("tritongym.tool.submit", context("{}"));
  ASSERT_TRUE(compile && test && submit);
  std::map<std::string, std::string> configs = {
      {"tritongym.workflow.python", R"({"module":"examples/python-workflow/test_and_fix.py"})"}};
  for (const auto& id : plugins.ids(PluginKind::workflow)) {
    SCOPED_TRACE(id);
    auto backend = plugins.create<ModelBackend>(
        "tritongym.backend.scripted",
        context(boost::json::serialize(boost::json::object{{"replies", replies}, {"repeat_last", true}})));
    auto workflow = plugins.create<Workflow>(id, context(configs.count(id) ? configs[id] : "{}"));
    ASSERT_TRUE(backend && workflow) << workflow.status().to_string();
    episode::EpisodeSetup setup;
    setup.task = task("standard/vector-add");
    setup.model = backend->get();
    setup.executor = executor_;
    setup.tools = {{"compile", compile->get()}, {"test", test->get()}, {"submit", submit->get()}};
    setup.budget.max_turns = 8;
    auto result = episode::run_episode(**workflow, setup, 1);
    EXPECT_TRUE(result.workflow_status.is_ok()) << result.workflow_status.to_string();
    EXPECT_EQ(result.final_code, correct);
    EXPECT_GE(result.usage.turns, 1);
    ASSERT_TRUE(result.score) << result.score_status.to_string();
    EXPECT_TRUE(result.solved()) << result.score->message;
  }
}

TEST_F(TritonExecutorTest, ASpentBudgetEndsTheEpisodeAndItsLastCandidateIsScored) {
  Registry plugins;
  load_plugins({testing::builtin_plugin_dir()}, plugins);
  std::string correct = read_file(testing::source_dir() + "/tests/fixtures/candidates/vector-add/correct.py");
  // The model tests a correct kernel, then keeps talking instead of submitting.
  boost::json::array replies{
      {{"content", "Testing."}, {"tool_calls", {{{"name", "test"}, {"arguments", {{"code", correct}}}}}}},
      {{"content", "Let me think more."}}};
  auto backend = plugins.create<ModelBackend>(
      "tritongym.backend.scripted",
      context(boost::json::serialize(boost::json::object{{"replies", replies}, {"repeat_last", true}})));
  auto workflow = plugins.create<Workflow>("tritongym.workflow.react", context("{}"));
  auto test = plugins.create<Tool>("tritongym.tool.test", context(R"({"seeds_per_shape": 1})"));
  ASSERT_TRUE(backend && workflow && test);
  episode::EpisodeSetup setup;
  setup.task = task("standard/vector-add");
  setup.model = backend->get();
  setup.executor = executor_;
  setup.tools = {{"test", test->get()}};
  setup.budget.max_turns = 3;
  auto result = episode::run_episode(**workflow, setup, 1);
  EXPECT_EQ(result.usage.turns, 3);
  EXPECT_EQ(result.final_code, correct);
  ASSERT_TRUE(result.score) << result.score_status.to_string();
  EXPECT_TRUE(result.solved()) << result.score->message;
}

// An episode tells the executor of its final score when it begins (Executor::expect): the final score's cases
// are made while the workflow works, and the final score finds them made. Without it (prepare_ahead: 0) the final
// score makes them itself.
TEST_F(TritonExecutorTest, AnEpisodesFinalScoreFindsItsCasesMadeWhileTheWorkflowWorked) {
  Registry plugins;
  load_plugins({testing::builtin_plugin_dir()}, plugins);
  const TaskSpec& row_sum = task("standard/row-sum");
  std::string oracle = read_file(row_sum.oracle_path);
  auto final_cases = [&](const std::string& config) -> std::pair<int64_t, int64_t> {
    auto executor = registry_->create<Executor>(kExecutor, context(config));
    EXPECT_TRUE(executor) << executor.status().to_string();
    if (!executor) return {-1, -1};
    boost::json::array replies{
        {{"content", "Testing."}, {"tool_calls", {{{"name", "test"}, {"arguments", {{"code", oracle}}}}}}},
        {{"content", "Done."}}};
    auto backend = plugins.create<ModelBackend>(
        "tritongym.backend.scripted", context(boost::json::serialize(boost::json::object{{"replies", replies}})));
    auto workflow = plugins.create<Workflow>("tritongym.workflow.react", context("{}"));
    auto test = plugins.create<Tool>("tritongym.tool.test", context(R"({"seeds_per_shape": 1})"));
    EXPECT_TRUE(backend && workflow && test);
    if (!backend || !workflow || !test) return {-1, -1};
    episode::EpisodeSetup setup;
    setup.task = row_sum;
    setup.model = backend->get();
    setup.executor = executor->get();
    setup.tools = {{"test", test->get()}};
    setup.budget.max_turns = 2;
    // Two seeds for the final score, one for the test tool: the final score has cases the test did not make
    // (on the interpreter both use the small shapes).
    auto result = episode::run_episode(**workflow, setup, 2);
    EXPECT_TRUE(result.score) << result.score_status.to_string();
    if (!result.score) return {-1, -1};
    EXPECT_TRUE(result.solved()) << result.score->message;
    return cases_prepared(*result.score);
  };
  auto [made_ahead, found_ahead] = final_cases(R"({"workers": 1})");
  auto [made_then, found_then] = final_cases(R"({"workers": 1, "prepare_ahead": 0})");
  EXPECT_GT(made_then, 0);  // the cases the test did not make, made by the final score itself
  EXPECT_EQ(made_then + found_then, made_ahead + found_ahead);
  // On the interpreter every case is made while the workflow works. On a GPU the final score also has its timed
  // shapes' input sets at the held-out sizes, which the workflow's few seconds here need not cover: fewer made.
  if (kCuda) EXPECT_LT(made_ahead, made_then);
  else EXPECT_EQ(made_ahead, 0);
}

// ------------------------------------------------------------------ the DSL rule on the kernels that ran

// Plain Triton kernels for dsl/gluon-vector-scale-add (tests/fixtures/gluon-suite). The Gluon DSL's static check refuses this spelling
// (`from triton import jit`); the executor, told the DSL's frontend, refuses the kernel that ran.
const char* kPlainScaleAdd = R"(import torch
import triton
import triton.language as tl
from triton import jit


@jit
def scale_add_kernel(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, alpha * tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask),
             mask=mask)


def vector_scale_add(x, y, alpha):
    out = torch.empty_like(x)
    scale_add_kernel[(triton.cdiv(x.numel(), 4096),)](x, y, out, alpha, x.numel(), BLOCK=4096, num_warps=8)
    return out
)";

// The same kernel behind a spelling no source check knows, beside a Gluon kernel: `plain_after` calls of the entry
// run Gluon, the later ones plain Triton (0: every call is plain Triton).
std::string hidden_plain_scale_add(int plain_after) {
  return std::string(R"(import torch
import triton
import triton.language as tl
from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.jit
def gluon_kernel(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK: gl.constexpr, num_warps: gl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout(size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[num_warps],
                                            order=[0])
    offsets = gl.program_id(0).to(gl.int64) * BLOCK + gl.arange(0, BLOCK, layout=layout)
    mask = offsets < n
    gl.store(out_ptr + offsets, alpha * gl.load(x_ptr + offsets, mask=mask, other=0.0)
             + gl.load(y_ptr + offsets, mask=mask, other=0.0), mask=mask)


def scale_add_kernel(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, alpha * tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask),
             mask=mask)


plain = getattr(triton, "ji" + "t")(scale_add_kernel)
calls = [0]
PLAIN_AFTER = )") + std::to_string(plain_after) + R"(


def vector_scale_add(x, y, alpha):
    calls[0] += 1
    out = torch.empty_like(x)
    grid = (triton.cdiv(x.numel(), 4096),)
    if calls[0] <= PLAIN_AFTER:
        gluon_kernel[grid](x, y, out, alpha, x.numel(), BLOCK=4096, num_warps=8)
    else:
        plain[grid](x, y, out, alpha, x.numel(), BLOCK=4096, num_warps=8)
    return out
)";
}

// issue 34: a plain Triton kernel in a Gluon task fails with its reason however it was imported, through the core's
// judging step too, and also when only the timed calls run it; the task's own oracle keeps the rule. Gluon runs on
// a GPU only: the interpreter's side of the rule is tests/worker/test_kernel_frontends.py.
TEST_F(TritonExecutorTest, APlainTritonKernelInAGluonTaskFailsHoweverItWasImported) {
  if (!kCuda) GTEST_SKIP() << "Gluon has no interpreter (tests/worker/test_kernel_frontends.py checks the rule there)";
  PluginContext dsl_context;
  dsl_context.config_json = "{}";
  dsl_context.plugin_dir = registry_->origin("tritongym.dsl.gluon")->manifest.directory;
  auto gluon = registry_->create<Dsl>("tritongym.dsl.gluon", dsl_context);
  ASSERT_TRUE(gluon) << gluon.status().to_string();
  auto made = registry_->create<Executor>(kExecutor, context(R"({"workers": 1, "timing_seconds": 0.15, "baselines": []})"));
  ASSERT_TRUE(made) << made.status().to_string();
  Executor& executor = **made;
  const std::string reason = "this task is in Gluon: the kernel `scale_add_kernel` ran as plain Triton (@triton.jit); "
                             "write every kernel with @gluon.jit";
  EvaluationRequest base;
  auto fixture_suite =
      registry_->create<Suite>("tritongym.suite.directory", context(R"({"root":"tests/fixtures/gluon-suite"})"));
  ASSERT_TRUE(fixture_suite) << fixture_suite.status().to_string();
  auto fixture_tasks = (*fixture_suite)->load_tasks();
  ASSERT_TRUE(fixture_tasks) << fixture_tasks.status().to_string();
  ASSERT_EQ(fixture_tasks->size(), 1u);
  base.task = fixture_tasks->front();
  base.stage = EvaluationStage::test;
  base.seeds_per_shape = 1;
  base.timeout_s = 300;
  const EvaluationRequest ruled = judging::under_dsl_rule(base, gluon->get());
  ASSERT_EQ(ruled.required_kernel_frontend, "gluon");

  // `from triton import jit`: the early warning sees it; the executor alone (no static check) refuses what ran.
  EvaluationRequest request = ruled;
  request.source_code = kPlainScaleAdd;
  EXPECT_FALSE((*gluon)->check_source(request.source_code));
  auto plain = executor.evaluate(request);
  ASSERT_TRUE(plain) << plain.status().to_string();
  EXPECT_VERDICT(*plain, Verdict::compile_error);
  EXPECT_EQ(plain->message, reason);
  EXPECT_NE(record_value(*plain, "kernel_frontends").find(R"({"name":"scale_add_kernel","frontend":"triton","launched":true})"),
            std::string::npos) << record_value(*plain, "kernel_frontends");
  // Without the rule the same kernel is a right answer: the rule is what fails it.
  request.required_kernel_frontend = "";
  auto unruled = executor.evaluate(request);
  ASSERT_TRUE(unruled) << unruled.status().to_string();
  EXPECT_VERDICT(*unruled, Verdict::passed);

  // Through the core's judging step, as the tools, a final score and `eval` judge: a spelling the static check
  // lets through is refused at run time.
  request = base;
  request.source_code = hidden_plain_scale_add(0);
  EXPECT_TRUE((*gluon)->check_source(request.source_code));
  auto hidden = judging::judge(executor, gluon->get(), request);
  ASSERT_TRUE(hidden) << hidden.status().to_string();
  EXPECT_VERDICT(*hidden, Verdict::compile_error);
  EXPECT_EQ(hidden->message, reason);

  // Gluon in the checks (one case per visible shape), plain Triton in the timed calls: refused after them.
  request = ruled;
  request.stage = EvaluationStage::benchmark;
  request.source_code = hidden_plain_scale_add(static_cast<int>(base.task.visible_shapes.size()));
  auto timed = executor.evaluate(request);
  ASSERT_TRUE(timed) << timed.status().to_string();
  EXPECT_VERDICT(*timed, Verdict::compile_error);
  EXPECT_EQ(timed->message, reason);
  EXPECT_NE(record_value(*timed, "candidate_phases").find("\"timing\""), std::string::npos)
      << "refused once the timed calls had run: " << record_value(*timed, "candidate_phases");

  // The task's oracle keeps the rule, checked and timed, with no flag.
  request = ruled;
  request.stage = EvaluationStage::benchmark;
  request.source_code = read_file(base.task.oracle_path);
  auto oracle = executor.evaluate(request);
  ASSERT_TRUE(oracle) << oracle.status().to_string();
  EXPECT_VERDICT(*oracle, Verdict::passed);
  EXPECT_TRUE(oracle->flags.empty()) << oracle->flags.front();
  EXPECT_EQ(record_value(*oracle, "kernel_frontends"), R"([{"name":"_scale_add_kernel","frontend":"gluon","launched":true}])");
}

}  // namespace
}  // namespace tritongym::plugins
