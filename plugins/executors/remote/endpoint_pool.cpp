#include "endpoint_pool.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <future>
#include <sstream>

namespace tritongym::remote {

const char* endpoint_state_name(EndpointState state) noexcept {
  switch (state) {
    case EndpointState::unknown: return "not asked yet";
    case EndpointState::ready: return "ready";
    case EndpointState::not_ready: return "not ready";
    case EndpointState::dead: return "dead";
    case EndpointState::refused: return "refusing the token";
  }
  return "unknown";
}

namespace {

int64_t integer_member(const boost::json::object& object, const char* key, int64_t fallback) {
  const auto* value = object.if_contains(key);
  if (!value) return fallback;
  if (value->is_int64()) return value->as_int64();
  if (value->is_uint64()) return static_cast<int64_t>(value->as_uint64());
  if (value->is_double()) return static_cast<int64_t>(value->as_double());
  return fallback;
}

std::string error_message(const boost::json::value& body) {
  if (!body.is_object()) return "";
  const auto* error = body.as_object().if_contains("error");
  if (!error || !error->is_object()) return "";
  const auto* message = error->as_object().if_contains("message");
  return message && message->is_string() ? std::string(message->as_string()) : "";
}

}  // namespace

HealthReport read_health(const ExchangeOutcome& outcome) {
  HealthReport report;
  if (!outcome.reply) {
    report.state = EndpointState::dead;
    report.detail = outcome.error;
    return report;
  }
  boost::system::error_code error;
  boost::json::value body = boost::json::parse(outcome.reply->body, error);
  const int status = outcome.reply->status;
  if (status == 401 || status == 403) {
    report.state = EndpointState::refused;
    report.detail = "HTTP " + std::to_string(status) + (error ? "" : ": " + error_message(body));
    return report;
  }
  std::string said;
  if (!error && body.is_object())
    if (const auto* value = body.as_object().if_contains("status"); value && value->is_string()) said = value->as_string();
  if (status != 200 || said != "ready") {
    report.state = EndpointState::not_ready;
    report.detail = !said.empty() ? said : "HTTP " + std::to_string(status) + (error ? "" : ": " + error_message(body));
    return report;
  }
  const auto& object = body.as_object();
  report.state = EndpointState::ready;
  report.detail = "ready";
  report.workers = std::max<int64_t>(integer_member(object, "workers", 1), 1);
  report.queue_depth = std::max<int64_t>(integer_member(object, "queue_depth", 0), 0);
  report.queue_capacity = integer_member(object, "queue_capacity", 0);
  if (const auto* executor = object.if_contains("executor")) {
    if (executor->is_string()) report.executor = executor->as_string();
    if (executor->is_object()) {
      const auto& described = executor->as_object();
      if (const auto* id = described.if_contains("id"); id && id->is_string()) report.executor = id->as_string();
      if (const auto* performance = described.if_contains("reports_performance"); performance && performance->is_bool())
        report.reports_performance = performance->as_bool();
    }
  }
  if (const auto* performance = object.if_contains("reports_performance"); performance && performance->is_bool())
    report.reports_performance = performance->as_bool();
  return report;
}

EndpointLease::~EndpointLease() {
  if (pool_) pool_->release(address_);
}

EndpointPool::EndpointPool(Lister lister, Prober prober, PoolTimings timings, Notice notice)
    : lister_(std::move(lister)), prober_(std::move(prober)), timings_(timings), notice_(std::move(notice)) {}

EndpointPool::~EndpointPool() {
  if (health_thread_.joinable()) {
    health_thread_.request_stop();
    changed_.notify_all();
    health_thread_.join();
  }
}

void EndpointPool::start() {
  std::call_once(started_, [this] {
    refresh();
    health_thread_ = std::jthread([this](std::stop_token stop) { health_loop(stop); });
  });
}

void EndpointPool::health_loop(std::stop_token stop) {
  const auto interval = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(timings_.health_interval_s));
  while (!stop.stop_requested()) {
    {
      std::unique_lock lock(mutex_);
      changed_.wait_until(lock, stop, Clock::now() + interval, [] { return false; });
    }
    if (stop.stop_requested()) return;
    refresh();
  }
}

