// The audit's rules over what a timing executor measured (no GPU needed: the measurements are made up here), and
// the rules that read task.yaml alone.
#include "tasks/task_audit.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "support/test_support.hpp"

namespace tritongym::tasks {
namespace {

AuditedShape shape(const std::string& name, double oracle, double eager, double compile, double floor,
                   double bytes) {
  AuditedShape measured;
  measured.shape = name;
  measured.passed = true;
  measured.oracle_us = oracle;
  measured.eager_us = eager;
  measured.compile_us = compile;
  measured.floor_us = floor;
  measured.byte_count = bytes;
  return measured;
}

std::multimap<std::string, std::string> rules_by_shape(const std::vector<AuditFinding>& findings) {
  std::multimap<std::string, std::string> found;
  for (const auto& finding : findings) found.emplace(finding.rule, finding.shape);
  return found;
}

TaskSpec task_with_shapes() {
  TaskSpec task;
  task.id = "t/x";
  task.category = "elementwise";
  task.bytes_formula = "4 * N";
  task.visible_shapes = {{"visible-0", {{"N", 1024}}}};
  task.held_out_shapes = {{"held-out-0", {{"N", 4099}}}};
  return task;
}

TEST(TaskAudit, EachTimingRuleFiresOnItsShapeWithItsFigures) {
  const std::vector<AuditedShape> shapes = {
      shape("visible-0", 100.0, 200.0, 150.0, 60.0, 4e8),        // on the bar: 1.5x compile, 60% of the floor
      shape("visible-1", 100.0, 200.0, 96.0, 60.0, 4e8),         // 0.96x torch.compile: over 3% slower
      shape("held-out-0", 50.0, 80.0, 70.0, 55.0, 9e8),          // 110% of the floor: the floor is wrong
      shape("held-out-1", 100.0, 120.0, 110.0, 30.0, 1e8),       // 30% of the floor
      shape("held-out-2", 12.0, 30.0, 20.0, 8.0, 1e7)};          // under 20 us
  const auto findings = audit_timings(task_with_shapes(), shapes);
  const auto found = rules_by_shape(findings);
  EXPECT_EQ(found.count(kRuleOracleVsBaselines), 1u);
  EXPECT_EQ(found.find(kRuleOracleVsBaselines)->second, "visible-1");
  EXPECT_EQ(found.find(kRuleFloorBelowOracle)->second, "held-out-0");
  EXPECT_EQ(found.find(kRuleOracleNearFloor)->second, "held-out-1");
  EXPECT_EQ(found.find(kRuleShapeAt20us)->second, "held-out-2");
  EXPECT_EQ(found.count(kRuleLargerHeldOut), 0u);  // held-out-0 moves 9e8 bytes against the visible 4e8
  EXPECT_EQ(findings.size(), 4u);
  for (const auto& finding : findings) {
    if (finding.rule == kRuleOracleVsBaselines) {
      EXPECT_NE(finding.detail.find("0.96x"), std::string::npos) << finding.detail;
    }
  }
}

TEST(TaskAudit, LargerHeldOutReadsTheExecutorsBytesWhereItCountedThem) {
  const std::vector<AuditedShape> smaller = {shape("visible-0", 100, 200, 200, 60, 4e8),
                                             shape("held-out-0", 100, 200, 200, 60, 3e8)};
  const auto findings = audit_timings(task_with_shapes(), smaller);  // by dims the held-out N is larger; by bytes not
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, kRuleLargerHeldOut);
  EXPECT_NE(findings[0].detail.find("bytes"), std::string::npos) << findings[0].detail;
  EXPECT_TRUE(audit_timings(task_with_shapes(), {}).empty());  // untimed: by dims, where 4099 > 1024
}

TEST(TaskAudit, TaskYamlRulesAndExemptionNames) {
  TaskSpec task = task_with_shapes();
  EXPECT_TRUE(audit_task_yaml(task).empty());
  task.held_out_shapes = {{"held-out-0", {{"N", 4096}}}};  // a multiple of 16: no edge tested
  task.bytes_formula.clear();
  task.audit_exemptions = {{"oracle-vs-baselines@held-out-0", "cuBLAS at an odd K"}, {"speedy", "no such rule"}};
  const auto found = rules_by_shape(audit_task_yaml(task));
  EXPECT_EQ(found.count(kRuleOddHeldOut), 1u);
  EXPECT_EQ(found.count(kRuleFormulas), 1u);
  EXPECT_EQ(found.count("audit-exempt"), 1u);  // "speedy"; the named rule with a shape is fine
}

// audit.json read back (tasks audit --resume) holds what was written: shapes, findings, exemptions, timings.
TEST(TaskAudit, TheJsonTableReadsBackAsItWasWritten) {
  TaskAudit audit;
  audit.task_id = "t/x";
  audit.timed = true;
  audit.seconds = 12.5;
  audit.shapes = {shape("visible-0", 30.0, 40.0, 35.0, 20.0, 4096.0)};
  audit.shapes[0].triton_us = 36.0;
  audit.findings = {{"oracle-near-floor", "visible-0", "reads 40%", ""}, {"formulas", "", "no floor", "a reason"}};
  audit.unused_exemptions = {"shape-at-20us"};
  auto back = audits_from_json(audit_json({audit}, "exec"));
  ASSERT_TRUE(back.has_value()) << back.status().message();
  ASSERT_EQ(back->size(), 1u);
  const TaskAudit& read = back->front();
  EXPECT_EQ(read.task_id, "t/x");
  EXPECT_TRUE(read.timed);
  EXPECT_DOUBLE_EQ(read.seconds, 12.5);
  ASSERT_EQ(read.shapes.size(), 1u);
  EXPECT_EQ(read.shapes[0].oracle_us, 30.0);
  EXPECT_EQ(read.shapes[0].floor_us, 20.0);
  EXPECT_EQ(read.shapes[0].byte_count, 4096.0);
  EXPECT_FALSE(read.shapes[0].flop_count.has_value());
  EXPECT_EQ(read.shapes[0].triton_us, 36.0);
  EXPECT_EQ(read.violations(), 1u);
  EXPECT_EQ(read.findings[1].exemption, "a reason");
  EXPECT_EQ(read.unused_exemptions, std::vector<std::string>{"shape-at-20us"});
  EXPECT_EQ(audit_markdown(*back, "exec"), audit_markdown({audit}, "exec"));
  auto wrong = audits_from_json(boost::json::parse(R"({"tasks": [{"shapes": []}]})"));
  ASSERT_FALSE(wrong.has_value());
  EXPECT_EQ(wrong.status().message(), "not an audit.json: tasks[0] has no \"task\"");
}

// docs/task-format.md's "Categories" table names exactly the categories the audit accepts, in its order.
TEST(TaskAudit, TheCategoriesAreTheDocsTable) {
  std::ifstream docs(testing::source_dir() + "/docs/task-format.md");
  ASSERT_TRUE(docs.good());
  std::vector<std::string> documented;
  bool in_section = false;
  for (std::string line; std::getline(docs, line);) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## Categories";
    if (in_section && line.rfind("| `", 0) == 0) documented.push_back(line.substr(3, line.find('`', 3) - 3));
  }
  EXPECT_EQ(documented, task_categories());
  TaskSpec task = task_with_shapes();
  task.category = "fused";
  EXPECT_EQ(rules_by_shape(audit_task_yaml(task)).count(kRuleCategory), 1u);
  task.category = "normalization";
  EXPECT_EQ(rules_by_shape(audit_task_yaml(task)).count(kRuleCategory), 0u);
}

