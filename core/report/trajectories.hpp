// The JSONL export of a run's trajectories: one JSON object per line, one line per episode, with the
// episode's identity, outcome, spending and its whole transcript (docs/report.md). For training and
// analysis tools that read trajectories rather than metrics.
#pragma once

#include <string>
#include <vector>

#include "results/records.hpp"

namespace tritongym::report {

// One line (no trailing newline) for one episode.
std::string trajectory_line(const results::EpisodeRecord& episode, const std::vector<results::TranscriptEntry>& transcript);

}  // namespace tritongym::report
