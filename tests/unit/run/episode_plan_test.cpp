#include "run/episode_plan.hpp"

#include <gtest/gtest.h>

#include <set>

#include "run/episode_conversion.hpp"

namespace tritongym::run {
namespace {

config::RunConfig two_by_two(int64_t samples) {
  config::RunConfig run;
  run.models = {{"m1", {}}, {"m2", {}}};
  run.workflows = {{"w1", "", {}}};
  run.samples = samples;
  return run;
}

std::vector<TaskSpec> tasks(std::initializer_list<const char*> ids) {
  std::vector<TaskSpec> specs;
  for (const char* id : ids) {
    specs.emplace_back();
    specs.back().id = id;
  }
  return specs;
}

TEST(EpisodePlan, IsTheProductInAFixedOrder) {
  auto planned = plan_episodes(tasks({"a", "b"}), two_by_two(2));
  ASSERT_TRUE(planned);
  std::vector<std::string> keys;
  for (const auto& episode : *planned) keys.push_back(episode.key.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"a|m1|w1|0", "a|m1|w1|1", "a|m2|w1|0", "a|m2|w1|1", "b|m1|w1|0",
                                            "b|m1|w1|1", "b|m2|w1|0", "b|m2|w1|1"}));
  EXPECT_EQ((*planned)[5].task_index, 1u);
  EXPECT_EQ((*planned)[6].model_index, 1u);
}

TEST(EpisodePlan, ShardsPartitionTheRun) {
  auto whole = plan_episodes(tasks({"a", "b", "c"}), two_by_two(3));
  ASSERT_TRUE(whole);
  std::multiset<std::string> union_of_shards;
  for (int64_t index = 0; index < 4; ++index) {
    auto shard = plan_episodes(tasks({"a", "b", "c"}), two_by_two(3), Shard{index, 4});
    ASSERT_TRUE(shard);
    for (const auto& episode : *shard) union_of_shards.insert(episode.key.key());
  }
  std::multiset<std::string> all;
  for (const auto& episode : *whole) all.insert(episode.key.key());
  EXPECT_EQ(union_of_shards, all);
}

TEST(EpisodePlan, RefusesATaskSelectedTwice) {
  auto planned = plan_episodes(tasks({"a", "a"}), two_by_two(1));
  ASSERT_FALSE(planned);
  EXPECT_NE(planned.status().message().find("more than one suite entry"), std::string::npos);
}

TEST(EpisodePlan, ParsesShards) {
  EXPECT_EQ(parse_shard("2/5")->index, 2);
  EXPECT_EQ(parse_shard("2/5")->count, 5);
  EXPECT_FALSE(parse_shard("5/5"));
  EXPECT_FALSE(parse_shard("1/0"));
  EXPECT_FALSE(parse_shard("a/2"));
  EXPECT_FALSE(parse_shard("1"));
  EXPECT_NE(parse_shard("3/2").status().message().find("0..1"), std::string::npos);
}

TEST(EpisodePlan, SelectsTasksByIdSplitAndLimit) {
  std::vector<TaskSpec> all = tasks({"s/a", "s/b", "s/c"});
  all[1].split = "ood";
  config::SuiteChoice choice;
  choice.splits = {""};
  choice.limit = 1;
  auto selected = select_tasks(choice, 0, all);
  ASSERT_TRUE(selected);
  ASSERT_EQ(selected->size(), 1u);
  EXPECT_EQ(selected->front().id, "s/a");
  config::SuiteChoice typo;
  typo.task_ids = {"s/bb"};
  auto missing = select_tasks(typo, 2, all);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.status().message().find("suites[2]: no task 's/bb'"), std::string::npos);
}

// ------------------------------------------------------------------ EpisodeResult -> records

episode::EpisodeEvent tool_event(const std::string& name, bool ok, const std::string& verdict) {
  episode::EpisodeEvent event;
  event.kind = episode::EpisodeEvent::Kind::tool_call;
  event.call = {"c", name, R"j({"code":"print(1)"})j"};
  event.result.ok = ok;
  event.result.text = verdict;
  event.result.record_json = "{\"verdict\":\"" + verdict + "\"}";
  return event;
}

