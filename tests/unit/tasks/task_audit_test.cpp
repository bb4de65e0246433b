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
