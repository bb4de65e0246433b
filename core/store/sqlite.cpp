#include "store/sqlite.hpp"

#include <sqlite3.h>

namespace tritongym::store {

namespace {

Status sqlite_error(sqlite3* database, int code, const std::string& what) {
  std::string detail = database ? sqlite3_errmsg(database) : sqlite3_errstr(code);
  return Status(StatusCode::internal, "sqlite: " + detail + " (in: " + what + ")");
}

}  // namespace

void Database::Closer::operator()(sqlite3* handle) const { sqlite3_close_v2(handle); }

Result<Database> Database::open(const std::string& path, bool create) {
  sqlite3* raw = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
  int code = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  Database database;
  database.handle_.reset(raw);  // closed even when opening failed
  database.path_ = path;
  if (code != SQLITE_OK)
    return Status(create ? StatusCode::unavailable : StatusCode::not_found,
                  "cannot open the store '" + path + "': " + (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(code)));
  sqlite3_busy_timeout(raw, 10000);
  // WAL: a writer never blocks readers, and a killed process leaves the last committed state.
  // synchronous=NORMAL is durable against a process kill (not a power cut) and much faster with WAL.
  if (Status status = database.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;");
      !status.is_ok())
    return Status(StatusCode::unavailable, "the store '" + path + "' cannot be used: " + status.message());
  return database;
}

Status Database::execute(const std::string& sql) {
  char* message = nullptr;
  int code = sqlite3_exec(handle_.get(), sql.c_str(), nullptr, nullptr, &message);
  if (code == SQLITE_OK) return {};
  std::string detail = message ? message : sqlite3_errstr(code);
  sqlite3_free(message);
  return Status(StatusCode::internal, "sqlite: " + detail + " (in: " + sql.substr(0, 80) + ")");
}

Result<Statement> Database::prepare(const std::string& sql) {
  sqlite3_stmt* raw = nullptr;
  int code = sqlite3_prepare_v2(handle_.get(), sql.c_str(), static_cast<int>(sql.size()), &raw, nullptr);
  if (code != SQLITE_OK) {
    sqlite3_finalize(raw);
    return sqlite_error(handle_.get(), code, sql.substr(0, 80));
  }
  return Statement(handle_.get(), raw, sql);
}

void Statement::Finalizer::operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }

Status Statement::error(int code) const { return sqlite_error(database_, code, sql_.substr(0, 80)); }

Statement& Statement::bind(int index, const std::string& value) {
  int code = sqlite3_bind_text(statement_.get(), index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  if (code != SQLITE_OK && bind_error_.is_ok()) bind_error_ = error(code);
  return *this;
}

Statement& Statement::bind(int index, int64_t value) {
  int code = sqlite3_bind_int64(statement_.get(), index, value);
  if (code != SQLITE_OK && bind_error_.is_ok()) bind_error_ = error(code);
  return *this;
}

Statement& Statement::bind(int index, double value) {
  int code = sqlite3_bind_double(statement_.get(), index, value);
  if (code != SQLITE_OK && bind_error_.is_ok()) bind_error_ = error(code);
  return *this;
}

Statement& Statement::bind(int index, const std::optional<double>& value) {
  if (value) return bind(index, *value);
  int code = sqlite3_bind_null(statement_.get(), index);
  if (code != SQLITE_OK && bind_error_.is_ok()) bind_error_ = error(code);
  return *this;
}

Result<bool> Statement::step() {
  if (!bind_error_.is_ok()) return bind_error_;
  int code = sqlite3_step(statement_.get());
  if (code == SQLITE_ROW) return true;
  if (code == SQLITE_DONE) return false;
  return error(code);
}

Status Statement::run() {
  auto stepped = step();
  reset();
  if (!stepped) return stepped.status();
  return {};
}

void Statement::reset() {
  sqlite3_reset(statement_.get());
  sqlite3_clear_bindings(statement_.get());
  bind_error_ = {};
}

std::string Statement::text(int column) const {
  const unsigned char* value = sqlite3_column_text(statement_.get(), column);
  int size = sqlite3_column_bytes(statement_.get(), column);
  return value ? std::string(reinterpret_cast<const char*>(value), static_cast<size_t>(size)) : std::string();
}

int64_t Statement::integer(int column) const { return sqlite3_column_int64(statement_.get(), column); }

double Statement::real(int column) const { return sqlite3_column_double(statement_.get(), column); }

std::optional<double> Statement::optional_real(int column) const {
  if (sqlite3_column_type(statement_.get(), column) == SQLITE_NULL) return std::nullopt;
  return sqlite3_column_double(statement_.get(), column);
}

Transaction::Transaction(Database& database) : database_(database) {
  begun_ = database_.execute("BEGIN IMMEDIATE");
  open_ = begun_.is_ok();
}

Transaction::~Transaction() {
  if (open_) database_.execute("ROLLBACK");
}

Status Transaction::commit() {
  if (!open_) return begun_.is_ok() ? Status(StatusCode::internal, "sqlite: transaction already ended") : begun_;
  Status status = database_.execute("COMMIT");
  if (status.is_ok()) open_ = false;
  return status;
}

}  // namespace tritongym::store