void EndpointPool::refresh() {
  std::lock_guard one_round(refresh_mutex_);
  auto listed = lister_();
  std::vector<EndpointAddress> to_probe;
  {
    std::lock_guard lock(mutex_);
    if (!listed) {
      listing_error_ = listed.status().message();  // keep the endpoints known so far
    } else {
      listing_error_.clear();
      for (auto& [address, endpoint] : endpoints_) endpoint.listed = false;
      for (const auto& address : *listed) {
        auto [it, inserted] = endpoints_.try_emplace(address);
        if (inserted) it->second.address = address;
        it->second.listed = true;
      }
    }
    for (const auto& [address, endpoint] : endpoints_)
      if (endpoint.listed) to_probe.push_back(address);
  }
  // All at once: a machine that vanished costs one connect timeout per round, not one per endpoint.
  std::vector<std::future<ExchangeOutcome>> answers;
  for (const auto& address : to_probe)
    answers.push_back(std::async(std::launch::async, [this, address] { return prober_(address); }));
  std::vector<HealthReport> reports;
  for (auto& answer : answers) reports.push_back(read_health(answer.get()));
  std::vector<std::string> notices;
  {
    std::lock_guard lock(mutex_);
    for (size_t i = 0; i < to_probe.size(); ++i)
      if (auto it = endpoints_.find(to_probe[i]); it != endpoints_.end())
        if (std::string changed = apply(it->second, reports[i]); !changed.empty()) notices.push_back(changed);
  }
  changed_.notify_all();
  if (notice_)
    for (const auto& notice : notices) notice_(notice);
}

std::string EndpointPool::apply(Endpoint& endpoint, const HealthReport& report) {
  const EndpointState before = endpoint.state;
  const std::string name = endpoint.address.text();
  if (report.state == EndpointState::dead) {
    // One failed probe may be a hiccup; a second in a row takes a ready endpoint out, and the evaluations waiting
    // on it (their leases' takeouts no longer match) move on to another.
    endpoint.detail = report.detail;
    ++endpoint.failed_probes;
    if (endpoint.failed_probes < timings_.dead_after_failed_probes && before == EndpointState::ready) return "";
    const bool confirmed = endpoint.failed_probes == timings_.dead_after_failed_probes;
    if (confirmed || (before != EndpointState::dead && endpoint.failed_probes < timings_.dead_after_failed_probes))
      ++endpoint.takeouts;
    endpoint.state = EndpointState::dead;
    if (before == EndpointState::unknown) return name + " does not answer (" + report.detail + ")";
    return confirmed ? name + " taken out: its health check failed " + std::to_string(endpoint.failed_probes) +
                           " times in a row (" + report.detail + ")"
                     : "";
  }
  endpoint.failed_probes = 0;
  endpoint.state = report.state;
  endpoint.detail = report.detail;
  if (report.state == EndpointState::ready) {
    endpoint.health = report;
    endpoint.in_flight_at_report = endpoint.in_flight;
  }
  if (before == report.state) return "";
  if (report.state == EndpointState::ready)
    return name + (before == EndpointState::unknown ? " is ready" : " is ready again") + " (" +
           (report.executor.empty() ? "" : report.executor + ", ") + std::to_string(report.workers) + " workers)";
  return name + " is " + endpoint_state_name(report.state) + " (" + report.detail + ")";
}

std::optional<EndpointLease> EndpointPool::pick() {
  std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  Endpoint* best = nullptr;
  double best_load = 0.0;
  for (auto& [address, endpoint] : endpoints_) {
    if (!endpoint.listed || endpoint.state != EndpointState::ready || endpoint.busy_until > now) continue;
    // What waits there per worker: the reported queue plus what we sent since that report, and never less than
    // what we have there now (a queue depth may leave out the evaluations that are running).
    const int64_t sent_since = std::max<int64_t>(endpoint.in_flight - endpoint.in_flight_at_report, 0);
    const int64_t waiting = std::max(endpoint.health.queue_depth + sent_since, endpoint.in_flight);
    const double load = static_cast<double>(waiting) / static_cast<double>(std::max<int64_t>(endpoint.health.workers, 1));
    if (!best || load < best_load || (load == best_load && endpoint.last_picked < best->last_picked)) {
      best = &endpoint;
      best_load = load;
    }
  }
  if (!best) return std::nullopt;
  ++best->in_flight;
  best->last_picked = now;
  return EndpointLease(this, best->address, best->takeouts);
}

