// An EpisodeResult (what run_episode returns) as the store's records: the episode row, its transcript
// and its final evaluation. docs/results-store.md says what each field means.
#pragma once

#include <string>
#include <vector>

#include "episode/episode_runner.hpp"
#include "results/records.hpp"
#include "store/run_store.hpp"

namespace tritongym::run {

struct ConvertedEpisode {
  results::EpisodeRecord record;
  std::vector<results::TranscriptEntry> transcript;
  std::vector<store::EvaluationRow> evaluations;  // the final score, when there was one
};

// Tools whose calls count as attempts (they evaluate a candidate).
bool is_evaluation_tool(const std::string& name);

ConvertedEpisode convert_episode(const results::EpisodeKey& key, const TaskSpec& task,
                                 const episode::EpisodeResult& result, const std::string& started_at,
                                 const std::string& finished_at, double wall_seconds);

// ISO 8601 UTC, second resolution: "2026-11-30T09:07:51Z".
std::string utc_now();

}  // namespace tritongym::run
