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

  // Whether a replay record may answer for this backend when a run is resumed. False for a backend
  // whose answers cost nothing and come from files the request does not contain (the oracle backend
  // reads the task's oracle.py): after such a file changes, a recorded answer would be a stale one. Its
  // calls are then always sent, and still recorded.
  virtual bool replayable() const noexcept { return true; }
};

}  // namespace tritongym
