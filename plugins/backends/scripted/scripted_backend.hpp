// tritongym.backend.scripted: answers each turn from a script instead of a model.
#pragma once

#include "script.hpp"
#include "tritongym/sdk/backend.hpp"

namespace tritongym::backend_scripted {

class ScriptedBackend final : public ModelBackend {
 public:
  explicit ScriptedBackend(ScriptedConfig config) : config_(std::move(config)) {}

  // Stateless: the turn number is the count of assistant messages already in the request.
  Result<ChatResponse> chat(const ChatRequest& request) noexcept override;
  std::string model_name() const noexcept override { return config_.model_name; }

 private:
  ScriptedConfig config_;  // content files already inlined; never changes after construction
};

}  // namespace tritongym::backend_scripted
