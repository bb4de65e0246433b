#include "store/run_store.hpp"

#include <boost/json.hpp>

#include <filesystem>

namespace tritongym::store {

namespace fs = std::filesystem;
using results::EpisodeRecord;
using results::RunInfo;
using results::ShapeRecord;
using results::TranscriptEntry;

namespace {

const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY, name TEXT NOT NULL, description TEXT NOT NULL, started_at TEXT NOT NULL,
  finished_at TEXT NOT NULL, status TEXT NOT NULL, resolved_config_yaml TEXT NOT NULL,
  environment_json TEXT NOT NULL, executor TEXT NOT NULL, reports_performance INTEGER NOT NULL,
  planned_episodes INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS tasks (task_id TEXT PRIMARY KEY, spec_json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS episodes (
  episode_key TEXT PRIMARY KEY, task_id TEXT NOT NULL, model TEXT NOT NULL, workflow TEXT NOT NULL,
  sample INTEGER NOT NULL, split TEXT NOT NULL, category TEXT NOT NULL, verdict TEXT NOT NULL,
  message TEXT NOT NULL, flags_json TEXT NOT NULL, final_code TEXT NOT NULL, final_code_source TEXT NOT NULL,
  attempts INTEGER NOT NULL, first_passing_attempt INTEGER NOT NULL, turns INTEGER NOT NULL,
  tool_calls INTEGER NOT NULL, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
  dollars REAL NOT NULL, gpu_seconds REAL NOT NULL, wall_seconds REAL NOT NULL,
  started_at TEXT NOT NULL, finished_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS shapes (
  episode_key TEXT NOT NULL REFERENCES episodes(episode_key) ON DELETE CASCADE, position INTEGER NOT NULL,
  shape TEXT NOT NULL, passed INTEGER NOT NULL, max_abs_error REAL NOT NULL, candidate_us REAL, eager_us REAL,
  compile_us REAL, oracle_us REAL, speed_of_light_us REAL, triton_us REAL, PRIMARY KEY (episode_key, position));
CREATE TABLE IF NOT EXISTS transcript (
  episode_key TEXT NOT NULL REFERENCES episodes(episode_key) ON DELETE CASCADE, position INTEGER NOT NULL,
  kind TEXT NOT NULL, content TEXT NOT NULL, tool_name TEXT NOT NULL, arguments_json TEXT NOT NULL,
  code TEXT NOT NULL, verdict TEXT NOT NULL, ok INTEGER NOT NULL, input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL, dollars REAL NOT NULL, record_json TEXT NOT NULL,
  PRIMARY KEY (episode_key, position));
CREATE TABLE IF NOT EXISTS evaluations (
  episode_key TEXT NOT NULL REFERENCES episodes(episode_key) ON DELETE CASCADE, position INTEGER NOT NULL,
  stage TEXT NOT NULL, verdict TEXT NOT NULL, message TEXT NOT NULL, stdout TEXT NOT NULL, stderr TEXT NOT NULL,
  record_json TEXT NOT NULL, flags_json TEXT NOT NULL, warnings_json TEXT NOT NULL, gpu_seconds REAL NOT NULL,
  wall_seconds REAL NOT NULL, PRIMARY KEY (episode_key, position));
CREATE VIEW IF NOT EXISTS messages AS
  SELECT episode_key, position, kind AS role, content, input_tokens, output_tokens, dollars
  FROM transcript WHERE kind IN ('system', 'user', 'assistant');
CREATE VIEW IF NOT EXISTS tool_calls AS
  SELECT episode_key, position, tool_name, arguments_json, code, verdict, ok, content AS result, record_json
  FROM transcript WHERE kind IN ('tool', 'refused');
)sql";

std::string strings_json(const std::vector<std::string>& values) {
  boost::json::array array;
  for (const auto& value : values) array.emplace_back(value);
  return boost::json::serialize(array);
}

std::vector<std::string> strings_from_json(const std::string& text) {
  std::vector<std::string> values;
  boost::system::error_code error;
  boost::json::value parsed = boost::json::parse(text, error);
  if (error || !parsed.is_array()) return values;
  for (const auto& item : parsed.as_array())
    if (item.is_string()) values.emplace_back(item.as_string());
  return values;
}

}  // namespace

Result<RunStore> RunStore::open(const std::string& path, bool create) {
  if (!create && !fs::exists(path)) return Status(StatusCode::not_found, "no store at '" + path + "'");
  auto database = Database::open(path, create);
  if (!database) return database.status();
  RunStore store;
  store.path_ = path;
  store.database_ = std::make_unique<Database>(std::move(database.value()));
  if (Status status = store.create_schema(); !status.is_ok()) return status;
  return store;
}

Status RunStore::create_schema() {
  Transaction transaction(*database_);
  if (!transaction.begun().is_ok()) return transaction.begun();
  if (Status status = database_->execute(kSchema); !status.is_ok()) return status;
  auto version = database_->prepare("SELECT value FROM meta WHERE key = 'schema_version'");
  if (!version) return version.status();
  auto row = version->step();
  if (!row) return row.status();
  if (*row) {
    std::string found = version->text(0);
    if (found == "1") {  // version 1 lacks the plain-Triton baseline's column; its rows read it as NULL
      version->reset();
      for (const char* step : {"ALTER TABLE shapes ADD COLUMN triton_us REAL",
                               "UPDATE meta SET value = '2' WHERE key = 'schema_version'"})
        if (Status status = database_->execute(step); !status.is_ok()) return status;
      found = "2";
    }
    if (found != std::to_string(kSchemaVersion))
      return Status(StatusCode::failed_precondition, "the store '" + path_ + "' has schema version " + found +
                                                         "; this tritongym reads version " +
                                                         std::to_string(kSchemaVersion));
  } else {
    auto insert = database_->prepare("INSERT INTO meta (key, value) VALUES ('schema_version', ?1)");
    if (!insert) return insert.status();
    if (Status status = insert->bind(1, std::to_string(kSchemaVersion)).run(); !status.is_ok()) return status;
  }
  return transaction.commit();
}

Status RunStore::write_run(const RunInfo& run) {
  std::lock_guard lock(*mutex_);
  auto statement = database_->prepare(
      "INSERT OR REPLACE INTO runs (run_id, name, description, started_at, finished_at, status, resolved_config_yaml,"
      " environment_json, executor, reports_performance, planned_episodes)"
      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
  if (!statement) return statement.status();
  return statement->bind(1, run.run_id)
      .bind(2, run.name)
      .bind(3, run.description)
      .bind(4, run.started_at)
      .bind(5, run.finished_at)
      .bind(6, run.status)
      .bind(7, run.resolved_config_yaml)
      .bind(8, run.environment_json)
      .bind(9, run.executor)
      .bind(10, int64_t{run.reports_performance ? 1 : 0})
      .bind(11, run.planned_episodes)
      .run();
}

Result<RunInfo> RunStore::load_run() const {
  std::lock_guard lock(*mutex_);
  auto statement = database_->prepare(
      "SELECT run_id, name, description, started_at, finished_at, status, resolved_config_yaml, environment_json,"
      " executor, reports_performance, planned_episodes FROM runs ORDER BY started_at LIMIT 1");
  if (!statement) return statement.status();
  auto row = statement->step();
  if (!row) return row.status();
  if (!*row) return Status(StatusCode::not_found, "the store '" + path_ + "' holds no run");
  RunInfo run;
  run.run_id = statement->text(0);
  run.name = statement->text(1);
  run.description = statement->text(2);
  run.started_at = statement->text(3);
  run.finished_at = statement->text(4);
  run.status = statement->text(5);
  run.resolved_config_yaml = statement->text(6);
  run.environment_json = statement->text(7);
  run.executor = statement->text(8);
  run.reports_performance = statement->integer(9) != 0;
  run.planned_episodes = statement->integer(10);
  return run;
}

Status RunStore::set_status(const std::string& status, const std::string& finished_at) {
  std::lock_guard lock(*mutex_);
  auto statement = database_->prepare("UPDATE runs SET status = ?1, finished_at = ?2");
  if (!statement) return statement.status();
  return statement->bind(1, status).bind(2, finished_at).run();
}

Status RunStore::set_meta(const std::string& key, const std::string& value) {
  std::lock_guard lock(*mutex_);
  auto statement = database_->prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)");
  if (!statement) return statement.status();
  return statement->bind(1, key).bind(2, value).run();
}

std::optional<std::string> RunStore::meta(const std::string& key) const {
  std::lock_guard lock(*mutex_);
  auto statement = database_->prepare("SELECT value FROM meta WHERE key = ?1");
  if (!statement) return std::nullopt;
  statement->bind(1, key);
  auto row = statement->step();
  if (!row || !*row) return std::nullopt;
  return statement->text(0);
}

Status RunStore::write_task(const std::string& task_id, const std::string& spec_json) {
  std::lock_guard lock(*mutex_);
  auto statement = database_->prepare("INSERT OR REPLACE INTO tasks (task_id, spec_json) VALUES (?1, ?2)");
  if (!statement) return statement.status();
  return statement->bind(1, task_id).bind(2, spec_json).run();
}

std::optional<std::string> RunStore::task(const std::string& task_id) const {
  std::lock_guard lock(*mutex_);
  auto statement = database_->prepare("SELECT spec_json FROM tasks WHERE task_id = ?1");
  if (!statement) return std::nullopt;
  statement->bind(1, task_id);
  auto row = statement->step();
  if (!row || !*row) return std::nullopt;
  return statement->text(0);
}

std::map<std::string, std::string> RunStore::tasks() const {
  std::lock_guard lock(*mutex_);
  std::map<std::string, std::string> tasks;
  auto statement = database_->prepare("SELECT task_id, spec_json FROM tasks");
  if (!statement) return tasks;
  while (true) {
    auto row = statement->step();
    if (!row || !*row) break;
    tasks[statement->text(0)] = statement->text(1);
  }
  return tasks;
}

Status RunStore::record_episode(const EpisodeRecord& episode, const std::vector<TranscriptEntry>& transcript,
                                const std::vector<EvaluationRow>& evaluations) {
  std::lock_guard lock(*mutex_);
  const std::string key = episode.key.key();
  Transaction transaction(*database_);
  if (!transaction.begun().is_ok()) return transaction.begun();
  {
    auto exists = database_->prepare("SELECT 1 FROM episodes WHERE episode_key = ?1");
    if (!exists) return exists.status();
    exists->bind(1, key);
    auto row = exists->step();
    if (!row) return row.status();
    if (*row) return Status(StatusCode::failed_precondition, "episode '" + key + "' is already in the store " + path_);
  }
  auto insert = database_->prepare(
      "INSERT INTO episodes (episode_key, task_id, model, workflow, sample, split, category, verdict, message,"
      " flags_json, final_code, final_code_source, attempts, first_passing_attempt, turns, tool_calls, input_tokens,"
      " output_tokens, dollars, gpu_seconds, wall_seconds, started_at, finished_at)"
      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23)");
  if (!insert) return insert.status();
  Status inserted = insert->bind(1, key)
                        .bind(2, episode.key.task_id)
                        .bind(3, episode.key.model)
                        .bind(4, episode.key.workflow)
                        .bind(5, episode.key.sample)
                        .bind(6, episode.split)
                        .bind(7, episode.category)
                        .bind(8, episode.verdict)
                        .bind(9, episode.message)
                        .bind(10, strings_json(episode.flags))
                        .bind(11, episode.final_code)
                        .bind(12, episode.final_code_source)
                        .bind(13, episode.attempts)
                        .bind(14, episode.first_passing_attempt)
                        .bind(15, episode.turns)
                        .bind(16, episode.tool_calls)
                        .bind(17, episode.input_tokens)
                        .bind(18, episode.output_tokens)
                        .bind(19, episode.dollars)
                        .bind(20, episode.gpu_seconds)
                        .bind(21, episode.wall_seconds)
                        .bind(22, episode.started_at)
                        .bind(23, episode.finished_at)
                        .run();
  if (!inserted.is_ok()) return inserted;

  auto shape = database_->prepare(
      "INSERT INTO shapes (episode_key, position, shape, passed, max_abs_error, candidate_us, eager_us, compile_us,"
      " oracle_us, speed_of_light_us, triton_us) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
  if (!shape) return shape.status();
  for (size_t i = 0; i < episode.shapes.size(); ++i) {
    const ShapeRecord& record = episode.shapes[i];
    Status status = shape->bind(1, key)
                        .bind(2, static_cast<int64_t>(i))
                        .bind(3, record.shape)
                        .bind(4, int64_t{record.passed ? 1 : 0})
                        .bind(5, record.max_abs_error)
                        .bind(6, record.candidate_us)
                        .bind(7, record.eager_us)
                        .bind(8, record.compile_us)
                        .bind(9, record.oracle_us)
                        .bind(10, record.speed_of_light_us)
                        .bind(11, record.triton_us)
                        .run();
    if (!status.is_ok()) return status;
  }

  auto entry = database_->prepare(
      "INSERT INTO transcript (episode_key, position, kind, content, tool_name, arguments_json, code, verdict, ok,"
      " input_tokens, output_tokens, dollars, record_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
  if (!entry) return entry.status();
  for (const TranscriptEntry& item : transcript) {
    Status status = entry->bind(1, key)
                        .bind(2, item.index)
                        .bind(3, item.kind)
                        .bind(4, item.content)
                        .bind(5, item.tool_name)
                        .bind(6, item.arguments_json)
                        .bind(7, item.code)
                        .bind(8, item.verdict)
                        .bind(9, int64_t{item.ok ? 1 : 0})
                        .bind(10, item.input_tokens)
                        .bind(11, item.output_tokens)
                        .bind(12, item.dollars)
                        .bind(13, item.record_json)
                        .run();
    if (!status.is_ok()) return status;
  }

  auto evaluation = database_->prepare(
      "INSERT INTO evaluations (episode_key, position, stage, verdict, message, stdout, stderr, record_json, flags_json,"
      " warnings_json, gpu_seconds, wall_seconds) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
  if (!evaluation) return evaluation.status();
  for (size_t i = 0; i < evaluations.size(); ++i) {
    const EvaluationRow& row = evaluations[i];
    Status status = evaluation->bind(1, key)
                        .bind(2, static_cast<int64_t>(i))
                        .bind(3, row.stage)
                        .bind(4, row.verdict)
                        .bind(5, row.message)
                        .bind(6, row.stdout_text)
                        .bind(7, row.stderr_text)
                        .bind(8, row.record_json)
                        .bind(9, strings_json(row.flags))
                        .bind(10, strings_json(row.warnings))
                        .bind(11, row.gpu_seconds)
                        .bind(12, row.wall_seconds)
                        .run();
    if (!status.is_ok()) return status;
  }
  return transaction.commit();
}

Result<std::set<std::string>> RunStore::finished_keys() const {
  std::lock_guard lock(*mutex_);
  auto statement = database_->prepare("SELECT episode_key FROM episodes");
  if (!statement) return statement.status();
  std::set<std::string> keys;
  while (true) {
    auto row = statement->step();
    if (!row) return row.status();
    if (!*row) break;
    keys.insert(statement->text(0));
  }
  return keys;
}

Result<std::vector<EpisodeRecord>> RunStore::load_episodes() const {
  std::lock_guard lock(*mutex_);
  auto statement = database_->prepare(
      "SELECT episode_key, task_id, model, workflow, sample, split, category, verdict, message, flags_json, final_code,"
      " final_code_source, attempts, first_passing_attempt, turns, tool_calls, input_tokens, output_tokens, dollars,"
      " gpu_seconds, wall_seconds, started_at, finished_at,"
      " (SELECT warnings_json FROM evaluations WHERE evaluations.episode_key = episodes.episode_key"
      "  AND stage = 'final_score' ORDER BY position DESC LIMIT 1)"
      " FROM episodes ORDER BY task_id, model, workflow, sample");
  if (!statement) return statement.status();
  auto shapes = database_->prepare(
      "SELECT shape, passed, max_abs_error, candidate_us, eager_us, compile_us, oracle_us, speed_of_light_us,"
      " triton_us FROM shapes WHERE episode_key = ?1 ORDER BY position");
  if (!shapes) return shapes.status();
  std::vector<EpisodeRecord> episodes;
  while (true) {
    auto row = statement->step();
    if (!row) return row.status();
    if (!*row) break;
    EpisodeRecord episode;
    episode.key = {statement->text(1), statement->text(2), statement->text(3), statement->integer(4)};
    episode.split = statement->text(5);
    episode.category = statement->text(6);
    episode.verdict = statement->text(7);
    episode.message = statement->text(8);
    episode.flags = strings_from_json(statement->text(9));
    episode.final_code = statement->text(10);
    episode.final_code_source = statement->text(11);
    episode.attempts = statement->integer(12);
    episode.first_passing_attempt = statement->integer(13);
    episode.turns = statement->integer(14);
    episode.tool_calls = statement->integer(15);
    episode.input_tokens = statement->integer(16);
    episode.output_tokens = statement->integer(17);
    episode.dollars = statement->real(18);
    episode.gpu_seconds = statement->real(19);
    episode.wall_seconds = statement->real(20);
    episode.started_at = statement->text(21);
    episode.finished_at = statement->text(22);
    if (std::string warnings = statement->text(23); !warnings.empty()) episode.warnings = strings_from_json(warnings);
    shapes->reset();
    shapes->bind(1, statement->text(0));
    while (true) {
      auto shape_row = shapes->step();
      if (!shape_row) return shape_row.status();
      if (!*shape_row) break;
      ShapeRecord shape;
      shape.shape = shapes->text(0);
      shape.passed = shapes->integer(1) != 0;
      shape.max_abs_error = shapes->real(2);
      shape.candidate_us = shapes->optional_real(3);
      shape.eager_us = shapes->optional_real(4);
      shape.compile_us = shapes->optional_real(5);
      shape.oracle_us = shapes->optional_real(6);
      shape.speed_of_light_us = shapes->optional_real(7);
      shape.triton_us = shapes->optional_real(8);
      episode.shapes.push_back(std::move(shape));
    }
    episodes.push_back(std::move(episode));
  }
  return episodes;
}

Result<std::vector<TranscriptEntry>> RunStore::load_transcript(const std::string& episode_key) const {
  std::lock_guard lock(*mutex_);
  auto statement = database_->prepare(
      "SELECT position, kind, content, tool_name, arguments_json, code, verdict, ok, input_tokens, output_tokens,"
      " dollars, record_json FROM transcript WHERE episode_key = ?1 ORDER BY position");
  if (!statement) return statement.status();
  statement->bind(1, episode_key);
  std::vector<TranscriptEntry> entries;
  while (true) {
    auto row = statement->step();
    if (!row) return row.status();
    if (!*row) break;
    TranscriptEntry entry;
    entry.index = statement->integer(0);
    entry.kind = statement->text(1);
    entry.content = statement->text(2);
    entry.tool_name = statement->text(3);
    entry.arguments_json = statement->text(4);
    entry.code = statement->text(5);
    entry.verdict = statement->text(6);
    entry.ok = statement->integer(7) != 0;
    entry.input_tokens = statement->integer(8);
    entry.output_tokens = statement->integer(9);
    entry.dollars = statement->real(10);
    entry.record_json = statement->text(11);
    entries.push_back(std::move(entry));
  }
  return entries;
}

Result<std::vector<EvaluationRow>> RunStore::load_evaluations(const std::string& episode_key) const {
  std::lock_guard lock(*mutex_);
  auto statement = database_->prepare(
      "SELECT stage, verdict, message, stdout, stderr, record_json, flags_json, warnings_json, gpu_seconds, wall_seconds"
      " FROM evaluations WHERE episode_key = ?1 ORDER BY position");
  if (!statement) return statement.status();
  statement->bind(1, episode_key);
  std::vector<EvaluationRow> rows;
  while (true) {
    auto row = statement->step();
    if (!row) return row.status();
    if (!*row) break;
    EvaluationRow evaluation;
    evaluation.stage = statement->text(0);
    evaluation.verdict = statement->text(1);
    evaluation.message = statement->text(2);
    evaluation.stdout_text = statement->text(3);
    evaluation.stderr_text = statement->text(4);
    evaluation.record_json = statement->text(5);
    evaluation.flags = strings_from_json(statement->text(6));
    evaluation.warnings = strings_from_json(statement->text(7));
    evaluation.gpu_seconds = statement->real(8);
    evaluation.wall_seconds = statement->real(9);
    rows.push_back(std::move(evaluation));
  }
  return rows;
}

Result<RunStore> open_run_dir(const std::string& run_dir) {
  std::error_code error;
  if (!fs::is_directory(run_dir, error))
    return Status(StatusCode::not_found, "'" + run_dir + "' is not a folder");
  std::string path = (fs::path(run_dir) / kStoreFileName).string();
  if (!fs::exists(path, error))
    return Status(StatusCode::not_found, "'" + run_dir + "' is not a run folder: it has no " + std::string(kStoreFileName) +
                                             " (a run folder is what `tritongym run` writes, e.g. runs/<name>)");
  auto store = RunStore::open(path, false);
  if (!store) return store.status();
  auto run = store->load_run();
  if (!run) return Status(StatusCode::not_found, "'" + run_dir + "' is not a run folder: " + run.status().message());
  return store;
}

}  // namespace tritongym::store
