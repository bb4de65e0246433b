// TritonGym SDK: kind `backend`, a chat model that can call tools.
#pragma once

#include <string>

#include "tritongym/sdk/status.hpp"
#include "tritongym/sdk/types.hpp"

namespace tritongym {

class ModelBackend {
 public:
  virtual ~ModelBackend() = default;

  // One chat turn. Thread-safety: the host may call chat() from several episodes at once; a backend
  // that cannot serve concurrent calls must serialise internally. Transport failures after the
  // backend's own retries come back as a Status (unavailable, deadline_exceeded, resource_exhausted);
  // they end the episode, never the run.
  virtual Result<ChatResponse> chat(const ChatRequest& request) noexcept = 0;

  // The model this backend speaks to, for results tables ("gpt-5", "scripted:demo").
  virtual std::string model_name() const noexcept = 0;
};

}  // namespace tritongym