// An executor that judges the oracle as a timing executor whose baselines failed: one shape timed, no floor, and
// the reason in its record.
class NoBaselinesExecutor : public Executor {
 public:
  Status availability() const noexcept override { return Status::ok(); }
  ExecutorInfo info() const noexcept override { return {"test GPU", true, 1, {}}; }
  Result<EvaluationResult> evaluate(const EvaluationRequest& request) noexcept override {
    EvaluationResult result;
    if (request.stage == EvaluationStage::test) {  // the scaled oracle: a 1% error fails, as it should
      result.verdict = Verdict::wrong_answer;
      return result;
    }
    result.verdict = Verdict::passed;
    ShapeOutcome outcome;
    outcome.shape = "visible-0";
    outcome.passed = true;
    outcome.timing = ShapeTiming{};
    outcome.timing->median_us = 50.0;
    result.shapes.push_back(outcome);
    result.record_json = R"({"baseline_error": "the reference worker's reply does not fit the protocol"})";
    return result;
  }
};

// A shape without a floor says why, where the executor kept the reason (its baselines failed).
TEST(TaskAudit, AShapeWithoutAFloorGivesTheExecutorsReason) {
  testing::TemporaryDirectory folder;
  std::ofstream(folder.path() / "oracle.py") << "def f(x):\n    return x\n";
  std::ofstream(folder.path() / "reference.py") << "def reference(x):\n    return x\n";
  TaskSpec task = task_with_shapes();
  task.entry_function = "f";
  task.oracle_path = (folder.path() / "oracle.py").string();
  task.reference_path = (folder.path() / "reference.py").string();
  NoBaselinesExecutor executor;
  const TaskAudit audit = audit_task(task, executor);
  ASSERT_TRUE(audit.timed);
  bool said = false;
  for (const auto& found : audit.findings)
    if (found.rule == kRuleFormulas && found.shape == "visible-0") {
      EXPECT_EQ(found.detail, "no speed-of-light floor for this shape (the executor got no baselines: the reference "
                              "worker's reply does not fit the protocol)");
      said = true;
    }
  EXPECT_TRUE(said);
}

