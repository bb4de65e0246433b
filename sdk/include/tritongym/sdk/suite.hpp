// TritonGym SDK: kind `suite`, turns a source of problems into TaskSpecs.
#pragma once

#include <vector>

#include "tritongym/sdk/status.hpp"
#include "tritongym/sdk/types.hpp"

namespace tritongym {

class Suite {
 public:
  virtual ~Suite() = default;

  // All tasks of the suite. A malformed task is an error naming its file and the field, unless the
  // suite is configured to skip bad tasks (then it logs them). Called once per run.
  virtual Result<std::vector<TaskSpec>> load_tasks() noexcept = 0;
};

}  // namespace tritongym
