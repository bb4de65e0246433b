#include "tasks/task_audit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <fstream>
#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "tasks/task_check.hpp"
#include "tasks/task_digest.hpp"

namespace tritongym::tasks {
namespace {

std::string us(std::optional<double> value) { return value ? fmt::format("{:.1f} us", *value) : "-"; }

// The product of a shape's dims: how large it is where the executor counted no bytes (task.yaml alone).
double dims_product(const ShapeSpec& shape) {
  double product = 1.0;
  for (const auto& [name, size] : shape.dims) product *= static_cast<double>(std::max<int64_t>(size, 1));
  return product;
}

bool is_held_out(const std::string& shape_name) { return shape_name.rfind("held-out", 0) == 0; }

// "held-out-1/float16" -> "held-out-1": an exemption may name a shape with or without its dtype.
std::string without_dtype(const std::string& shape_name) { return shape_name.substr(0, shape_name.find('/')); }

AuditFinding finding(const std::string& rule, const std::string& shape, const std::string& detail) {
  return AuditFinding{rule, shape, detail, ""};
}

// Which shapes are larger: by the executor's byte counts (or FLOPs where no bytes) when every timed shape has
// them, else by the product of task.yaml's dims.
std::optional<AuditFinding> larger_held_out(const TaskSpec& task, const std::vector<AuditedShape>& shapes) {
  double visible = 0.0, held_out = 0.0;
  std::string measure;
  bool counted = !shapes.empty() && std::all_of(shapes.begin(), shapes.end(), [](const AuditedShape& shape) {
    return shape.byte_count.value_or(0.0) > 0.0 || shape.flop_count.value_or(0.0) > 0.0;
  });
  if (counted) {
    measure = "bytes (or FLOPs) the task's formulas count";
    for (const auto& shape : shapes) {
      double& largest = is_held_out(shape.shape) ? held_out : visible;
      largest = std::max(largest, std::max(shape.byte_count.value_or(0.0), shape.flop_count.value_or(0.0)));
    }
  } else {
    measure = "the product of its dimensions";
    for (const auto& shape : task.visible_shapes) visible = std::max(visible, dims_product(shape));
    for (const auto& shape : task.held_out_shapes) held_out = std::max(held_out, dims_product(shape));
  }
  if (held_out > visible) return std::nullopt;
  return finding(kRuleLargerHeldOut, "",
                 fmt::format("no held-out shape is larger than every visible one by {} ({:.4g} against {:.4g})",
                             measure, held_out, visible));
}

// dsl-beats-triton, for a task with a plain-Triton baseline: per timed shape the oracle is at most 3% slower than
// the baseline (a shape where the baseline was not timed is a finding too), and over the shapes where both were
// timed it is at least 5% faster in the geometric mean.
std::vector<AuditFinding> dsl_beats_triton(const TaskSpec& task, const std::vector<AuditedShape>& shapes) {
  std::vector<AuditFinding> findings;
  if (task.triton_baseline_path.empty()) return findings;
  double log_sum = 0.0;
  size_t counted = 0;
  for (const auto& shape : shapes) {
    if (!shape.oracle_us) continue;
    auto ratio = shape.over_triton();
    if (!ratio) {
      findings.push_back(finding(kRuleDslBeatsTriton, shape.shape,
                                 "the plain-Triton baseline was not timed here (the executor's `baselines` leaves out "
                                 "triton, or triton_baseline.py failed in the reference worker)"));
      continue;
    }
    log_sum += std::log(*ratio);
    ++counted;
    if (*ratio * kDslShapeSlack < 1.0)
      findings.push_back(finding(kRuleDslBeatsTriton, shape.shape,
                                 fmt::format("the oracle's {} is {:.2f}x the plain-Triton baseline's {}; the bar is at "
                                             "most 3% slower on any shape",
                                             us(shape.oracle_us), *ratio, us(shape.triton_us))));
  }
  if (counted) {
    const double geomean = std::exp(log_sum / static_cast<double>(counted));
    if (geomean < kDslGeomeanSpeedup)
      findings.push_back(finding(kRuleDslBeatsTriton, "",
                                 fmt::format("the oracle is {:.3f}x the plain-Triton baseline in the geometric mean over "
                                             "{} shapes; the bar is {:.2f}x",
                                             geomean, counted, kDslGeomeanSpeedup)));
  }
  return findings;
}

void apply_exemptions(const TaskSpec& task, TaskAudit& audit) {
  std::set<std::string> used;
  for (auto& found : audit.findings) {
    for (const std::string& key : {found.rule + "@" + found.shape, found.rule + "@" + without_dtype(found.shape),
                                   found.rule}) {
      auto exemption = task.audit_exemptions.find(key);
      if (exemption == task.audit_exemptions.end() || (key != found.rule && found.shape.empty())) continue;
      found.exemption = exemption->second;
      used.insert(key);
      break;
    }
  }
  for (const auto& [key, reason] : task.audit_exemptions)
    if (!used.count(key)) audit.unused_exemptions.push_back(key);
}

std::string source_of(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// Whether `source` defines `entry` at the top level ("def entry(" at the start of a line).
bool defines_function(const std::string& source, const std::string& entry) {
  static const std::regex line_start("^def[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]*\\(", std::regex::multiline);
  for (auto it = std::sregex_iterator(source.begin(), source.end(), line_start); it != std::sregex_iterator(); ++it)
    if ((*it)[1] == entry) return true;
  return false;
}

// What is wrong with a task's plain-Triton baseline as the folder holds it: a `split: dsl` task without one, or a
// file that does not define the entry function.
std::optional<std::string> triton_baseline_problem(const TaskSpec& task) {
  if (task.triton_baseline_path.empty())
    return task.split == "dsl" ? std::optional<std::string>(
                                     "a dsl task ships triton_baseline.py: the entry in plain @triton.jit kernels, the "
                                     "best one can write, which the oracle must beat")
                               : std::nullopt;
  if (!defines_function(source_of(task.triton_baseline_path), task.entry_function))
    return "triton_baseline.py defines no top-level function '" + task.entry_function + "' (the task's entry)";
  return std::nullopt;
}

std::string rules_text() {
  std::string text;
  for (const auto& rule : audit_rules()) text += (text.empty() ? "" : ", ") + rule;
  return text;
}

}  // namespace

const std::vector<std::string>& audit_rules() {
  static const std::vector<std::string> rules = {
      kRuleOraclePasses,   kRuleOutputsVary,          kRuleOracleVsBaselines, kRuleFloorBelowOracle,
      kRuleOracleNearFloor, kRuleShapeAt20us,         kRuleOddHeldOut,        kRuleLargerHeldOut,
      kRuleFormulas,       kRuleToleranceFails1Pct,   kRuleCategory,          kRuleTritonBaseline,
      kRuleTritonBaselinePasses, kRuleDslBeatsTriton};
  return rules;
}

const std::vector<std::string>& task_categories() {
  static const std::vector<std::string> categories = {
      "elementwise", "activation", "normalization", "reduction",  "scan",        "sort",
      "matmul",      "quantization", "attention",   "attention-prep", "convolution", "pooling",
      "resampling",  "loss",       "optimizer",     "memory",     "layout",      "moe-routing",
      "sampling",    "semiring-matmul", "distance-argmin"};
  return categories;
}

std::optional<double> AuditedShape::over_best_baseline() const {
  std::optional<double> best;
  for (const auto& baseline : {eager_us, compile_us})
    if (baseline && *baseline > 0.0 && (!best || *baseline < *best)) best = baseline;
  if (!best || !oracle_us || *oracle_us <= 0.0) return std::nullopt;
  return *best / *oracle_us;
}

std::optional<double> AuditedShape::over_triton() const {
  if (!triton_us || *triton_us <= 0.0 || !oracle_us || *oracle_us <= 0.0) return std::nullopt;
  return *triton_us / *oracle_us;
}

std::optional<double> AuditedShape::floor_fraction() const {
  if (!floor_us || !oracle_us || *oracle_us <= 0.0) return std::nullopt;
  return *floor_us / *oracle_us;
}

size_t TaskAudit::violations() const {
  return static_cast<size_t>(std::count_if(findings.begin(), findings.end(), [](const auto& f) { return !f.exempt(); }));
}

std::vector<AuditFinding> audit_task_yaml(const TaskSpec& task) {
  std::vector<AuditFinding> findings;
  bool odd = std::any_of(task.held_out_shapes.begin(), task.held_out_shapes.end(), [](const ShapeSpec& shape) {
    return std::any_of(shape.dims.begin(), shape.dims.end(),
                       [](const auto& dim) { return dim.second % kOddAlignment != 0; });
  });
  if (!odd)
    findings.push_back(finding(kRuleOddHeldOut, "",
                               fmt::format("every held-out size is a multiple of {}: none tests the edges",
                                           kOddAlignment)));
  if (task.bytes_formula.empty())
    findings.push_back(finding(kRuleFormulas, "", "task.yaml has no `bytes:` formula: no shape has a floor"));
  const auto& categories = task_categories();
  if (std::find(categories.begin(), categories.end(), task.category) == categories.end()) {
    std::string listed;
    for (const auto& category : categories) listed += (listed.empty() ? "" : ", ") + category;
    findings.push_back(finding(kRuleCategory, "", "category '" + task.category +
                                                      "' is not one of docs/task-format.md's: " + listed));
  }
  if (auto missing = triton_baseline_problem(task)) findings.push_back(finding(kRuleTritonBaseline, "", *missing));
  const auto& rules = audit_rules();
  for (const auto& [key, reason] : task.audit_exemptions) {
    const std::string rule = key.substr(0, key.find('@'));
    if (std::find(rules.begin(), rules.end(), rule) == rules.end())
      findings.push_back(finding("audit-exempt", "", "exemption '" + key + "' names no rule (the rules: " +
                                                         rules_text() + ")"));
    else if (reason.find_first_not_of(" \t") == std::string::npos)
      findings.push_back(finding("audit-exempt", "", "exemption '" + key + "' gives no reason"));
  }
  return findings;
}

std::vector<AuditedShape> audited_shapes(const EvaluationResult& oracle_result) {
  std::vector<AuditedShape> shapes;
  for (const auto& outcome : oracle_result.shapes) {
    if (!outcome.timing) continue;
    const ShapeTiming& timing = *outcome.timing;
    AuditedShape shape;
    shape.shape = outcome.shape;
    shape.passed = outcome.passed;
    if (timing.median_us > 0.0) shape.oracle_us = timing.median_us;
    shape.eager_us = timing.eager_us;
    shape.compile_us = timing.compile_us;
    shape.triton_us = timing.triton_us;
    shape.floor_us = timing.speed_of_light_us;
    shape.byte_count = timing.byte_count;
    shape.flop_count = timing.flop_count;
    shapes.push_back(std::move(shape));
  }
  return shapes;
}

namespace {

constexpr const char* kNoFloor = "no speed-of-light floor for this shape";

// The executor record's `baseline_error` ("" where it has none, or the record is not JSON).
std::string baseline_error(const std::string& record_json) {
  boost::system::error_code error;
  const boost::json::value record = boost::json::parse(record_json, error);
  if (error || !record.is_object()) return "";
  const auto* found = record.as_object().if_contains("baseline_error");
  if (!found || !found->is_string()) return "";
  std::string text(found->get_string());
  if (text.size() > 300) text = text.substr(0, 300) + "...";
  return text;
}

}  // namespace

std::vector<AuditFinding> audit_timings(const TaskSpec& task, const std::vector<AuditedShape>& shapes) {
  std::vector<AuditFinding> findings;
  for (const auto& shape : shapes) {
    if (!shape.oracle_us) continue;
    if (auto ratio = shape.over_best_baseline(); ratio && *ratio * kBaselineSlack < 1.0)
      findings.push_back(finding(kRuleOracleVsBaselines, shape.shape,
                                 fmt::format("the oracle's {} is {:.2f}x the better of eager ({}) and torch.compile "
                                             "({}); the bar is within 3%",
                                             us(shape.oracle_us), *ratio, us(shape.eager_us), us(shape.compile_us))));
    if (auto fraction = shape.floor_fraction()) {
      if (*fraction > 1.0)
        findings.push_back(finding(kRuleFloorBelowOracle, shape.shape,
                                   fmt::format("the oracle's {} reads {:.0f}% of the floor {}: the floor is wrong",
                                               us(shape.oracle_us), 100.0 * *fraction, us(shape.floor_us))));
      else if (*fraction < kNearFloorFraction)
        findings.push_back(finding(kRuleOracleNearFloor, shape.shape,
                                   fmt::format("the oracle's {} reads {:.0f}% of the floor {} (under {:.0f}%)",
                                               us(shape.oracle_us), 100.0 * *fraction, us(shape.floor_us),
                                               100.0 * kNearFloorFraction)));
    } else {
      findings.push_back(finding(kRuleFormulas, shape.shape, kNoFloor));
    }
    if (*shape.oracle_us < kShortestOracleUs)
      findings.push_back(finding(kRuleShapeAt20us, shape.shape,
                                 fmt::format("the oracle runs {} here, under {:.0f} us, where launch overhead weighs",
                                             us(shape.oracle_us), kShortestOracleUs)));
  }
  if (auto beaten = dsl_beats_triton(task, shapes); !beaten.empty())
    findings.insert(findings.end(), beaten.begin(), beaten.end());
  if (auto larger = larger_held_out(task, shapes)) findings.push_back(*larger);
  return findings;
}

std::string scaled_oracle_source(const TaskSpec& task, const std::string& oracle_source) {
  const std::string& entry = task.entry_function;
  return oracle_source + fmt::format(R"(

# tritongym tasks audit: the oracle's outputs off by a 1% systematic error (+1 for integer outputs).
_tritongym_audit_oracle = {0}


def _tritongym_audit_off(value):
    import torch

    if not isinstance(value, torch.Tensor):
        return value
    if value.dtype == torch.bool:
        return ~value
    if value.is_floating_point() or value.is_complex():
        return (value.float() * 1.01).to(value.dtype)
    return value + 1


def {0}(*args, **kwargs):
    out = _tritongym_audit_oracle(*args, **kwargs)
    if isinstance(out, (tuple, list)):
        return type(out)(_tritongym_audit_off(value) for value in out)
    return _tritongym_audit_off(out)
)",
                                     entry);
}

namespace {

// A verdict's message as a finding shows it: its first line and, where that line ends with a colon (a list of
// shapes follows), the first item, so that the table says what failed and by how much.
std::string message_head(const std::string& message) {
  const size_t first = message.find('\n');
  std::string head = message.substr(0, first);
  if (first == std::string::npos || head.empty() || head.back() != ':') return head;
  const size_t start = message.find_first_not_of(" \t", first + 1);
  if (start == std::string::npos) return head;
  const size_t end = message.find('\n', start);
  std::string item = message.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (item.size() > 300) item = item.substr(0, 300) + "...";
  return head + " " + item;
}

}  // namespace

TaskAudit audit_task(const TaskSpec& task, Executor& executor) {
  TaskAudit audit;
  audit.task_id = task.id;
  const auto started = std::chrono::steady_clock::now();
  audit.findings = audit_task_yaml(task);
  if (task.oracle_path.empty() || task.reference_path.empty()) {
    audit.findings.push_back(finding(kRuleOraclePasses, "", "oracle.py or reference.py is missing"));
  } else {
    auto result = executor.evaluate(oracle_request(task));
    if (!result) {
      audit.findings.push_back(finding(kRuleOraclePasses, "", "the executor could not judge the oracle: " +
                                                                  result.status().message()));
    } else {
      if (result->verdict != Verdict::passed)
        audit.findings.push_back(finding(kRuleOraclePasses, "",
                                         std::string("the oracle does not pass: ") + verdict_name(result->verdict) +
                                             ": " + message_head(result->message)));
      for (const auto& problem : degenerate_outputs(*result, task))  // as `tasks check` finds them
        audit.findings.push_back(finding(kRuleOutputsVary, "", problem));
      audit.shapes = audited_shapes(*result);
      audit.timed = !audit.shapes.empty();
      auto timed = audit_timings(task, audit.shapes);  // with no timings: the larger rule by dims alone
      // Shapes without a floor: the executor's reason, where it kept one (the baselines could not be had).
      const std::string why = baseline_error(result->record_json);
      for (auto& found : timed)
        if (!why.empty() && found.rule == kRuleFormulas && found.detail == kNoFloor)
          found.detail += " (the executor got no baselines: " + why + ")";
      audit.findings.insert(audit.findings.end(), timed.begin(), timed.end());
    }
    EvaluationRequest scaled = oracle_request(task);
    scaled.source_code = scaled_oracle_source(task, source_of(task.oracle_path));
    scaled.stage = EvaluationStage::test;
    scaled.shapes = ShapeSet::visible;
    auto off = executor.evaluate(scaled);
    if (!off)
      audit.findings.push_back(finding(kRuleToleranceFails1Pct, "", "the executor could not judge the scaled oracle: " +
                                                                        off.status().message()));
    else if (off->verdict == Verdict::passed)
      audit.findings.push_back(finding(kRuleToleranceFails1Pct, "",
                                       "the oracle's outputs times 1.01 (integers + 1) pass the checks: the tolerance "
                                       "cannot tell a 1% systematic error from a right answer"));
    else if (off->verdict != Verdict::wrong_answer)
      audit.findings.push_back(finding(kRuleToleranceFails1Pct, "",
                                       std::string("the scaled oracle did not run to a comparison: ") +
                                           verdict_name(off->verdict) + ": " +
                                           message_head(off->message)));
  }
  if (auto baseline = audit_triton_baseline(task, executor)) audit.findings.push_back(*baseline);
  apply_exemptions(task, audit);
  audit.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  audit.files_digest = task_files_digest(task);
  return audit;
}

TaskAudit audit_task_yaml_only(const TaskSpec& task, Executor* plain_triton) {
  TaskAudit audit;
  audit.task_id = task.id;
  const auto started = std::chrono::steady_clock::now();
  audit.findings = audit_task_yaml(task);
  if (plain_triton)
    if (auto baseline = audit_triton_baseline(task, *plain_triton)) audit.findings.push_back(*baseline);
  apply_exemptions(task, audit);
  audit.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  audit.files_digest = task_files_digest(task);
  return audit;
}

std::optional<AuditFinding> audit_triton_baseline(const TaskSpec& task, Executor& executor) {
  if (task.triton_baseline_path.empty() || task.reference_path.empty()) return std::nullopt;
  auto result = executor.evaluate(triton_baseline_request(task));
  if (!result)
    return finding(kRuleTritonBaselinePasses, "",
                   "the executor could not judge triton_baseline.py: " + result.status().message());
  if (result->verdict == Verdict::passed) return std::nullopt;
  return finding(kRuleTritonBaselinePasses, "",
                 std::string("triton_baseline.py does not pass: ") + verdict_name(result->verdict) + ": " +
                     message_head(result->message));
}

boost::json::value audit_json(const std::vector<TaskAudit>& audits, const std::string& executor_id) {
  auto optional = [](std::optional<double> value) { return value ? boost::json::value(*value) : boost::json::value(); };
  boost::json::array tasks;
  for (const auto& audit : audits) {
    boost::json::array shapes, findings, unused;
    for (const auto& shape : audit.shapes)
      shapes.push_back({{"shape", shape.shape}, {"passed", shape.passed}, {"oracle_us", optional(shape.oracle_us)},
                        {"eager_us", optional(shape.eager_us)}, {"compile_us", optional(shape.compile_us)},
                        {"floor_us", optional(shape.floor_us)}, {"bytes", optional(shape.byte_count)},
                        {"flops", optional(shape.flop_count)}, {"triton_us", optional(shape.triton_us)},
                        {"over_best_baseline", optional(shape.over_best_baseline())},
                        {"over_triton", optional(shape.over_triton())},
                        {"floor_fraction", optional(shape.floor_fraction())}});
    for (const auto& found : audit.findings)
      findings.push_back({{"rule", found.rule}, {"shape", found.shape}, {"detail", found.detail},
                          {"exempt", found.exempt()}, {"reason", found.exemption}});
    for (const auto& key : audit.unused_exemptions) unused.push_back(boost::json::string(key));
    tasks.push_back({{"task", audit.task_id}, {"timed", audit.timed}, {"violations", audit.violations()},
                     {"shapes", shapes}, {"findings", findings}, {"unused_exemptions", unused},
                     {"seconds", audit.seconds}, {"files", audit.files_digest}});
  }
  return boost::json::object{{"executor", executor_id}, {"summary", audit_summary(audits)}, {"tasks", tasks}};
}

std::string audit_summary(const std::vector<TaskAudit>& audits) {
  size_t timed = 0, shapes = 0, violations = 0, failing = 0, exempt = 0;
  for (const auto& audit : audits) {
    timed += audit.timed ? 1 : 0;
    shapes += audit.shapes.size();
    violations += audit.violations();
    failing += audit.violations() ? 1 : 0;
    exempt += audit.findings.size() - audit.violations();
  }
  return fmt::format("audit: {} tasks ({} timed, {} shapes), {} violations in {} tasks, {} exempt", audits.size(),
                     timed, shapes, violations, failing, exempt);
}

std::string audit_markdown(const std::vector<TaskAudit>& audits, const std::string& executor_id) {
  auto percent = [](std::optional<double> fraction) {
    return fraction ? fmt::format("{:.0f}%", 100.0 * *fraction) : std::string("-");
  };
  auto ratio = [](std::optional<double> value) { return value ? fmt::format("{:.2f}x", *value) : std::string("-"); };
  std::string out = "Executor: `" + executor_id + "`. " + audit_summary(audits) + ".\n\n";
  out += "| task | shape | oracle | eager | torch.compile | oracle vs best | plain Triton | oracle vs Triton | "
         "oracle % of floor | findings |\n";
  out += "|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const auto& audit : audits) {
    auto rules_of = [&](const std::string& shape) {
      std::string text;
      for (const auto& found : audit.findings)
        if (found.shape == shape) text += (text.empty() ? "" : ", ") + found.rule + (found.exempt() ? " (exempt)" : "");
      return text;
    };
    for (const auto& shape : audit.shapes)
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", audit.task_id, shape.shape,
                         us(shape.oracle_us), us(shape.eager_us), us(shape.compile_us),
                         ratio(shape.over_best_baseline()), us(shape.triton_us), ratio(shape.over_triton()),
                         percent(shape.floor_fraction()), rules_of(shape.shape));
    const std::string whole = rules_of("");
    if (audit.shapes.empty() || !whole.empty())
      out += fmt::format("| {} | (task) | | | | | | | | {} |\n", audit.task_id, whole.empty() ? "ok" : whole);
  }
  std::string violations, exemptions;
  for (const auto& audit : audits)
    for (const auto& found : audit.findings) {
      std::string line = fmt::format("- `{}`{} {}: {}", audit.task_id, found.shape.empty() ? "" : " " + found.shape,
                                     found.rule, found.detail);
      (found.exempt() ? exemptions : violations) += line + (found.exempt() ? " — exempt: " + found.exemption : "") + "\n";
    }
  std::string unused;
  for (const auto& audit : audits)
    for (const auto& key : audit.unused_exemptions) unused += fmt::format("- `{}` {}\n", audit.task_id, key);
  if (!violations.empty()) out += "\n**Violations**\n\n" + violations;
  if (!exemptions.empty()) out += "\n**Exemptions**\n\n" + exemptions;
  if (!unused.empty()) out += "\n**Exemptions that matched nothing here**\n\n" + unused;
  return out;
}

