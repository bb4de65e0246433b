#include "budget/budget_ledger.hpp"

#include <gtest/gtest.h>

namespace tritongym::budget {
namespace {

TEST(BudgetLedger, UnlimitedByDefault) {
  BudgetLedger ledger({});
  for (int i = 0; i < 100; ++i) ledger.charge_turn({1000, 0, 0, 1000, 0}, 1.0);
  EXPECT_FALSE(ledger.refuse_turn());
  EXPECT_FALSE(ledger.exhausted_reason());
  EXPECT_EQ(ledger.usage().turns, 100);
  EXPECT_DOUBLE_EQ(ledger.usage().dollars, 100.0);
}

TEST(BudgetLedger, TurnLimit) {
  Budget budget;
  budget.max_turns = 2;
  BudgetLedger ledger(budget);
  ledger.charge_turn({}, 0);
  EXPECT_FALSE(ledger.refuse_turn());
  ledger.charge_turn({}, 0);
  ASSERT_TRUE(ledger.refuse_turn());
  EXPECT_EQ(*ledger.refuse_turn(), "max_turns (2) reached");
  EXPECT_TRUE(ledger.exhausted_reason());
}

TEST(BudgetLedger, PerToolLimitOnlyBlocksThatTool) {
  Budget budget;
  budget.max_calls_per_tool["benchmark"] = 1;
  BudgetLedger ledger(budget);
  ledger.charge_tool_call("benchmark", 0.5);
  EXPECT_TRUE(ledger.refuse_tool_call("benchmark"));
  EXPECT_FALSE(ledger.refuse_tool_call("test"));
  EXPECT_DOUBLE_EQ(ledger.usage().gpu_seconds, 0.5);
  EXPECT_EQ(ledger.usage().calls_per_tool.at("benchmark"), 1);
}

TEST(BudgetLedger, TokenDollarAndGpuLimitsBlockTurnsAndTools) {
  Budget budget;
  budget.max_output_tokens = 100;
  BudgetLedger tokens(budget);
  tokens.charge_turn({0, 0, 0, 150, 0}, 0);  // one call may overshoot
  EXPECT_EQ(*tokens.refuse_turn(), "max_output_tokens (100) reached");
  EXPECT_TRUE(tokens.refuse_tool_call("test"));

  Budget money;
  money.max_dollars = 0.01;
  BudgetLedger dollars(money);
  dollars.charge_turn({}, 0.02);
  EXPECT_TRUE(dollars.refuse_turn());

  Budget gpu;
  gpu.max_gpu_seconds = 1.0;
  BudgetLedger seconds(gpu);
  seconds.charge_tool_call("benchmark", 1.5);
  EXPECT_TRUE(seconds.refuse_tool_call("test"));
}

TEST(BudgetLedger, WallClockLimit) {
  Budget budget;
  budget.max_wall_seconds = 0.0;
  BudgetLedger ledger(budget);
  EXPECT_TRUE(ledger.refuse_turn());
}

}  // namespace
}  // namespace tritongym::budget