TEST(EpisodeConversion, CountsAttemptsAndTheFirstPassingTestOrSubmit) {
  episode::EpisodeResult result;
  episode::EpisodeEvent turn;
  turn.response.message.content = "trying";
  turn.response.usage.input_tokens = 10;
  turn.response.cost_usd = 0.5;
  result.transcript = {turn, tool_event("docs", true, ""), tool_event("compile", true, "passed"),
                       tool_event("test", false, "wrong_answer"), tool_event("compile", true, "passed"),
                       tool_event("test", true, "passed"), tool_event("submit", true, "passed")};
  result.final_code = "print(1)";
  result.final_code_source = "workflow";
  EvaluationResult score;
  score.verdict = Verdict::flagged;
  score.flags = {"timing: too fast"};
  ShapeOutcome shape;
  shape.shape = "held-out-0";
  shape.passed = true;
  shape.timing = ShapeTiming{};
  shape.timing->median_us = 7.0;
  shape.timing->eager_us = 14.0;
  shape.timing->speed_of_light_us = 2.0;
  score.shapes = {shape};
  score.gpu_seconds = 1.0;
  result.score = score;
  result.usage.gpu_seconds = 2.0;
  TaskSpec task;
  task.id = "t";
  task.split = "ood";
  task.category = "reduction";
  ConvertedEpisode converted = convert_episode({"t", "m", "w", 0}, task, result, "s", "f", 3.0);
  EXPECT_EQ(converted.record.attempts, 5) << "compile, test, compile, test, submit; docs is not an attempt";
  EXPECT_EQ(converted.record.first_passing_attempt, 4) << "compile passing does not count; the second test does";
  EXPECT_EQ(converted.record.verdict, "flagged");
  EXPECT_EQ(converted.record.flags, std::vector<std::string>{"timing: too fast"});
  EXPECT_EQ(converted.record.split, "ood");
  ASSERT_EQ(converted.record.shapes.size(), 1u);
  EXPECT_EQ(converted.record.shapes[0].candidate_us, 7.0);
  EXPECT_EQ(converted.record.shapes[0].eager_us, 14.0);
  EXPECT_FALSE(converted.record.shapes[0].oracle_us.has_value());
  EXPECT_DOUBLE_EQ(converted.record.gpu_seconds, 3.0) << "tool calls plus the final score";
  ASSERT_EQ(converted.transcript.size(), 7u);
  EXPECT_EQ(converted.transcript[0].kind, "assistant");
  EXPECT_EQ(converted.transcript[0].input_tokens, 10);
  EXPECT_EQ(converted.transcript[3].verdict, "wrong_answer");
  EXPECT_EQ(converted.transcript[3].code, "print(1)");
  EXPECT_FALSE(converted.transcript[3].ok);
  ASSERT_EQ(converted.evaluations.size(), 1u);
  EXPECT_EQ(converted.evaluations[0].stage, "final_score");
}

TEST(EpisodeConversion, NamesAnEpisodeWithoutCodeOrWithoutAScore) {
  episode::EpisodeResult nothing;
  nothing.final_code_source = "none";
  nothing.workflow_status = Status(StatusCode::deadline_exceeded, "no answer in 600 s");
  auto no_code = convert_episode({"t", "m", "w", 0}, TaskSpec{}, nothing, "", "", 0);
  EXPECT_EQ(no_code.record.verdict, "no_code");
  EXPECT_NE(no_code.record.message.find("no answer in 600 s"), std::string::npos);
  EXPECT_TRUE(no_code.evaluations.empty());
  episode::EpisodeResult unscored;
  unscored.final_code = "x";
  unscored.score_status = Status(StatusCode::unavailable, "the worker could not start");
  auto harness = convert_episode({"t", "m", "w", 0}, TaskSpec{}, unscored, "", "", 0);
  EXPECT_EQ(harness.record.verdict, "harness_error");
  EXPECT_NE(harness.record.message.find("could not start"), std::string::npos);
}

}  // namespace
}  // namespace tritongym::run