// A task the executor cannot run still has its task.yaml held to the bar, with its exemptions.
TEST(TaskAudit, ATaskTheExecutorCannotRunGetsItsYamlRules) {
  TaskSpec task = task_with_shapes();
  task.category = "fused";
  task.bytes_formula.clear();
  task.audit_exemptions = {{"formulas", "a reason"}};
  const TaskAudit audit = audit_task_yaml_only(task);
  EXPECT_EQ(audit.task_id, "t/x");
  EXPECT_FALSE(audit.timed);
  EXPECT_EQ(audit.violations(), 1u);  // the category; the formula is exempt
  ASSERT_EQ(audit.findings.size(), 2u);
  EXPECT_EQ(rules_by_shape(audit.findings).count(kRuleCategory), 1u);
  EXPECT_TRUE(audit.unused_exemptions.empty());
}

// dsl-beats-triton: at least 1.05x the plain-Triton baseline in the geometric mean, and no shape over 3% slower.
TEST(TaskAudit, ADslOracleMustBeatItsPlainTritonBaseline) {
  TaskSpec task = task_with_shapes();
  task.split = "dsl";
  task.triton_baseline_path = "/tasks/dsl/x/triton_baseline.py";  // the timing rules read no file
  auto with_triton = [](AuditedShape measured, std::optional<double> triton) {
    measured.triton_us = triton;
    return measured;
  };
  // 1.25x, 1.0x and 0.98x: the geometric mean 1.07 is on the bar, and 2% slower on one shape is allowed.
  std::vector<AuditedShape> shapes = {with_triton(shape("visible-0", 100, 900, 900, 60, 4e8), 125.0),
                                      with_triton(shape("held-out-0", 100, 900, 900, 60, 9e8), 100.0),
                                      with_triton(shape("held-out-1", 100, 900, 900, 60, 9e8), 98.0)};
  EXPECT_EQ(rules_by_shape(audit_timings(task, shapes)).count(kRuleDslBeatsTriton), 0u);
  // 4% slower on one shape: that shape is a violation, though the mean (1.06x) is on the bar.
  shapes[1].triton_us = 104.0;
  shapes[2].triton_us = 96.0;
  auto found = rules_by_shape(audit_timings(task, shapes));
  ASSERT_EQ(found.count(kRuleDslBeatsTriton), 1u);
  EXPECT_EQ(found.find(kRuleDslBeatsTriton)->second, "held-out-1");
  // Faster everywhere, but only 1.02x in the mean: a violation of the whole task, with its figure.
  shapes = {with_triton(shape("visible-0", 100, 900, 900, 60, 4e8), 103.0),
            with_triton(shape("held-out-0", 100, 900, 900, 60, 9e8), 101.0)};
  auto findings = audit_timings(task, shapes);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, kRuleDslBeatsTriton);
  EXPECT_EQ(findings[0].shape, "");
  EXPECT_NE(findings[0].detail.find("1.020x"), std::string::npos) << findings[0].detail;
  // A shape where the baseline was not timed cannot show the oracle beats it.
  shapes[0].triton_us.reset();
  shapes[1].triton_us = 200.0;
  found = rules_by_shape(audit_timings(task, shapes));
  ASSERT_EQ(found.count(kRuleDslBeatsTriton), 1u);
  EXPECT_EQ(found.find(kRuleDslBeatsTriton)->second, "visible-0");
  // A task without a plain-Triton baseline is not held to one by the timing rules (triton-baseline is
  // task.yaml's rule), even where a triton time shows up.
  task.triton_baseline_path.clear();
  shapes[0].triton_us = 10.0;
  EXPECT_EQ(rules_by_shape(audit_timings(task, shapes)).count(kRuleDslBeatsTriton), 0u);
}

