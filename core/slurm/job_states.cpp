#include "slurm/job_states.hpp"

#include <algorithm>
#include <set>
#include <sstream>

namespace tritongym::slurm {

namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator)) parts.push_back(part);
  if (!text.empty() && text.back() == separator) parts.emplace_back();
  return parts;
}

std::optional<int64_t> to_index(const std::string& text) {
  if (text.empty() || text.size() > 12 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stoll(text);
}

// "5-7,9%2" (the throttle after % dropped) -> 5, 6, 7, 9.
std::vector<int64_t> expand_ranges(std::string text) {
  text = text.substr(0, text.find('%'));
  std::vector<int64_t> indices;
  for (const auto& range : split(text, ',')) {
    size_t dash = range.find('-');
    auto first = to_index(range.substr(0, dash));
    auto last = dash == std::string::npos ? first : to_index(range.substr(dash + 1));
    if (!first || !last || *last < *first || *last - *first > 1'000'000) continue;
    for (int64_t index = *first; index <= *last; ++index) indices.push_back(index);
  }
  return indices;
}

std::string first_word(const std::string& text) { return text.substr(0, text.find(' ')); }

}  // namespace

bool is_active_state(const std::string& state) {
  static const std::set<std::string> active = {"PENDING",    "RUNNING",      "SUSPENDED",   "COMPLETING",
                                               "CONFIGURING", "REQUEUED",    "REQUEUE_HOLD", "REQUEUE_FED",
                                               "RESIZING",   "SIGNALING",    "STAGE_OUT",   "STOPPED"};
  return active.count(state) > 0;
}

void JobStates::put(const JobRef& job, JobState state) {
  auto found = states_.find(job);
  if (found != states_.end() && found->second.source == "squeue" && state.source != "squeue") return;
  states_[job] = std::move(state);
}

void JobStates::add_queue_lines(const std::vector<std::string>& lines) {
  for (const auto& line : lines) {
    auto fields = split(line, '|');
    if (fields.size() < 4 || fields[1].empty()) continue;
    JobRef job{fields[1], to_index(fields[2])};  // TASK is "N/A" for a plain job
    put(job, JobState{first_word(fields[3]), fields.size() > 4 ? fields[4] : "", "squeue"});
  }
}

void JobStates::add_accounting_lines(const std::vector<std::string>& lines) {
  for (const auto& line : lines) {
    auto fields = split(line, '|');
    if (fields.size() < 2 || fields[0].empty()) continue;
    const std::string& id = fields[0];
    JobState state{first_word(fields[1]), "", "sacct"};
    size_t underscore = id.find('_');
    if (underscore == std::string::npos) {
      if (id.find_first_not_of("0123456789") == std::string::npos) put(JobRef{id, std::nullopt}, state);
      continue;  // steps (123.batch) and heterogeneous parts (123+0) are not jobs of ours
    }
    std::string job = id.substr(0, underscore), tasks = id.substr(underscore + 1);
    if (!tasks.empty() && tasks.front() == '[' && tasks.back() == ']') {
      for (int64_t index : expand_ranges(tasks.substr(1, tasks.size() - 2))) put(JobRef{job, index}, state);
    } else if (auto index = to_index(tasks)) {
      put(JobRef{job, index}, state);
    }
  }
}

const JobState* JobStates::find(const JobRef& job) const {
  auto found = states_.find(job);
  return found == states_.end() ? nullptr : &found->second;
}

bool JobStates::active(const JobRef& job) const {
  const JobState* state = find(job);
  return state && is_active_state(state->state);
}

}  // namespace tritongym::slurm
