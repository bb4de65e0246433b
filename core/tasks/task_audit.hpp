// `tritongym tasks audit`: does a task meet the bar (docs/task-format.md, "The bar")? On a timing executor it
// measures, per shape and dtype, the oracle against PyTorch eager and torch.compile and against its
// speed-of-light floor; everywhere it checks what `tasks check` checks (the oracle and the plain-Triton baseline
// pass, the outputs are not degenerate), the shape rules, the formulas and that the tolerance fails a 1%
// systematic error. A rule a task cannot meet is exempted in its task.yaml (`audit_exempt`) with one line of
// reason; the audit lists every exemption it used.
#pragma once

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <vector>

#include "tritongym/sdk/executor.hpp"
#include "tritongym/sdk/types.hpp"

namespace tritongym::tasks {

// The rules, by the names task.yaml's `audit_exempt` uses.
inline constexpr const char* kRuleOraclePasses = "oracle-passes";          // the oracle passes every shape
inline constexpr const char* kRuleOutputsVary = "outputs-vary";            // outputs not degenerate (tasks check)
inline constexpr const char* kRuleOracleVsBaselines = "oracle-vs-baselines";  // within 3% of eager and compile
inline constexpr const char* kRuleFloorBelowOracle = "floor-below-oracle";    // the oracle reads <= 100% of floor
inline constexpr const char* kRuleOracleNearFloor = "oracle-near-floor";      // the oracle reads >= 45% of floor
inline constexpr const char* kRuleShapeAt20us = "shape-at-20us";              // the oracle runs >= 20 µs
inline constexpr const char* kRuleOddHeldOut = "odd-held-out";                // a held-out shape with an odd size
inline constexpr const char* kRuleLargerHeldOut = "larger-held-out";          // one larger than every visible
inline constexpr const char* kRuleFormulas = "formulas";                      // a byte formula gives each floor
inline constexpr const char* kRuleToleranceFails1Pct = "tolerance-fails-1pct";  // 1.01 x the oracle fails
inline constexpr const char* kRuleCategory = "category";                      // one of task_categories()
inline constexpr const char* kRuleTritonBaseline = "triton-baseline";         // a dsl task ships triton_baseline.py
inline constexpr const char* kRuleTritonBaselinePasses = "triton-baseline-passes";  // which passes the checks
inline constexpr const char* kRuleDslBeatsTriton = "dsl-beats-triton";        // the oracle is faster than it
const std::vector<std::string>& audit_rules();

// The categories a task's `category` may name: docs/task-format.md's table, "Categories" (a test holds the two
// alike).
const std::vector<std::string>& task_categories();

// The bar's numbers.
inline constexpr double kBaselineSlack = 1.03;       // oracle_us <= 1.03 x min(eager_us, compile_us)
inline constexpr double kNearFloorFraction = 0.45;   // floor_us / oracle_us >= 0.45
inline constexpr double kShortestOracleUs = 20.0;
inline constexpr int64_t kOddAlignment = 16;         // a size that is not a multiple of 16 is odd
// dsl-beats-triton: the DSL oracle's speedup over the plain-Triton baseline (triton_us / oracle_us) is at least
// 1.05 in the geometric mean over the timed shapes, and on no shape is the oracle more than 3% slower.
inline constexpr double kDslGeomeanSpeedup = 1.05;
inline constexpr double kDslShapeSlack = 1.03;       // oracle_us <= 1.03 x triton_us on every shape

// One shape (and dtype) of a task as the audit measured it on a timing executor.
struct AuditedShape {
  std::string shape;  // the result's name: "held-out-1" or "held-out-1/float16"
  bool passed = false;
  std::optional<double> oracle_us, eager_us, compile_us, floor_us, byte_count, flop_count;
  std::optional<double> triton_us;                   // the plain-Triton baseline (tasks with triton_baseline.py)
  std::optional<double> over_best_baseline() const;  // min(eager, compile) / oracle
  std::optional<double> over_triton() const;         // triton / oracle
  std::optional<double> floor_fraction() const;      // floor / oracle
};

// One way the task misses the bar. `shape` is empty for a rule of the whole task.
struct AuditFinding {
  std::string rule;
  std::string shape;
  std::string detail;           // a sentence with the figures
  std::string exemption;        // task.yaml's reason when exempt; "" when it is a violation
  bool exempt() const { return !exemption.empty(); }
};

struct TaskAudit {
  std::string task_id;
  bool timed = false;                 // the executor timed the oracle (a GPU); else only the CPU rules ran
  std::vector<AuditedShape> shapes;   // timed shapes (empty off the GPU)
  std::vector<AuditFinding> findings;
  std::vector<std::string> unused_exemptions;  // exemptions of task.yaml that matched nothing
  size_t violations() const;
  double seconds = 0.0;
  std::string files_digest;  // task_files_digest of the files audited: a resumed sweep audits a changed task again
};

// The rules that read the task folder alone: odd and larger held-out shapes (by the product of a shape's dims), a
// byte formula, the category, a `split: dsl` task's triton_baseline.py defining the entry function, and
// exemptions that name a rule the audit has.
std::vector<AuditFinding> audit_task_yaml(const TaskSpec& task);

// The rules that read the oracle's final score on a timing executor (every shape's times and floor). The shape
// rules by bytes (or FLOPs) replace audit_task_yaml's dims-product rule where the executor counted them.
std::vector<AuditedShape> audited_shapes(const EvaluationResult& oracle_result);
std::vector<AuditFinding> audit_timings(const TaskSpec& task, const std::vector<AuditedShape>& shapes);

// The candidate that scales the oracle's floating-point outputs by 1.01 (and adds 1 to integer ones): a
// tolerance that lets it pass cannot tell a 1% systematic error from a right answer.
std::string scaled_oracle_source(const TaskSpec& task, const std::string& oracle_source);

// Runs every rule with `executor`: the oracle at the final score (timed where the executor times) and the
// scaled oracle at the test stage; applies task.yaml's exemptions.
TaskAudit audit_task(const TaskSpec& task, Executor& executor);

// The rules of task.yaml alone, with its exemptions applied: for a task the executor cannot run (a Gluon task on
// the interpreter), whose oracle is then neither judged nor timed. With `plain_triton` (an executor that runs
// plain Triton), the task's triton_baseline.py is judged there too (triton-baseline-passes).
TaskAudit audit_task_yaml_only(const TaskSpec& task, Executor* plain_triton = nullptr);

// triton-baseline-passes: the task's triton_baseline.py judged by `executor` at the test stage on every shape it
// runs (the interpreter: the small shapes), as plain Triton; nullopt where it passes or the task has none.
std::optional<AuditFinding> audit_triton_baseline(const TaskSpec& task, Executor& executor);

// The audit of several tasks as JSON ({executor, tasks: [...], summary}) and as a Markdown table.
boost::json::value audit_json(const std::vector<TaskAudit>& audits, const std::string& executor_id);
std::string audit_markdown(const std::vector<TaskAudit>& audits, const std::string& executor_id);
std::string audit_summary(const std::vector<TaskAudit>& audits);  // one line: tasks, shapes, violations, exempt

// audit_json read back (`tasks audit --resume`: a sweep cut by a time limit goes on where it stopped). A document
// that is not an audit gives an error that says where it is wrong.
Result<std::vector<TaskAudit>> audits_from_json(const boost::json::value& document);

}  // namespace tritongym::tasks
