// Charges an episode's spending against its Budget. The core owns one ledger per episode and charges
// every model turn and tool call itself; plugins only read. Thread-safe.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>

#include "tritongym/sdk/types.hpp"

namespace tritongym::budget {

class BudgetLedger {
 public:
  explicit BudgetLedger(Budget limits);

  // Before a model turn: the limit that forbids it ("max_turns (5) reached"), or nullopt.
  std::optional<std::string> refuse_turn() const;
  // Before a tool call: the limit that forbids it, or nullopt.
  std::optional<std::string> refuse_tool_call(const std::string& tool_name) const;

  void charge_turn(const TokenUsage& usage, double cost_usd);
  void charge_tool_call(const std::string& tool_name, double gpu_seconds);

  // The first limit reached (tokens, dollars, GPU or wall time can overshoot by one call), or nullopt.
  std::optional<std::string> exhausted_reason() const;

  const Budget& limits() const { return limits_; }
  BudgetUsage usage() const;  // wall_seconds measured now

 private:
  std::optional<std::string> shared_limit_reached() const;  // callers hold mutex_
  Budget limits_;
  std::chrono::steady_clock::time_point started_;
  mutable std::mutex mutex_;
  BudgetUsage used_;
};

}  // namespace tritongym::budget
