#include "store/run_store.hpp"

#include <gtest/gtest.h>

#include <sqlite3.h>

#include "support/test_support.hpp"

namespace tritongym::store {
namespace {

using results::EpisodeRecord;
using results::RunInfo;
using results::TranscriptEntry;

RunInfo sample_run() {
  RunInfo run;
  run.run_id = "demo-2026-11-30T09:00:00Z";
  run.name = "demo";
  run.description = "a description with 'quotes' and \"double quotes\"";
  run.started_at = "2026-11-30T09:00:00Z";
  run.status = "running";
  run.resolved_config_yaml = "name: demo\nsamples: 2\n";
  run.environment_json = R"({"host":"box","gpus":[]})";
  run.executor = "tritongym.executor.triton-interpreter";
  run.reports_performance = true;
  run.planned_episodes = 12;
  return run;
}

EpisodeRecord sample_episode(const std::string& task = "standard/softmax", int64_t sample = 1) {
  EpisodeRecord episode;
  episode.key = {task, "model-a", "one-shot", sample};
  episode.split = "standard";
  episode.category = "reduction";
  episode.verdict = "flagged";
  episode.message = "timing: faster than the floor";
  episode.flags = {"timing: faster than the speed-of-light floor", "provenance: library kernels only"};
  episode.final_code = std::string("import triton\n# unicode \xc2\xb5s and a NUL-free tail\n");
  episode.final_code_source = "last candidate";
  results::ShapeRecord timed;
  timed.shape = "held-out-0";
  timed.passed = true;
  timed.max_abs_error = 1.5e-7;
  timed.candidate_us = 12.5;
  timed.eager_us = 30.25;
  timed.compile_us = 20.0;
  timed.oracle_us = 11.0;
  timed.triton_us = 14.0;
  timed.speed_of_light_us = 4.5;
  results::ShapeRecord untimed;
  untimed.shape = "visible-0";
  untimed.passed = false;
  untimed.max_abs_error = 0.25;
  episode.shapes = {timed, untimed};
  episode.attempts = 4;
  episode.first_passing_attempt = 3;
  episode.turns = 5;
  episode.tool_calls = 6;
  episode.input_tokens = 12345;
  episode.output_tokens = 678;
  episode.dollars = 0.0421;
  episode.gpu_seconds = 3.25;
  episode.wall_seconds = 61.5;
  episode.started_at = "2026-11-30T09:00:01Z";
  episode.finished_at = "2026-11-30T09:01:02Z";
  return episode;
}

std::vector<TranscriptEntry> sample_transcript() {
  TranscriptEntry assistant;
  assistant.index = 0;
  assistant.kind = "assistant";
  assistant.content = "Let me test this.";
  assistant.input_tokens = 100;
  assistant.output_tokens = 20;
  assistant.dollars = 0.001;
  TranscriptEntry tool;
  tool.index = 1;
  tool.kind = "tool";
  tool.content = "wrong_answer: visible-0 differs";
  tool.tool_name = "test";
  tool.arguments_json = R"({"code":"import triton"})";
  tool.code = "import triton";
  tool.verdict = "wrong_answer";
  tool.ok = false;
  tool.record_json = R"({"verdict":"wrong_answer"})";
  TranscriptEntry refused;
  refused.index = 2;
  refused.kind = "refused";
  refused.content = "budget: max_tool_calls reached";
  refused.tool_name = "benchmark";
  refused.ok = false;
  return {assistant, tool, refused};
}

std::string store_path(const testing::TemporaryDirectory& folder) { return (folder.path() / kStoreFileName).string(); }

TEST(RunStore, RoundTripsTheRunRow) {
  testing::TemporaryDirectory folder;
  auto store = RunStore::open(store_path(folder));
  ASSERT_TRUE(store) << store.status().to_string();
  EXPECT_FALSE(store->load_run());
  ASSERT_TRUE(store->write_run(sample_run()));
  auto loaded = store->load_run();
  ASSERT_TRUE(loaded) << loaded.status().to_string();
  RunInfo expected = sample_run();
  EXPECT_EQ(loaded->run_id, expected.run_id);
  EXPECT_EQ(loaded->name, expected.name);
  EXPECT_EQ(loaded->description, expected.description);
  EXPECT_EQ(loaded->started_at, expected.started_at);
  EXPECT_EQ(loaded->finished_at, "");
  EXPECT_EQ(loaded->status, "running");
  EXPECT_EQ(loaded->resolved_config_yaml, expected.resolved_config_yaml);
  EXPECT_EQ(loaded->environment_json, expected.environment_json);
  EXPECT_EQ(loaded->executor, expected.executor);
  EXPECT_TRUE(loaded->reports_performance);
  EXPECT_EQ(loaded->planned_episodes, 12);
  ASSERT_TRUE(store->set_status("finished", "2026-11-30T10:00:00Z"));
  EXPECT_EQ(store->load_run()->status, "finished");
  EXPECT_EQ(store->load_run()->finished_at, "2026-11-30T10:00:00Z");
}

TEST(RunStore, RoundTripsEveryFieldOfAnEpisodeAndItsTranscript) {
  testing::TemporaryDirectory folder;
  auto store = RunStore::open(store_path(folder));
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->write_run(sample_run()));
  EvaluationRow score;
  score.stage = "final_score";
  score.verdict = "flagged";
  score.message = "m";
  score.stdout_text = "out";
  score.stderr_text = "err";
  score.record_json = R"({"x":1})";
  score.flags = {"f1"};
  score.warnings = {"w1", "w2"};
  score.gpu_seconds = 0.5;
  score.wall_seconds = 2.0;
  ASSERT_TRUE(store->record_episode(sample_episode(), sample_transcript(), {score}));