Result<std::vector<TaskAudit>> audits_from_json(const boost::json::value& document) {
  auto wrong = [](const std::string& where) {
    return Status(StatusCode::invalid_argument, "not an audit.json: " + where);
  };
  const auto* root = document.if_object();
  const auto* tasks = root && root->if_contains("tasks") ? root->at("tasks").if_array() : nullptr;
  if (!tasks) return wrong("no \"tasks\" array");
  auto text = [](const boost::json::object& object, const char* key) {
    const auto* value = object.if_contains(key);
    return value && value->is_string() ? std::string(value->get_string()) : std::string();
  };
  auto number = [](const boost::json::object& object, const char* key) -> std::optional<double> {
    const auto* value = object.if_contains(key);
    if (!value || !value->is_number()) return std::nullopt;
    return value->to_number<double>();
  };
  std::vector<TaskAudit> audits;
  for (size_t i = 0; i < tasks->size(); ++i) {
    const auto* entry = (*tasks)[i].if_object();
    if (!entry || text(*entry, "task").empty()) return wrong("tasks[" + std::to_string(i) + "] has no \"task\"");
    TaskAudit audit;
    audit.task_id = text(*entry, "task");
    audit.timed = entry->contains("timed") && entry->at("timed").is_bool() && entry->at("timed").get_bool();
    audit.seconds = number(*entry, "seconds").value_or(0.0);
    audit.files_digest = text(*entry, "files");
    auto array_of = [&](const char* key) -> const boost::json::array* {
      const auto* value = entry->if_contains(key);
      return value ? value->if_array() : nullptr;
    };
    if (const auto* shapes = array_of("shapes"))
      for (const auto& item : *shapes) {
        const auto* object = item.if_object();
        if (!object) return wrong("tasks[" + std::to_string(i) + "].shapes holds a non-object");
        AuditedShape shape;
        shape.shape = text(*object, "shape");
        shape.passed = object->contains("passed") && object->at("passed").is_bool() && object->at("passed").get_bool();
        shape.oracle_us = number(*object, "oracle_us");
        shape.eager_us = number(*object, "eager_us");
        shape.compile_us = number(*object, "compile_us");
        shape.triton_us = number(*object, "triton_us");
        shape.floor_us = number(*object, "floor_us");
        shape.byte_count = number(*object, "bytes");
        shape.flop_count = number(*object, "flops");
        audit.shapes.push_back(std::move(shape));
      }
    if (const auto* findings = array_of("findings"))
      for (const auto& item : *findings) {
        const auto* object = item.if_object();
        if (!object) return wrong("tasks[" + std::to_string(i) + "].findings holds a non-object");
        audit.findings.push_back({text(*object, "rule"), text(*object, "shape"), text(*object, "detail"),
                                  text(*object, "reason")});
      }
    if (const auto* unused = array_of("unused_exemptions"))
      for (const auto& item : *unused)
        if (item.is_string()) audit.unused_exemptions.emplace_back(item.get_string());
    audits.push_back(std::move(audit));
  }
  return audits;
}

}  // namespace tritongym::tasks
