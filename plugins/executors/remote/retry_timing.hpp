// How long an evaluation waits before it asks again: the server's Retry-After when it gave one, else an
// exponential backoff with jitter; both capped.
#pragma once

#include <map>
#include <optional>
#include <random>
#include <string>

namespace tritongym::remote {

// Retry-After as seconds from now: delta-seconds ("3", "1.5") or an HTTP date; nullopt when absent or unreadable.
std::optional<double> retry_after_seconds(const std::map<std::string, std::string>& headers);

// Before retry number `attempt` (1-based): initial * 2^(attempt-1), capped at `max_s`, times a jitter in [0.5, 1].
double backoff_seconds(int attempt, double initial_s, double max_s, std::mt19937& random);

}  // namespace tritongym::remote
