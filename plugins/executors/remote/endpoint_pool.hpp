// The `tritongym serve` endpoints of one remote executor, and what is known of each: ready or not (from
// /v1/health, asked again every health interval by a thread of its own), its queue depth and workers, our own
// evaluations waiting there, and whether it was taken out (dead, busy, refusing the token). Evaluations go to
// the ready endpoint with the least waiting per worker; a dead one is probed on every round and comes back in
// when it answers ready.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "http_exchange.hpp"
#include "remote_config.hpp"

namespace tritongym::remote {

using Clock = std::chrono::steady_clock;

enum class EndpointState { unknown, ready, not_ready, dead, refused };
const char* endpoint_state_name(EndpointState state) noexcept;

// What /v1/health said, read from its reply.
struct HealthReport {
  EndpointState state = EndpointState::unknown;
  std::string detail;            // "ready", "starting", "draining", "HTTP 401: ...", "connection refused"
  int64_t workers = 1;
  int64_t queue_depth = 0;
  int64_t queue_capacity = 0;
  std::string executor;          // the executor id the server runs, when it says
  std::optional<bool> reports_performance;
};
HealthReport read_health(const ExchangeOutcome& outcome);

// One endpoint as the pool sees it, copied out for messages and info().
struct EndpointView {
  EndpointAddress address;
  EndpointState state = EndpointState::unknown;
  std::string detail;
  int64_t workers = 1;
  int64_t queue_depth = 0;
  int64_t in_flight = 0;
  std::string executor;
  std::optional<bool> reports_performance;
  bool busy = false;  // answered 429 or 503 and not to be asked again before its Retry-After
};

class EndpointPool;

// An evaluation's hold on one endpoint: counted in its load while it lives.
class EndpointLease {
 public:
  EndpointLease(EndpointPool* pool, EndpointAddress address, uint64_t takeouts)
      : pool_(pool), address_(std::move(address)), takeouts_(takeouts) {}
  EndpointLease(EndpointLease&& other) noexcept
      : pool_(std::exchange(other.pool_, nullptr)), address_(std::move(other.address_)), takeouts_(other.takeouts_) {}
  EndpointLease(const EndpointLease&) = delete;
  EndpointLease& operator=(const EndpointLease&) = delete;
  EndpointLease& operator=(EndpointLease&&) = delete;
  ~EndpointLease();
  const EndpointAddress& address() const { return address_; }
  uint64_t takeouts() const { return takeouts_; }

 private:
  EndpointPool* pool_;
  EndpointAddress address_;
  uint64_t takeouts_;
};

struct PoolTimings {
  double health_interval_s = 2.0;
  int dead_after_failed_probes = 2;  // a probe that fails this many times in a row takes the endpoint out
};

class EndpointPool {
 public:
  using Lister = std::function<Result<std::vector<EndpointAddress>>()>;
  using Prober = std::function<ExchangeOutcome(const EndpointAddress&)>;
  // Told, outside the pool's lock, when an endpoint is taken out or comes back ("127.0.0.1:4001 is ready again").
  using Notice = std::function<void(const std::string&)>;

  EndpointPool(Lister lister, Prober prober, PoolTimings timings, Notice notice = nullptr);
  ~EndpointPool();  // stops the health thread
  EndpointPool(const EndpointPool&) = delete;
  EndpointPool& operator=(const EndpointPool&) = delete;

  // One health round now (lists the endpoints again, probes them all at once), then, the first time, starts the
  // thread that repeats it every health interval.
  void start();
  void refresh();

  // The ready endpoint with the least waiting per worker (reported queue depth plus what we sent since), not
  // busy; nullopt when there is none.
  std::optional<EndpointLease> pick();
  // Blocks until the next health round ends, an endpoint's busy time ends, or `until`, whichever is first.
  void wait_for_change(Clock::time_point until);

  // What an evaluation found.
  void lost(const EndpointLease& lease, const std::string& why);          // connection failed: out until a probe says ready
  void busy(const EndpointLease& lease, double seconds, const std::string& why);  // 429, 503: not picked for `seconds`
  void refused(const EndpointLease& lease, const std::string& why);       // 401: out until a probe is accepted
  // Whether the endpoint was taken out by a failed probe after the lease was given: its evaluation is lost.
  bool taken_out_since(const EndpointLease& lease) const;

  bool any_ready() const;
  bool all_refused() const;  // every endpoint refuses the token: waiting will not help
  std::vector<EndpointView> endpoints() const;
  std::string describe() const;  // "a:1 ready (queue 0, 2 workers); b:2 dead (connection refused)"

 private:
  friend class EndpointLease;
  struct Endpoint {
    EndpointAddress address;
    bool listed = true;
    EndpointState state = EndpointState::unknown;
    std::string detail = "not asked yet";
    HealthReport health;
    int64_t in_flight = 0;
    int64_t in_flight_at_report = 0;
    Clock::time_point busy_until{};
    Clock::time_point last_picked{};
    int failed_probes = 0;
    uint64_t takeouts = 0;
  };
  void release(const EndpointAddress& address);
  // Returns what changed, for the notice ("" when nothing did).
  std::string apply(Endpoint& endpoint, const HealthReport& report);
  void health_loop(std::stop_token stop);

  Lister lister_;
  Prober prober_;
  PoolTimings timings_;
  Notice notice_;
  mutable std::mutex mutex_;
  std::condition_variable_any changed_;
  std::map<EndpointAddress, Endpoint> endpoints_;
  std::string listing_error_;
  std::mutex refresh_mutex_;  // one round at a time
  std::once_flag started_;
  std::jthread health_thread_;
};

}  // namespace tritongym::remote
