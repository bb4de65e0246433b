// TritonGym SDK: errors are values at the plugin boundary.
//
// Every entry point a plugin implements is `noexcept` and returns a Status or a Result<T>.
// A kernel that fails to compile is NOT an error here: it is a normal EvaluationResult with a verdict.
// Status is for failures of the harness or of the plugin itself (bad config, unreachable server, ...).
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace tritongym {

enum class StatusCode {
  ok = 0,
  invalid_argument,     // a caller passed something malformed (e.g. a tool call with bad JSON)
  invalid_config,       // plugin configuration rejected; Status::location holds the JSON pointer
  not_found,            // a file, task, tool or id that does not exist
  unavailable,          // a dependency is missing or unreachable (no GPU, server down, no python)
  failed_precondition,  // called in the wrong state
  deadline_exceeded,    // a timeout
  resource_exhausted,   // a budget or quota ran out
  cancelled,            // the run is stopping
  unimplemented,        // the feature lands later; the message says where
  internal,             // a bug: the message should say what invariant broke
};

// Lower-case name of a code ("invalid_config"), stable: it appears in JSON output.
inline const char* status_code_name(StatusCode code) noexcept {
  switch (code) {
    case StatusCode::ok: return "ok";
    case StatusCode::invalid_argument: return "invalid_argument";
    case StatusCode::invalid_config: return "invalid_config";
    case StatusCode::not_found: return "not_found";
    case StatusCode::unavailable: return "unavailable";
    case StatusCode::failed_precondition: return "failed_precondition";
    case StatusCode::deadline_exceeded: return "deadline_exceeded";
    case StatusCode::resource_exhausted: return "resource_exhausted";
    case StatusCode::cancelled: return "cancelled";
    case StatusCode::unimplemented: return "unimplemented";
    case StatusCode::internal: return "internal";
  }
  return "unknown";
}

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message, std::string location = {})
      : code_(code), message_(std::move(message)), location_(std::move(location)) {}

  static Status ok() { return {}; }

  bool is_ok() const noexcept { return code_ == StatusCode::ok; }
  explicit operator bool() const noexcept { return is_ok(); }
  StatusCode code() const noexcept { return code_; }
  // A sentence for a person: what went wrong and, where possible, what to do.
  const std::string& message() const noexcept { return message_; }
  // Where the problem is, when it has a place: a JSON pointer into the plugin's config ("/replies/2/content")
  // for invalid_config, which the host turns into "file.yaml:12:5"; otherwise free text or empty.
  const std::string& location() const noexcept { return location_; }

  // "invalid_config: unknown key 'max_token' (did you mean 'max_tokens'?) at /max_token"
  std::string to_string() const {
    if (is_ok()) return "ok";
    std::string text = std::string(status_code_name(code_)) + ": " + message_;
    if (!location_.empty()) text += " at " + location_;
    return text;
  }

 private:
  StatusCode code_ = StatusCode::ok;
  std::string message_;
  std::string location_;
};

// A value or the Status that explains why there is none. Never holds an ok Status.
template <class T>
class Result {
 public:
  Result(T value) : state_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Status status) : state_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    if (std::get<Status>(state_).is_ok())
      state_ = Status(StatusCode::internal, "Result constructed from an ok Status without a value");
  }

  bool has_value() const noexcept { return std::holds_alternative<T>(state_); }
  explicit operator bool() const noexcept { return has_value(); }

  T& value() & { return std::get<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  // The error; an ok Status when there is a value.
  Status status() const { return has_value() ? Status::ok() : std::get<Status>(state_); }

 private:
  std::variant<T, Status> state_;
};

}  // namespace tritongym