// triton-baseline: a dsl task ships triton_baseline.py, and it defines the entry function at the top level.
TEST(TaskAudit, ADslTaskShipsATritonBaselineDefiningItsEntry) {
  testing::TemporaryDirectory dir;
  TaskSpec task = task_with_shapes();
  task.entry_function = "matmul";
  EXPECT_EQ(rules_by_shape(audit_task_yaml(task)).count(kRuleTritonBaseline), 0u);  // standard: none needed
  task.split = "dsl";
  auto findings = audit_task_yaml(task);
  ASSERT_EQ(rules_by_shape(findings).count(kRuleTritonBaseline), 1u);
  EXPECT_NE(findings[0].detail.find("triton_baseline.py"), std::string::npos) << findings[0].detail;
  task.triton_baseline_path = dir.write("triton_baseline.py", "import triton\n\n\ndef _matmul(a, b):\n    pass\n\n\n"
                                                              "class K:\n    def matmul(self, a, b):\n        pass\n");
  findings = audit_task_yaml(task);  // a method and a prefixed name are not the entry
  ASSERT_EQ(rules_by_shape(findings).count(kRuleTritonBaseline), 1u);
  EXPECT_NE(findings[0].detail.find("no top-level function 'matmul'"), std::string::npos) << findings[0].detail;
  task.triton_baseline_path = dir.write("triton_baseline.py", "import triton\n\n\ndef matmul(a, b):\n    return a @ b\n");
  EXPECT_TRUE(audit_task_yaml(task).empty());
}

// docs/task-format.md's rule table (under "The bar") names exactly the audit's rules, in its order.
TEST(TaskAudit, TheRulesAreTheDocsTable) {
  std::ifstream docs(testing::source_dir() + "/docs/task-format.md");
  ASSERT_TRUE(docs.good());
  std::vector<std::string> documented;
  bool in_section = false;
  for (std::string line; std::getline(docs, line);) {
    if (line.rfind("## ", 0) == 0) in_section = line.rfind("## The bar", 0) == 0;
    if (in_section && line.rfind("| `", 0) == 0) documented.push_back(line.substr(3, line.find('`', 3) - 3));
  }
  EXPECT_EQ(documented, audit_rules());
}

TEST(TaskAudit, TheScaledOracleWrapsTheEntryPoint) {
  TaskSpec task;
  task.entry_function = "softmax";
  const std::string source = scaled_oracle_source(task, "def softmax(x):\n    return x\n");
  EXPECT_NE(source.find("_tritongym_audit_oracle = softmax"), std::string::npos);
  EXPECT_NE(source.find("def softmax(*args, **kwargs):"), std::string::npos);
  EXPECT_NE(source.find("* 1.01"), std::string::npos);
}

}  // namespace
}  // namespace tritongym::tasks