  auto episodes = store->load_episodes();
  ASSERT_TRUE(episodes) << episodes.status().to_string();
  ASSERT_EQ(episodes->size(), 1u);
  const EpisodeRecord& got = episodes->front();
  EpisodeRecord want = sample_episode();
  EXPECT_EQ(got.key.key(), want.key.key());
  EXPECT_EQ(got.key.sample, 1);
  EXPECT_EQ(got.split, want.split);
  EXPECT_EQ(got.category, want.category);
  EXPECT_EQ(got.verdict, want.verdict);
  EXPECT_EQ(got.message, want.message);
  EXPECT_EQ(got.flags, want.flags);
  EXPECT_EQ(got.warnings, (std::vector<std::string>{"w1", "w2"}));  // the final score's, from its evaluation row
  EXPECT_EQ(got.final_code, want.final_code);
  EXPECT_EQ(got.final_code_source, want.final_code_source);
  ASSERT_EQ(got.shapes.size(), 2u);
  EXPECT_EQ(got.shapes[0].shape, "held-out-0");
  EXPECT_TRUE(got.shapes[0].passed);
  EXPECT_DOUBLE_EQ(got.shapes[0].max_abs_error, 1.5e-7);
  EXPECT_EQ(got.shapes[0].candidate_us, 12.5);
  EXPECT_EQ(got.shapes[0].eager_us, 30.25);
  EXPECT_EQ(got.shapes[0].compile_us, 20.0);
  EXPECT_EQ(got.shapes[0].oracle_us, 11.0);
  EXPECT_EQ(got.shapes[0].triton_us, 14.0);
  EXPECT_EQ(got.shapes[0].speed_of_light_us, 4.5);
  EXPECT_FALSE(got.shapes[1].passed);
  EXPECT_FALSE(got.shapes[1].candidate_us.has_value()) << "an untimed shape stays untimed (NULL), not 0";
  EXPECT_FALSE(got.shapes[1].speed_of_light_us.has_value());
  EXPECT_EQ(got.attempts, 4);
  EXPECT_EQ(got.first_passing_attempt, 3);
  EXPECT_EQ(got.turns, 5);
  EXPECT_EQ(got.tool_calls, 6);
  EXPECT_EQ(got.input_tokens, 12345);
  EXPECT_EQ(got.output_tokens, 678);
  EXPECT_DOUBLE_EQ(got.dollars, 0.0421);
  EXPECT_DOUBLE_EQ(got.gpu_seconds, 3.25);
  EXPECT_DOUBLE_EQ(got.wall_seconds, 61.5);
  EXPECT_EQ(got.started_at, want.started_at);
  EXPECT_EQ(got.finished_at, want.finished_at);

