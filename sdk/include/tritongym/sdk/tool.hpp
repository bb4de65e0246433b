// TritonGym SDK: kind `tool`, one function the model can call (compile, test, benchmark, ...).
//
// The core wraps every tool: it parses the model's arguments, enforces ordering and timeouts, and
// charges the episode's budget. A tool never charges a budget itself.
#pragma once

#include <string>

#include "tritongym/sdk/status.hpp"
#include "tritongym/sdk/types.hpp"

namespace tritongym {

class Dsl;

// Services the core offers a tool during one call. Owned by the core; valid during call() only.
class ToolServices {
 public:
  virtual ~ToolServices() = default;
  virtual const TaskSpec& task() const noexcept = 0;
  // The executor of the run, under the task's DSL rule; blocks until the evaluation is done. A source the DSL
  // refuses (Dsl::check_source) comes back as a compile_error whose message is the DSL's reason, without running;
  // otherwise the core sets request.required_kernel_frontend from the DSL (whatever the tool put there) and the
  // executor judges it.
  virtual Result<EvaluationResult> evaluate(const EvaluationRequest& request) noexcept = 0;
  // The task's DSL plugin, or nullptr when none is loaded for it.
  virtual const Dsl* dsl() const noexcept = 0;
};

class Tool {
 public:
  virtual ~Tool() = default;

  // Name, description and JSON Schema of the arguments, as offered to the model. Stable for a run.
  virtual ToolSchema schema() const noexcept = 0;

  // Run the tool. `arguments_json` already parsed as a JSON object by the core (invalid JSON never
  // reaches here). A candidate's failure is ToolResult{ok=false}; a Status error is a harness failure.
  virtual Result<ToolResult> call(const std::string& arguments_json, ToolServices& services) noexcept = 0;
};

}  // namespace tritongym
