// The audit's rules over what a timing executor measured (no GPU needed: the measurements are made up here), and
// the rules that read task.yaml alone.
#include "tasks/task_audit.hpp"

#include <gtest/gtest.h>

#include <map>

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
  for (const auto& finding : findings)
    if (finding.rule == kRuleOracleVsBaselines) EXPECT_NE(finding.detail.find("0.96x"), std::string::npos) << finding.detail;
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