  auto transcript = store->load_transcript(want.key.key());
  ASSERT_TRUE(transcript);
  auto expected = sample_transcript();
  ASSERT_EQ(transcript->size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const auto& a = (*transcript)[i];
    const auto& b = expected[i];
    EXPECT_EQ(a.index, b.index);
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.content, b.content);
    EXPECT_EQ(a.tool_name, b.tool_name);
    EXPECT_EQ(a.arguments_json, b.arguments_json);
    EXPECT_EQ(a.code, b.code);
    EXPECT_EQ(a.verdict, b.verdict);
    EXPECT_EQ(a.ok, b.ok);
    EXPECT_EQ(a.input_tokens, b.input_tokens);
    EXPECT_EQ(a.output_tokens, b.output_tokens);
    EXPECT_DOUBLE_EQ(a.dollars, b.dollars);
    EXPECT_EQ(a.record_json, b.record_json);
  }
  auto evaluations = store->load_evaluations(want.key.key());
  ASSERT_TRUE(evaluations);
  ASSERT_EQ(evaluations->size(), 1u);
  EXPECT_EQ(evaluations->front().stdout_text, "out");
  EXPECT_EQ(evaluations->front().stderr_text, "err");
  EXPECT_EQ(evaluations->front().record_json, R"({"x":1})");
  EXPECT_EQ(evaluations->front().warnings, (std::vector<std::string>{"w1", "w2"}));
  EXPECT_EQ(evaluations->front().flags, std::vector<std::string>{"f1"});
  EXPECT_DOUBLE_EQ(evaluations->front().wall_seconds, 2.0);
}

TEST(RunStore, RefusesAnEpisodeRecordedTwiceAndWritesNothingOfTheSecond) {
  testing::TemporaryDirectory folder;
  auto store = RunStore::open(store_path(folder));
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->record_episode(sample_episode(), sample_transcript()));
  EpisodeRecord again = sample_episode();
  again.verdict = "passed";
  Status twice = store->record_episode(again, {sample_transcript().front()});
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.message().find("already in the store"), std::string::npos) << twice.message();
  EXPECT_EQ(store->load_episodes()->front().verdict, "flagged");
  EXPECT_EQ(store->load_transcript(sample_episode().key.key())->size(), 3u);
}

TEST(RunStore, AFailedEpisodeWriteLeavesNoPartOfIt) {
  testing::TemporaryDirectory folder;
  auto store = RunStore::open(store_path(folder));
  ASSERT_TRUE(store);
  // Two transcript entries with the same position break the primary key after the episode row and the
  // shapes were written: the transaction must take all of it back.
  auto transcript = sample_transcript();
  transcript[2].index = 1;
  EpisodeRecord episode = sample_episode("standard/layernorm", 0);
  Status failed = store->record_episode(episode, transcript);
  ASSERT_FALSE(failed);
  EXPECT_TRUE(store->finished_keys()->empty());
  EXPECT_TRUE(store->load_transcript(episode.key.key())->empty());
  // The same episode, well formed, then goes in: nothing half-written blocks it.
  ASSERT_TRUE(store->record_episode(episode, sample_transcript()));
  EXPECT_EQ(store->finished_keys()->count(episode.key.key()), 1u);
  // The shapes of the failed attempt were rolled back too (else there would be 4).
  EXPECT_EQ(store->load_episodes()->front().shapes.size(), 2u);
}