void EndpointPool::release(const EndpointAddress& address) {
  {
    std::lock_guard lock(mutex_);
    if (auto it = endpoints_.find(address); it != endpoints_.end()) {
      --it->second.in_flight;
      it->second.in_flight_at_report = std::min(it->second.in_flight_at_report, it->second.in_flight);
    }
  }
  changed_.notify_all();
}

void EndpointPool::wait_for_change(Clock::time_point until) {
  std::unique_lock lock(mutex_);
  Clock::time_point wake = until;
  for (const auto& [address, endpoint] : endpoints_)
    if (endpoint.busy_until > Clock::now()) wake = std::min(wake, endpoint.busy_until);
  changed_.wait_until(lock, wake);
}

void EndpointPool::lost(const EndpointLease& lease, const std::string& why) {
  std::lock_guard lock(mutex_);
  if (auto it = endpoints_.find(lease.address()); it != endpoints_.end()) {
    it->second.state = EndpointState::dead;
    it->second.detail = why;
  }
}

void EndpointPool::busy(const EndpointLease& lease, double seconds, const std::string& why) {
  std::lock_guard lock(mutex_);
  if (auto it = endpoints_.find(lease.address()); it != endpoints_.end()) {
    it->second.busy_until = std::max(it->second.busy_until,
                                     Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                        std::chrono::duration<double>(seconds)));
    it->second.detail = why;
  }
}

void EndpointPool::refused(const EndpointLease& lease, const std::string& why) {
  std::lock_guard lock(mutex_);
  if (auto it = endpoints_.find(lease.address()); it != endpoints_.end()) {
    it->second.state = EndpointState::refused;
    it->second.detail = why;
  }
}

bool EndpointPool::taken_out_since(const EndpointLease& lease) const {
  std::lock_guard lock(mutex_);
  auto it = endpoints_.find(lease.address());
  return it == endpoints_.end() || it->second.takeouts != lease.takeouts();
}

bool EndpointPool::any_ready() const {
  std::lock_guard lock(mutex_);
  for (const auto& [address, endpoint] : endpoints_)
    if (endpoint.listed && endpoint.state == EndpointState::ready) return true;
  return false;
}

bool EndpointPool::all_refused() const {
  std::lock_guard lock(mutex_);
  bool any = false;
  for (const auto& [address, endpoint] : endpoints_) {
    if (!endpoint.listed) continue;
    if (endpoint.state != EndpointState::refused) return false;
    any = true;
  }
  return any;
}

std::vector<EndpointView> EndpointPool::endpoints() const {
  std::lock_guard lock(mutex_);
  std::vector<EndpointView> views;
  const auto now = Clock::now();
  for (const auto& [address, endpoint] : endpoints_) {
    if (!endpoint.listed) continue;
    EndpointView view;
    view.address = address;
    view.state = endpoint.state;
    view.detail = endpoint.detail;
    view.workers = endpoint.health.workers;
    view.queue_depth = endpoint.health.queue_depth;
    view.in_flight = endpoint.in_flight;
    view.executor = endpoint.health.executor;
    view.reports_performance = endpoint.health.reports_performance;
    view.busy = endpoint.busy_until > now;
    views.push_back(std::move(view));
  }
  return views;
}

std::string EndpointPool::describe() const {
  std::ostringstream text;
  auto views = endpoints();
  if (views.empty()) text << "no endpoint listed";
  for (size_t i = 0; i < views.size(); ++i) {
    const auto& view = views[i];
    text << (i ? "; " : "") << view.address.text() << " " << endpoint_state_name(view.state);
    if (view.state == EndpointState::ready)
      text << " (queue " << view.queue_depth << ", " << view.workers << " workers" << (view.busy ? ", busy: " + view.detail : "")
           << ")";
    else if (!view.detail.empty() && view.detail != endpoint_state_name(view.state))
      text << " (" << view.detail << ")";
  }
  std::lock_guard lock(mutex_);
  if (!listing_error_.empty()) text << "; " << listing_error_;
  return text.str();
}

}  // namespace tritongym::remote
