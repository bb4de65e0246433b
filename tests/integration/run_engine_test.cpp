// The run engine end to end through the real `tritongym` binary: a scripted model through the one-shot
// workflow on the triton-interpreter executor. Small tasks, few samples: the whole file runs in about
// a minute or two on two cores.
#include <gtest/gtest.h>

#include <sqlite3.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "store/run_store.hpp"
#include "support/test_support.hpp"

namespace tritongym::testing {
namespace {

namespace fs = std::filesystem;

// The scripted model: the oracle for vector-add (passes), a kernel with the wrong entry point for
// leaky-relu-scale (fails), and no code at all for gelu.

std::string write_script(const TemporaryDirectory& folder) {
  std::string tasks = source_dir() + "/tasks/standard/";
  return folder.write("script.yaml",
                      "per_task:\n"
                      "  standard/vector-add:\n"
                      "    - content: \"The add:\"\n"
                      "      content_file: " + tasks + "vector-add/oracle.py\n"
                      "  standard/leaky-relu-scale:\n"
                      "    - content: \"Here:\\n```python\\ndef not_the_entry(x):\\n    return x\\n```\\n\"\n"
                      "  standard/gelu:\n"
                      "    - content: \"I cannot write this kernel.\"\n");
}

std::string write_run_file(const TemporaryDirectory& folder, const std::string& tasks, int samples, int concurrency) {
  std::string script = write_script(folder);
  return folder.write("run.yaml",
                      "name: engine-test\n"
                      "suites:\n"
                      "  - plugin: tritongym.suite.directory\n"
                      "    config: {root: tasks, suites: [standard]}\n"
                      "    tasks: " + tasks + "\n"
                      "models:\n"
                      "  - name: scripted\n"
                      "    backend: tritongym.backend.scripted\n"
                      "    config: {script: " + script + ", model_name: scripted}\n"
                      "workflows:\n"
                      "  - workflows/one-shot.yaml\n"
                      "executor: {plugin: tritongym.executor.triton-interpreter}\n"
                      "budget: {max_turns: 4, max_wall_seconds: 300}\n"
                      "samples: " + std::to_string(samples) + "\n"
                      "max_concurrent_episodes: " + std::to_string(concurrency) + "\n"
                      "output: {dir: " + (folder.path() / "run").string() + "}\n");
}

const char* kThreeTasks = "[standard/vector-add, standard/leaky-relu-scale, standard/gelu]";

// What an uninterrupted run gives: every key of the plan with its task's verdict.
std::map<std::string, std::string> expected_verdicts(int samples) {
  std::map<std::string, std::string> expected;
  for (int sample = 0; sample < samples; ++sample) {
    std::string tail = "|scripted|one-shot|" + std::to_string(sample);
    expected["standard/vector-add" + tail] = "passed";
    expected["standard/leaky-relu-scale" + tail] = "FAILED";  // any failing verdict; see verdicts_of
    expected["standard/gelu" + tail] = "no_code";
  }
  return expected;
}

// key -> verdict from a store; failing verdicts other than no_code read "FAILED" (the exact failure of
// a candidate without the entry point is the executor's business, not the engine's).
std::map<std::string, std::string> verdicts_of(const std::string& run_dir) {
  auto store = store::open_run_dir(run_dir);
  EXPECT_TRUE(store) << store.status().to_string();
  std::map<std::string, std::string> verdicts;
  if (!store) return verdicts;
  auto episodes = store->load_episodes();
  EXPECT_TRUE(episodes);
  for (const auto& episode : *episodes) {
    std::string verdict = episode.verdict;
    if (verdict != "passed" && verdict != "no_code") verdict = "FAILED";
    EXPECT_TRUE(verdicts.emplace(episode.key.key(), verdict).second) << "duplicate " << episode.key.key();
  }
  return verdicts;
}

// `polling`: the store may not have its tables yet (the run is starting); -1 then, not a failure.
int64_t count_rows(const std::string& store_path, const std::string& sql, bool polling = false) {
  sqlite3* database = nullptr;
  EXPECT_EQ(sqlite3_open_v2(store_path.c_str(), &database, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  int prepared = sqlite3_prepare_v2(database, sql.c_str(), -1, &statement, nullptr);
  if (!polling) {
    EXPECT_EQ(prepared, SQLITE_OK) << sqlite3_errmsg(database);
  }
  int64_t value = -1;
  if (sqlite3_step(statement) == SQLITE_ROW) value = sqlite3_column_int64(statement, 0);
  sqlite3_finalize(statement);
  sqlite3_close(database);
  return value;
}

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

TEST(RunEngine, ARunRecordsEveryEpisodeWithItsTranscript) {
  TemporaryDirectory folder;
  std::string run_file = write_run_file(folder, kThreeTasks, 2, 2);
  auto result = run_cli({"run", run_file}, "", 280);
  ASSERT_EQ(result.exit_code, 0) << result.stdout_text << result.stderr_text;
  EXPECT_NE(result.stdout_text.find("6 of 6 episodes recorded, 2 passed"), std::string::npos) << result.stdout_text;
  std::string run_dir = (folder.path() / "run").string();
  EXPECT_NE(result.stdout_text.find("run folder: " + run_dir), std::string::npos) << result.stdout_text;
  EXPECT_EQ(verdicts_of(run_dir), expected_verdicts(2));

  auto store = store::open_run_dir(run_dir);
  ASSERT_TRUE(store);
  auto run = store->load_run();
  ASSERT_TRUE(run);
  EXPECT_EQ(run->status, "finished");
  EXPECT_FALSE(run->finished_at.empty());
  EXPECT_EQ(run->planned_episodes, 6);
  EXPECT_EQ(run->executor, "tritongym.executor.triton-interpreter");
  EXPECT_NE(run->environment_json.find("\"python\""), std::string::npos);
  EXPECT_NE(run->resolved_config_yaml.find("engine-test"), std::string::npos);
  EXPECT_TRUE(store->task("standard/vector-add").has_value());
  auto episodes = store->load_episodes();
  ASSERT_TRUE(episodes);
  for (const auto& episode : *episodes) {
    auto transcript = store->load_transcript(episode.key.key());
    ASSERT_TRUE(transcript);
    ASSERT_FALSE(transcript->empty()) << episode.key.key();
    // The prompts the workflow sent, then the model's answer.
    ASSERT_GE(transcript->size(), 3u) << episode.key.key();
    EXPECT_EQ((*transcript)[0].kind, "system");
    EXPECT_EQ((*transcript)[1].kind, "user");
    EXPECT_NE((*transcript)[1].content.find(episode.key.task_id.substr(episode.key.task_id.find('/') + 1)),
              std::string::npos) << (*transcript)[1].content.substr(0, 300);
    EXPECT_EQ((*transcript)[2].kind, "assistant");
    EXPECT_EQ(episode.turns, 1);
    if (episode.passed()) {
      EXPECT_EQ(episode.final_code_source, "workflow");
      EXPECT_FALSE(episode.shapes.empty());
      for (const auto& shape : episode.shapes) EXPECT_TRUE(shape.passed) << shape.shape;
      EXPECT_EQ(store->load_evaluations(episode.key.key())->size(), 1u);
    }
    if (episode.verdict == "no_code") {
      EXPECT_TRUE(store->load_evaluations(episode.key.key())->empty());
    }
  }
  // One model call per episode, each recorded once.
  EXPECT_EQ(lines_of(run_dir + "/replay/scripted.jsonl").size(), 6u);
  // A second run into the same folder is refused: it would mix two runs.
  auto again = run_cli({"run", run_file}, "", 120);
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.stderr_text.find("already holds a run"), std::string::npos) << again.stderr_text;
}

// Starts `tritongym run FILE` (stdout and stderr into the folder) and returns once its store holds
// `episodes` episodes; an error when it does not within 200 s.
Result<process::ChildProcess> start_run_until_recorded(const TemporaryDirectory& folder, const std::string& run_file,
                                                       const std::string& store_path, int64_t episodes) {
  process::ChildOptions options;
  options.argv = {cli_path(), "run", run_file};
  options.working_directory = source_dir();
  options.stdout_path = (folder.path() / "first.stdout").string();
  options.stderr_path = (folder.path() / "first.stderr").string();
  auto child = process::ChildProcess::start(options);
  if (!child) return child.status();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(200);
  while (std::chrono::steady_clock::now() < deadline && child->running()) {
    if (fs::exists(store_path) && count_rows(store_path, "SELECT COUNT(*) FROM episodes", true) >= episodes)
      return child;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return Status(StatusCode::deadline_exceeded, "the run did not record " + std::to_string(episodes) + " episode(s) in time");
}

TEST(RunEngine, AKilledRunResumesToTheSameEpisodesWithoutPayingAgain) {
  TemporaryDirectory folder;
  std::string run_file = write_run_file(folder, kThreeTasks, 3, 1);
  std::string run_dir = (folder.path() / "run").string();
  std::string store_path = run_dir + "/run.sqlite";
  auto child = start_run_until_recorded(folder, run_file, store_path, 3);
  ASSERT_TRUE(child) << child.status().to_string();
  ::kill(child->pid(), SIGKILL);
  while (child->running()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_NE(child->describe_end().find("SIGKILL"), std::string::npos) << child->describe_end();

  // Killed mid-run: whatever is in the store is whole, and the run is not finished.
  int64_t after_kill = count_rows(store_path, "SELECT COUNT(*) FROM episodes");
  ASSERT_GE(after_kill, 3);
  ASSERT_LT(after_kill, 9) << "the run finished before it could be killed; the test proves nothing";
  EXPECT_EQ(count_rows(store_path, "SELECT COUNT(*) FROM episodes e WHERE NOT EXISTS "
                                   "(SELECT 1 FROM transcript t WHERE t.episode_key = e.episode_key)"),
            0)
      << "an episode without its transcript: the per-episode transaction is broken";
  auto replay_before = lines_of(run_dir + "/replay/scripted.jsonl");

  auto resumed = run_cli({"resume", run_dir}, "", 280);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.stdout_text << resumed.stderr_text;
  EXPECT_NE(resumed.stdout_text.find("9 of 9 episodes recorded, 3 passed"), std::string::npos) << resumed.stdout_text;
  EXPECT_NE(resumed.stdout_text.find("(" + std::to_string(after_kill) + " were already recorded)"), std::string::npos)
      << resumed.stdout_text;
  EXPECT_EQ(verdicts_of(run_dir), expected_verdicts(3));
  EXPECT_EQ(count_rows(store_path, "SELECT COUNT(*) FROM episodes"), 9);
  EXPECT_EQ(store::open_run_dir(run_dir)->load_run()->status, "finished");

  // The replay record: every call of the killed run is still its first line, and no request was sent twice.
  auto replay_after = lines_of(run_dir + "/replay/scripted.jsonl");
  EXPECT_EQ(replay_after.size(), 9u);
  ASSERT_GE(replay_after.size(), replay_before.size());
  for (size_t i = 0; i < replay_before.size(); ++i) EXPECT_EQ(replay_after[i], replay_before[i]);
  std::set<std::string> unique(replay_after.begin(), replay_after.end());
  EXPECT_EQ(unique.size(), replay_after.size()) << "a model call was made twice";
  // The resume sent only the calls the killed run had not made.
  EXPECT_NE(resumed.stderr_text.find(std::to_string(9 - replay_before.size()) + " sent to the backends"),
            std::string::npos)
      << resumed.stderr_text;

  // Resuming a finished run runs nothing.
  auto nothing = run_cli({"resume", run_dir}, "", 120);
  EXPECT_EQ(nothing.exit_code, 0) << nothing.stderr_text;
  EXPECT_NE(nothing.stdout_text.find("(9 were already recorded)"), std::string::npos) << nothing.stdout_text;
}

TEST(RunEngine, AResumeSaysWhichTasksChangedSinceTheirEpisodesWereRecorded) {
  // The tiny fixture suite, copied so that a task can change between the run and its resume.
  TemporaryDirectory folder;
  fs::create_directories(folder.path() / "suites" / "tiny");
  fs::copy(source_dir() + "/tests/fixtures/suites/tiny/add-one", folder.path() / "suites" / "tiny" / "add-one",
           fs::copy_options::recursive);
  std::string run_file = folder.write("run.yaml",
                                      "name: digest-test\n"
                                      "suites:\n"
                                      "  - plugin: tritongym.suite.directory\n"
                                      "    config: {root: " + (folder.path() / "suites").string() + ", suites: [tiny]}\n"
                                      "models:\n"
                                      "  - name: oracle\n"
                                      "    backend: tritongym.backend.oracle\n"
                                      "workflows:\n"
                                      "  - workflows/one-shot.yaml\n"
                                      "executor: {plugin: tritongym.executor.triton-interpreter}\n"
                                      "budget: {max_turns: 2, max_wall_seconds: 300}\n"
                                      "output: {dir: " + (folder.path() / "run").string() + "}\n");
  std::string run_dir = (folder.path() / "run").string();
  auto first = run_cli({"run", run_file}, "", 280);
  ASSERT_EQ(first.exit_code, 0) << first.stdout_text << first.stderr_text;

  auto unchanged = run_cli({"resume", run_dir}, "", 120);
  ASSERT_EQ(unchanged.exit_code, 0) << unchanged.stderr_text;
  EXPECT_EQ(unchanged.stderr_text.find("changed since"), std::string::npos) << unchanged.stderr_text;

  std::ofstream(folder.path() / "suites" / "tiny" / "add-one" / "reference.py", std::ios::app) << "# edited\n";
  auto changed = run_cli({"resume", run_dir}, "", 120);
  ASSERT_EQ(changed.exit_code, 0) << changed.stderr_text;
  EXPECT_NE(changed.stderr_text.find("task tiny/add-one changed since 1 of its episodes were recorded"),
            std::string::npos)
      << changed.stderr_text;
  EXPECT_NE(changed.stderr_text.find("DELETE FROM episodes WHERE task_id='tiny/add-one'"), std::string::npos)
      << changed.stderr_text;
}

TEST(RunEngine, CtrlCFinishesRunningEpisodesMarksTheRunInterruptedAndResumeCompletesIt) {
  TemporaryDirectory folder;
  std::string run_file = write_run_file(folder, kThreeTasks, 3, 1);
  std::string run_dir = (folder.path() / "run").string();
  std::string store_path = run_dir + "/run.sqlite";
  auto child = start_run_until_recorded(folder, run_file, store_path, 1);
  ASSERT_TRUE(child) << child.status().to_string();
  ::kill(child->pid(), SIGINT);  // what Ctrl-C sends
  while (child->running()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(child->describe_end(), "exit code 1");

  int64_t after_interrupt = count_rows(store_path, "SELECT COUNT(*) FROM episodes");
  ASSERT_LT(after_interrupt, 9) << "the run finished before it could be interrupted; the test proves nothing";
  EXPECT_EQ(store::open_run_dir(run_dir)->load_run()->status, "interrupted");
  std::ifstream printed(folder.path() / "first.stdout");
  std::string first_stdout((std::istreambuf_iterator<char>(printed)), {});
  EXPECT_NE(first_stdout.find("continue it with: tritongym resume"), std::string::npos) << first_stdout;

  auto resumed = run_cli({"resume", run_dir}, "", 280);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.stdout_text << resumed.stderr_text;
  EXPECT_EQ(verdicts_of(run_dir), expected_verdicts(3));
  EXPECT_EQ(count_rows(store_path, "SELECT COUNT(*) FROM episodes"), 9);
  EXPECT_EQ(store::open_run_dir(run_dir)->load_run()->status, "finished");
}

TEST(RunEngine, ResumeRefusesAFolderThatIsNotARun) {
  TemporaryDirectory folder;
  auto result = run_cli({"resume", folder.path().string()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.stderr_text.find("is not a run folder"), std::string::npos) << result.stderr_text;
}

TEST(RunEngine, ShardsMergeIntoTheUnshardedRun) {
  TemporaryDirectory folder;
  std::string run_file = write_run_file(folder, kThreeTasks, 2, 2);
  std::string base = (folder.path() / "run").string();
  for (const char* shard : {"0/2", "1/2"}) {
    auto result = run_cli({"run", run_file, "--shard", shard}, "", 280);
    ASSERT_EQ(result.exit_code, 0) << shard << ": " << result.stdout_text << result.stderr_text;
  }
  EXPECT_EQ(verdicts_of(base + "/shard-0-of-2").size(), 3u);
  EXPECT_EQ(verdicts_of(base + "/shard-1-of-2").size(), 3u);
  std::string merged = (folder.path() / "merged").string();
  auto merge = run_cli({"merge", base + "/shard-0-of-2", base + "/shard-1-of-2", "--into", merged});
  ASSERT_EQ(merge.exit_code, 0) << merge.stderr_text;
  EXPECT_NE(merge.stdout_text.find("merged 2 stores: 6 episodes; finished"), std::string::npos) << merge.stdout_text;
  EXPECT_EQ(verdicts_of(merged), expected_verdicts(2));
  auto merged_store = store::open_run_dir(merged);
  ASSERT_TRUE(merged_store);
  EXPECT_EQ(merged_store->load_run()->planned_episodes, 6);
  EXPECT_EQ(merged_store->meta("shard"), "merged");
  auto merged_run = merged_store->load_run();
  EXPECT_EQ(merged_run->run_id.rfind("merged-", 0), 0u) << merged_run->run_id;  // after its folder, not a shard
  auto merged_episodes = merged_store->load_episodes();
  ASSERT_TRUE(merged_episodes);
  for (const auto& episode : *merged_episodes)
    EXPECT_FALSE(merged_store->load_transcript(episode.key.key())->empty()) << episode.key.key();

  // Only one shard: merged, but not finished, and it says which is missing.
  auto partial = run_cli({"merge", base + "/shard-1-of-2", "--into", (folder.path() / "partial").string()});
  ASSERT_EQ(partial.exit_code, 0) << partial.stderr_text;
  EXPECT_NE(partial.stderr_text.find("shard 0/2 is missing"), std::string::npos) << partial.stderr_text;
  EXPECT_NE(partial.stdout_text.find("interrupted"), std::string::npos);

  // A shard whose copy of an episode disagrees is refused, and nothing is written.
  fs::create_directories(folder.path() / "tampered");
  fs::copy_file(base + "/shard-0-of-2/run.sqlite", folder.path() / "tampered/run.sqlite");
  EXPECT_EQ(count_rows((folder.path() / "tampered/run.sqlite").string(), "SELECT COUNT(*) FROM episodes"), 3);
  {
    sqlite3* database = nullptr;
    ASSERT_EQ(sqlite3_open((folder.path() / "tampered/run.sqlite").string().c_str(), &database), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(database, "UPDATE episodes SET verdict = 'wrong_answer' WHERE verdict = 'passed'", nullptr,
                           nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(database);
  }
  std::string refused_into = (folder.path() / "refused").string();
  auto disagree = run_cli({"merge", base + "/shard-0-of-2", (folder.path() / "tampered").string(), "--into", refused_into});
  EXPECT_EQ(disagree.exit_code, 1);
  EXPECT_NE(disagree.stderr_text.find("with different results"), std::string::npos) << disagree.stderr_text;
  EXPECT_FALSE(fs::exists(refused_into + "/run.sqlite"));

  // A store of another run (another resolved config) is refused with the first difference.
  fs::create_directories(folder.path() / "other");
  {
    auto other = store::RunStore::open((folder.path() / "other/run.sqlite").string());
    ASSERT_TRUE(other);
    auto info = store::open_run_dir(base + "/shard-1-of-2")->load_run().value();
    info.resolved_config_yaml += "seed: 7\n";
    ASSERT_TRUE(other->write_run(info));
  }
  auto unrelated = run_cli({"merge", base + "/shard-0-of-2", (folder.path() / "other").string(), "--into",
                            (folder.path() / "unrelated").string()});
  EXPECT_EQ(unrelated.exit_code, 1);
  EXPECT_NE(unrelated.stderr_text.find("are not shards of the same run"), std::string::npos) << unrelated.stderr_text;
  EXPECT_NE(unrelated.stderr_text.find("seed: 7"), std::string::npos) << unrelated.stderr_text;

  // Shards written to different folders (each GPU or machine its own) are still one run.
  fs::create_directories(folder.path() / "moved");
  fs::copy_file(base + "/shard-1-of-2/run.sqlite", folder.path() / "moved/run.sqlite");
  {
    auto moved = store::RunStore::open((folder.path() / "moved/run.sqlite").string());
    ASSERT_TRUE(moved);
    auto info = moved->load_run().value();
    auto output = info.resolved_config_yaml.find("output:");
    ASSERT_NE(output, std::string::npos) << info.resolved_config_yaml;
    auto dir = info.resolved_config_yaml.find("dir: ", output);
    ASSERT_NE(dir, std::string::npos) << info.resolved_config_yaml;
    info.resolved_config_yaml.insert(dir + 5, "/elsewhere");
    ASSERT_TRUE(moved->write_run(info));
  }
  auto relocated = run_cli({"merge", base + "/shard-0-of-2", (folder.path() / "moved").string(), "--into",
                            (folder.path() / "relocated").string()});
  EXPECT_EQ(relocated.exit_code, 0) << relocated.stderr_text;
  EXPECT_EQ(count_rows((folder.path() / "relocated/run.sqlite").string(), "SELECT COUNT(*) FROM episodes"), 6);
}

TEST(RunEngine, RunsOfPartsOfATaskSetMergeIntoTheRunOfAllTheirTasks) {
  TemporaryDirectory folder;
  std::string run_file = write_run_file(folder, kThreeTasks, 2, 2);
  std::string base = (folder.path() / "parts").string();
  // One part whole, the other split into two shards of its own.
  auto first = run_cli({"run", run_file, "suites.0.tasks=[standard/vector-add, standard/gelu]", "output.dir=" + base + "/a"},
                       "", 280);
  ASSERT_EQ(first.exit_code, 0) << first.stdout_text << first.stderr_text;
  for (const char* shard : {"0/2", "1/2"}) {
    auto second = run_cli({"run", run_file, "suites.0.tasks=[standard/leaky-relu-scale]", "output.dir=" + base + "/b",
                           "--shard", shard},
                          "", 280);
    ASSERT_EQ(second.exit_code, 0) << shard << ": " << second.stdout_text << second.stderr_text;
  }
  std::string merged = (folder.path() / "merged").string();
  auto merge = run_cli({"merge", base + "/a", base + "/b/shard-0-of-2", base + "/b/shard-1-of-2", "--into", merged});
  ASSERT_EQ(merge.exit_code, 0) << merge.stderr_text;
  EXPECT_NE(merge.stdout_text.find("merged 3 stores (2 parts of one task set): 6 episodes; finished"), std::string::npos)
      << merge.stdout_text << merge.stderr_text;
  EXPECT_EQ(verdicts_of(merged), expected_verdicts(2));
  auto merged_run = store::open_run_dir(merged)->load_run();
  ASSERT_TRUE(merged_run);
  EXPECT_EQ(merged_run->planned_episodes, 6);
  // The merged run is the one of all their tasks: its config lists them, and the report reads it as one run.
  const std::string& config = merged_run->resolved_config_yaml;
  for (const char* task : {"standard/gelu", "standard/leaky-relu-scale", "standard/vector-add"})
    EXPECT_NE(config.find(task), std::string::npos) << task << " is not in\n" << config;
  auto report = run_cli({"report", merged});
  EXPECT_EQ(report.exit_code, 0) << report.stderr_text;
  EXPECT_NE(report.stdout_text.find("6 of 6 planned episodes"), std::string::npos) << report.stdout_text;

  // A part whose shard is missing: merged, not finished, and it says so.
  auto partial = run_cli({"merge", base + "/a", base + "/b/shard-0-of-2", "--into", (folder.path() / "partial").string()});
  ASSERT_EQ(partial.exit_code, 0) << partial.stderr_text;
  EXPECT_NE(partial.stderr_text.find("shard 1/2 is missing from one of the parts"), std::string::npos)
      << partial.stderr_text;
  EXPECT_NE(partial.stdout_text.find("interrupted"), std::string::npos) << partial.stdout_text;

  // A part that differs in more than its tasks is another run: refused, naming the difference.
  fs::create_directories(folder.path() / "other");
  {
    auto other = store::RunStore::open((folder.path() / "other/run.sqlite").string());
    ASSERT_TRUE(other);
    auto info = store::open_run_dir(base + "/a")->load_run().value();
    auto samples = info.resolved_config_yaml.find("samples: 2");
    ASSERT_NE(samples, std::string::npos) << info.resolved_config_yaml;
    info.resolved_config_yaml.replace(samples, 10, "samples: 3");
    auto tasks = info.resolved_config_yaml.find("standard/gelu");
    ASSERT_NE(tasks, std::string::npos);
    info.resolved_config_yaml.replace(tasks, 13, "standard/cumsum");
    ASSERT_TRUE(other->write_run(info));
  }
  auto unrelated = run_cli({"merge", base + "/a", (folder.path() / "other").string(), "--into",
                            (folder.path() / "unrelated").string()});
  EXPECT_EQ(unrelated.exit_code, 1);
  EXPECT_NE(unrelated.stderr_text.find("nor parts of its task set"), std::string::npos) << unrelated.stderr_text;
  EXPECT_NE(unrelated.stderr_text.find("samples: 3"), std::string::npos) << unrelated.stderr_text;
  EXPECT_FALSE(fs::exists(folder.path() / "unrelated/run.sqlite"));
}

TEST(RunEngine, ExportWritesAModuleWhoseTestPassesOnTheInterpreter) {
  TemporaryDirectory folder;
  std::string run_file = write_run_file(folder, "[standard/vector-add, standard/gelu]", 1, 2);
  auto result = run_cli({"run", run_file}, "", 280);
  ASSERT_EQ(result.exit_code, 0) << result.stdout_text << result.stderr_text;
  std::string run_dir = (folder.path() / "run").string();
  std::string out = (folder.path() / "exported").string();
  auto exported = run_cli({"export", run_dir, "standard/vector-add|scripted|one-shot|0", "--to", out});
  ASSERT_EQ(exported.exit_code, 0) << exported.stderr_text;
  for (const char* file : {"kernel.py", "test_kernel.py", "bench_kernel.py", "README.md", "reference.py", "task.json",
                           "task_inputs.py"})
    EXPECT_TRUE(fs::exists(fs::path(out) / file)) << file;
  std::ifstream kernel(fs::path(out) / "kernel.py");
  std::string kernel_text((std::istreambuf_iterator<char>(kernel)), {});
  EXPECT_NE(kernel_text.find("def vector_add"), std::string::npos);

  process::ProcessOptions pytest;
  pytest.argv = {source_dir() + "/.venv/bin/python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_kernel.py"};
  pytest.working_directory = out;
  pytest.environment = {{"TRITON_INTERPRET", "1"}, {"PATH", "/usr/bin:/bin"}, {"HOME", out}};
  pytest.timeout_s = 240;
  auto tested = process::run_process(pytest);
  ASSERT_TRUE(tested) << tested.status().to_string();
  EXPECT_TRUE(tested->succeeded()) << tested->describe_end() << "\n" << tested->stdout_text << tested->stderr_text;
  EXPECT_NE(tested->stdout_text.find("4 passed"), std::string::npos) << tested->stdout_text;  // 2 shapes x 2 seeds

  // A wrong kernel makes the exported test fail: the test really compares.
  std::ofstream(fs::path(out) / "kernel.py")
      << "import torch\n\ndef vector_add(x, y):\n    return x - y\n";
  auto failing = process::run_process(pytest);
  ASSERT_TRUE(failing);
  EXPECT_FALSE(failing->succeeded()) << failing->stdout_text;

  auto refused = run_cli({"export", run_dir, "standard/gelu|scripted|one-shot|0", "--to", out + "-gelu"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.stderr_text.find("did not pass (no_code"), std::string::npos) << refused.stderr_text;
  auto unknown = run_cli({"export", run_dir, "standard/vector-add|scripted|one-shot|7", "--to", out + "-x"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.stderr_text.find("did you mean"), std::string::npos) << unknown.stderr_text;
}

}  // namespace
}  // namespace tritongym::testing
