// TritonGym SDK: kind `dsl`, a kernel language (Triton, Gluon, ...): its rules and its reference.
//
// The core applies a task's DSL rule on every path that judges a candidate (the tools, an episode's final
// score, `tritongym eval`): check_source() first, as an early refusal the model reads; then the executor checks
// that every kernel the candidate ran came from required_kernel_frontend() (docs/candidate-contract.md, "The
// task's DSL"). A DSL object is created once per run and shared by its episodes: every method may be called
// from many threads at once.
#pragma once

#include <string>
#include <string_view>

#include "tritongym/sdk/status.hpp"

namespace tritongym {

class Dsl {
 public:
  virtual ~Dsl() = default;

  // The DSL's name as task.yaml spells it ("triton", "gluon").
  virtual std::string name() const noexcept = 0;

  // What a candidate in this DSL must look like, in a few lines the model is shown.
  virtual std::string candidate_rules() const noexcept = 0;

  // Cheap static check of a candidate before it goes to an executor (imports, forbidden constructs).
  // An error Status's message is returned to the model as the reason.
  virtual Status check_source(std::string_view source_code) const noexcept = 0;

  // The frontend every kernel a candidate runs must come from, as executors name it: "gluon" (kernels made by
  // @gluon.jit), "triton" (plain @triton.jit). "" sets no rule at run time (any kernel the executor runs counts).
  // The core copies it into EvaluationRequest::required_kernel_frontend; the executor judges what actually ran,
  // however the kernel was defined or imported, and fails a candidate whose kernel came from another frontend.
  // Constant for the object's lifetime.
  virtual std::string required_kernel_frontend() const noexcept = 0;

  // The `docs` tool: the most relevant sections of the DSL's bundled reference for a query.
  virtual Result<std::string> docs(std::string_view query) const noexcept = 0;
};

}  // namespace tritongym
