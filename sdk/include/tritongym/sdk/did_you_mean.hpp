// TritonGym SDK: "did you mean" suggestions for misspelt keys and ids (used by host and plugins alike).
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace tritongym {

// Edit distance counting an insertion, a deletion, a substitution or a swap of two neighbours as one
// (optimal string alignment), case-sensitive. O(|a|*|b|) time and memory.
inline size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

// The candidate closest to `word`, or "" when none is close enough to be a plausible typo
// (distance at most a third of the longer word, at least 1 and at most 3), or when one contains the other.
inline std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = std::string::npos;
  for (const auto& candidate : candidates) {
    size_t distance = edit_distance(word, candidate);
    bool contains = !word.empty() && (candidate.find(word) != std::string::npos ||
                                      word.find(candidate) != std::string::npos);
    size_t limit = std::clamp<size_t>(std::max(word.size(), candidate.size()) / 3, 1, 3);
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
