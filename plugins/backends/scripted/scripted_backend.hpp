// tritongym.backend.scripted: answers each turn from a script instead of a model.
#pragma once

#include <map>
#include <mutex>

#include "script.hpp"
#include "tritongym/sdk/backend.hpp"

namespace tritongym::backend_scripted {

class ScriptedBackend final : public ModelBackend {
 public:
  explicit ScriptedBackend(ScriptedConfig config) : config_(std::move(config)) {}

  // order "conversation": the turn is the count of assistant messages already in the request;
  // order "sequence": a counter per task and sample.
  Result<ChatResponse> chat(const ChatRequest& request) noexcept override;
  std::string model_name() const noexcept override { return config_.model_name; }

 private:
  ScriptedConfig config_;  // content files already inlined; never changes after construction
  std::mutex mutex_;
  std::map<std::string, size_t> calls_;  // order "sequence": calls so far per "task#sample"
};

}  // namespace tritongym::backend_scripted
