// Record and replay of model calls, around any backend. In `record` mode every request and its
// answer are appended to a JSONL file; in `replay` mode answers come only from that file (no
// network, no key); in `auto` mode recorded requests are answered from the file and the others are
// sent and recorded, so a resumed or re-scored run never pays twice for a finished call, and a paper's
// transcripts can be shipped and re-run. A backend that is not replayable (ModelBackend::replayable: the
// oracle backend, whose answer is a file that may have changed) is always asked in auto mode.
//
// Replay is a core decorator rather than a backend plugin: it wraps whichever backend the run file
// names, which a plugin (with no access to the registry) could not construct.
#pragma once

#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "tritongym/sdk/backend.hpp"

namespace tritongym::replay {

enum class ReplayMode { record, replay, automatic };
Result<ReplayMode> parse_mode(const std::string& name);  // "record", "replay", "auto"

// Everything that determines an answer (messages, tools, sampling settings, task and sample), as
// canonical JSON text: the record's key.
std::string canonical_request(const ChatRequest& request);

class ReplayBackend final : public ModelBackend {
 public:
  // Opens (creating if needed) the record at `path`. `inner` may be null in replay mode only.
  // A torn last line (a crash mid-write) is ignored; any other unreadable line is an error naming it.
  static Result<std::unique_ptr<ReplayBackend>> open(const std::string& path, ReplayMode mode,
                                                     std::unique_ptr<ModelBackend> inner, std::string model_name);

  Result<ChatResponse> chat(const ChatRequest& request) noexcept override;
  std::string model_name() const noexcept override { return model_name_; }

  size_t recorded_calls() const;     // entries in the record
  size_t answers_from_record() const;  // calls answered from it since opening
  size_t calls_sent() const;          // calls that went to the inner backend

 private:
  ReplayBackend() = default;
  std::string path_;
  ReplayMode mode_ = ReplayMode::automatic;
  std::unique_ptr<ModelBackend> inner_;
  std::string model_name_;
  mutable std::mutex mutex_;
  std::map<std::string, ChatResponse> record_;
  std::ofstream appender_;
  size_t from_record_ = 0;
  size_t sent_ = 0;
};

}  // namespace tritongym::replay
