#include "budget/budget_ledger.hpp"

namespace tritongym::budget {
namespace {

template <class T>
std::optional<std::string> over(const char* name, const std::optional<T>& limit, T used) {
  if (limit && used >= *limit) return std::string(name) + " (" + std::to_string(*limit) + ") reached";
  return std::nullopt;
}

}  // namespace

BudgetLedger::BudgetLedger(Budget limits) : limits_(std::move(limits)), started_(std::chrono::steady_clock::now()) {}

std::optional<std::string> BudgetLedger::shared_limit_reached() const {
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  if (auto r = over("max_input_tokens", limits_.max_input_tokens, used_.input_tokens)) return r;
  if (auto r = over("max_output_tokens", limits_.max_output_tokens, used_.output_tokens)) return r;
  if (auto r = over("max_dollars", limits_.max_dollars, used_.dollars)) return r;
  if (auto r = over("max_gpu_seconds", limits_.max_gpu_seconds, used_.gpu_seconds)) return r;
  if (auto r = over("max_wall_seconds", limits_.max_wall_seconds, wall)) return r;
  return std::nullopt;
}

std::optional<std::string> BudgetLedger::refuse_turn() const {
  std::lock_guard lock(mutex_);
  if (auto r = over("max_turns", limits_.max_turns, used_.turns)) return r;
  return shared_limit_reached();
}

std::optional<std::string> BudgetLedger::refuse_tool_call(const std::string& tool_name) const {
  std::lock_guard lock(mutex_);
  if (auto r = over("max_tool_calls", limits_.max_tool_calls, used_.tool_calls)) return r;
  if (auto limit = limits_.max_calls_per_tool.find(tool_name); limit != limits_.max_calls_per_tool.end()) {
    auto used = used_.calls_per_tool.find(tool_name);
    int64_t count = used == used_.calls_per_tool.end() ? 0 : used->second;
    if (count >= limit->second)
      return "max_calls_per_tool." + tool_name + " (" + std::to_string(limit->second) + ") reached";
  }
  return shared_limit_reached();
}

void BudgetLedger::charge_turn(const TokenUsage& usage, double cost_usd) {
  std::lock_guard lock(mutex_);
  used_.turns += 1;
  used_.input_tokens += usage.input_tokens;
  used_.output_tokens += usage.output_tokens;
  used_.dollars += cost_usd;
}

void BudgetLedger::charge_tool_call(const std::string& tool_name, double gpu_seconds) {
  std::lock_guard lock(mutex_);
  used_.tool_calls += 1;
  used_.calls_per_tool[tool_name] += 1;
  used_.gpu_seconds += gpu_seconds;
}

std::optional<std::string> BudgetLedger::exhausted_reason() const {
  std::lock_guard lock(mutex_);
  if (auto r = over("max_turns", limits_.max_turns, used_.turns)) return r;
  if (auto r = over("max_tool_calls", limits_.max_tool_calls, used_.tool_calls)) return r;
  return shared_limit_reached();
}

BudgetUsage BudgetLedger::usage() const {
  std::lock_guard lock(mutex_);
  BudgetUsage usage = used_;
  usage.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  return usage;
}

}  // namespace tritongym::budget
