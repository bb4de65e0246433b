// TritonGym SDK: kind `dsl`, a kernel language (Triton, Gluon, ...): its rules and its reference.
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

  // The `docs` tool: the most relevant sections of the DSL's bundled reference for a query.
  virtual Result<std::string> docs(std::string_view query) const noexcept = 0;
};

}  // namespace tritongym
