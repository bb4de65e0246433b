// What a run shows while it works: on a terminal, one status line redrawn in place; elsewhere (a log
// file, CI), one plain line per finished episode.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "results/records.hpp"

namespace tritongym::run {

class ProgressDisplay {
 public:
  // `total`: episodes this invocation must finish (a resume counts only the remaining ones);
  // `earlier`: the episodes finished before it (counted in every total shown: episodes, passes, tokens,
  // dollars, GPU-seconds).
  ProgressDisplay(int64_t total, const std::vector<results::EpisodeRecord>& earlier, bool terminal);

  void episode_finished(const results::EpisodeRecord& record);
  void note(const std::string& line);  // a message that must not be overwritten (interrupts)
  void finish();                        // ends the status line

  int64_t done() const;
  int64_t passed() const;

 private:
  std::string status_line() const;
  void redraw();
  mutable std::mutex mutex_;
  int64_t total_ = 0, done_ = 0, passed_ = 0, already_done_ = 0, already_passed_ = 0;
  int64_t input_tokens_ = 0, output_tokens_ = 0;
  double dollars_ = 0.0, gpu_seconds_ = 0.0;
  bool terminal_ = false;
  bool line_open_ = false;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

}  // namespace tritongym::run