TEST(RunStore, KeepsEverythingAcrossReopeningAndUsesWal) {
  testing::TemporaryDirectory folder;
  {
    auto store = RunStore::open(store_path(folder));
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->write_run(sample_run()));
    ASSERT_TRUE(store->set_meta("shard", "1/3"));
    ASSERT_TRUE(store->write_task("standard/softmax", R"({"id":"standard/softmax"})"));
    ASSERT_TRUE(store->record_episode(sample_episode("standard/softmax", 0), sample_transcript()));
    ASSERT_TRUE(store->record_episode(sample_episode("standard/add", 2), {}));
  }
  auto reopened = open_run_dir(folder.path().string());
  ASSERT_TRUE(reopened) << reopened.status().to_string();
  auto keys = reopened->finished_keys();
  ASSERT_TRUE(keys);
  EXPECT_EQ(*keys, (std::set<std::string>{"standard/add|model-a|one-shot|2", "standard/softmax|model-a|one-shot|0"}));
  EXPECT_EQ(reopened->meta("shard"), "1/3");
  EXPECT_EQ(reopened->task("standard/softmax"), R"({"id":"standard/softmax"})");
  EXPECT_EQ(reopened->load_run()->run_id, sample_run().run_id);
  auto episodes = reopened->load_episodes();
  ASSERT_EQ(episodes->size(), 2u);
  EXPECT_EQ(episodes->front().key.task_id, "standard/add") << "sorted by task, model, workflow, sample";

  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(store_path(folder).c_str(), &raw), SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw, "PRAGMA journal_mode", -1, &statement, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(statement), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(statement, 0)), "wal");
  sqlite3_finalize(statement);
  // The convenience views over the transcript answer.
  ASSERT_EQ(sqlite3_prepare_v2(raw, "SELECT COUNT(*) FROM tool_calls", -1, &statement, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(statement), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(statement, 0), 2);  // the tool entry and the refused one
  sqlite3_finalize(statement);
  sqlite3_close(raw);
}

TEST(RunStore, SaysWhenAFolderIsNotARun) {
  testing::TemporaryDirectory folder;
  auto missing = open_run_dir((folder.path() / "nope").string());
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.status().message().find("is not a folder"), std::string::npos);
  auto empty = open_run_dir(folder.path().string());
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.status().message().find("is not a run folder"), std::string::npos) << empty.status().message();
  EXPECT_FALSE(std::filesystem::exists(folder.path() / kStoreFileName)) << "looking must not create a store";
}

TEST(RunStore, RefusesAStoreOfAnotherSchemaVersion) {
  testing::TemporaryDirectory folder;
  {
    auto store = RunStore::open(store_path(folder));
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->set_meta("schema_version", "999"));
  }
  auto reopened = RunStore::open(store_path(folder));
  ASSERT_FALSE(reopened);
  EXPECT_NE(reopened.status().message().find("schema version 999"), std::string::npos) << reopened.status().message();
}

// A store of schema version 1 (no shapes.triton_us) gains the column when opened: its episodes read back with no
// plain-Triton time, and new ones keep theirs.
TEST(RunStore, AVersionOneStoreGainsThePlainTritonColumn) {
  testing::TemporaryDirectory folder;
  {
    auto store = RunStore::open(store_path(folder));
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->record_episode(sample_episode(), sample_transcript()));
  }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(store_path(folder).c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "ALTER TABLE shapes DROP COLUMN triton_us; "
                              "UPDATE meta SET value = '1' WHERE key = 'schema_version'", nullptr, nullptr, nullptr),
            SQLITE_OK) << sqlite3_errmsg(raw);
  sqlite3_close(raw);
  auto reopened = RunStore::open(store_path(folder));
  ASSERT_TRUE(reopened) << reopened.status().message();
  auto episodes = reopened->load_episodes();
  ASSERT_TRUE(episodes) << episodes.status().message();
  ASSERT_EQ(episodes->size(), 1u);
  EXPECT_EQ(episodes->front().shapes[0].oracle_us, 11.0);
  EXPECT_FALSE(episodes->front().shapes[0].triton_us.has_value());
  results::EpisodeRecord later = sample_episode();
  later.key.sample = 7;
  ASSERT_TRUE(reopened->record_episode(later, sample_transcript()));
  episodes = reopened->load_episodes();
  ASSERT_EQ(episodes->size(), 2u);
  EXPECT_EQ(episodes->back().shapes[0].triton_us, 14.0);
}

TEST(RunStore, RecordsFromManyThreadsAtOnce) {
  testing::TemporaryDirectory folder;
  auto store = RunStore::open(store_path(folder));
  ASSERT_TRUE(store);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i)
        EXPECT_TRUE(store->record_episode(sample_episode("task-" + std::to_string(t), i), sample_transcript()));
    });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(store->finished_keys()->size(), 40u);
}

}  // namespace
}  // namespace tritongym::store
