// A thin RAII layer over SQLite's C API: a connection, prepared statements and transactions.
// Errors come back as Status values naming the SQL that failed; nothing throws.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "tritongym/sdk/status.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace tritongym::store {

class Statement;

// One connection. Not thread-safe by itself: the owner serialises its use.
class Database {
 public:
  // Opens (creating if needed) the file at `path` with WAL journaling, foreign keys on, and a busy
  // timeout so a reader in another process (a report) does not make a write fail.
  static Result<Database> open(const std::string& path, bool create = true);

  // Runs one or more statements that return no rows.
  Status execute(const std::string& sql);
  Result<Statement> prepare(const std::string& sql);
  const std::string& path() const { return path_; }

 private:
  struct Closer {
    void operator()(sqlite3* handle) const;
  };
  std::unique_ptr<sqlite3, Closer> handle_;
  std::string path_;
  friend class Statement;
};

// A prepared statement. Binding indexes are 1-based, column indexes 0-based (as in SQLite).
class Statement {
 public:
  Statement& bind(int index, const std::string& value);
  Statement& bind(int index, int64_t value);
  Statement& bind(int index, double value);
  Statement& bind(int index, const std::optional<double>& value);  // nullopt: NULL

  // Advances: a row (true), done (false), or the error.
  Result<bool> step();
  // Steps to the end (an INSERT, UPDATE, ...), then resets for the next use.
  Status run();
  void reset();

  std::string text(int column) const;
  int64_t integer(int column) const;
  double real(int column) const;
  std::optional<double> optional_real(int column) const;  // NULL: nullopt

 private:
  struct Finalizer {
    void operator()(sqlite3_stmt* statement) const;
  };
  Statement(sqlite3* database, sqlite3_stmt* statement, std::string sql)
      : database_(database), statement_(statement), sql_(std::move(sql)) {}
  Status error(int code) const;
  sqlite3* database_ = nullptr;
  std::unique_ptr<sqlite3_stmt, Finalizer> statement_;
  std::string sql_;
  Status bind_error_;  // the first failed bind, reported by step()
  friend class Database;
};

// BEGIN IMMEDIATE on construction; ROLLBACK in the destructor unless commit() succeeded.
class Transaction {
 public:
  explicit Transaction(Database& database);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  const Status& begun() const { return begun_; }
  Status commit();

 private:
  Database& database_;
  Status begun_;
  bool open_ = false;
};

}  // namespace tritongym::store
