// The body of `POST /v1/evaluations`, checked field by field (docs/serve.md): a candidate to judge, or the
// client error that says which field is wrong and how.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "serve/evaluator.hpp"

namespace tritongym::serve {

struct ApiLimits {
  size_t max_code_bytes = 256 << 10;  // the `code` field, in bytes
  double max_timeout_s = 600.0;       // the `timeout` field, in seconds
};

// An answer other than 2xx: its HTTP status and one sentence.
struct ApiError {
  int status = 400;
  std::string message;
};

struct CandidateBody {
  CandidateRequest request;
  const TaskSpec* task = nullptr;  // one of the `tasks` it was checked against
  bool wait = true;               // answer with the result (200), or at once with an id (202)
};

// 400: not JSON, not an object, an unknown field, a missing or mistyped field, a value out of range; 404: a task
// that is not among `tasks`; 413: code over limits.max_code_bytes.
std::variant<CandidateBody, ApiError> parse_candidate_body(const std::string& body, const std::vector<TaskSpec>& tasks,
                                                           const ApiLimits& limits);

}  // namespace tritongym::serve
