// TritonGym SDK: "did you mean" suggestions for misspelt keys and ids (used by host and plugins alike).
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace tritongym {

// Levenshtein distance, case-sensitive. O(|a|*|b|) time, O(|b|) memory.
inline size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The candidate closest to `word`, or "" when none is close enough to be a plausible typo
// (distance at most a third of the longer word, and at most 3), or when one contains the other.
inline std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = std::string::npos;
  for (const auto& candidate : candidates) {
    size_t distance = edit_distance(word, candidate);
    bool contains = !word.empty() && (candidate.find(word) != std::string::npos ||
                                      word.find(candidate) != std::string::npos);
    size_t limit = std::min<size_t>(3, std::max(word.size(), candidate.size()) / 3);
    if ((distance <= limit || contains) && distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

// " (did you mean 'x'?)" or "".
inline std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  std::string match = closest_match(word, candidates);
  return match.empty() ? std::string() : " (did you mean '" + match + "'?)";
}

}  // namespace tritongym
