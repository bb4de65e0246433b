#include "remote_executor.hpp"

#include <boost/json.hpp>

#include <deque>
#include <random>
#include <sstream>
#include <thread>

#include "http_exchange.hpp"
#include "retry_timing.hpp"
#include "tritongym/sdk/result_json.hpp"

namespace tritongym::remote {

namespace {

constexpr const char* kCudaExecutor = "tritongym.executor.triton-cuda";
constexpr size_t kRetriesKept = 20;  // the record keeps the last ones; `attempts` counts them all

Clock::duration seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

std::string number_text(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

// The server's sentence from an error body ({"error": {"status", "message"}}), else the body's start.
std::string server_message(const HttpReply& reply) {
  boost::system::error_code error;
  boost::json::value body = boost::json::parse(reply.body, error);
  if (!error && body.is_object())
    if (const auto* inner = body.as_object().if_contains("error"); inner && inner->is_object())
      if (const auto* message = inner->as_object().if_contains("message"); message && message->is_string())
        return std::string(message->as_string());
  return reply.body.substr(0, 200);
}

StatusCode refusal_code(int status) {
  switch (status) {
    case 400:
    case 413: return StatusCode::invalid_argument;
    case 404: return StatusCode::not_found;
    default: return StatusCode::internal;
  }
}

// What was tried before the evaluation was judged, or why it was not.
struct AttemptLog {
  int64_t attempts = 0;        // exchanges started
  int failed = 0;              // counted against retry.max_attempts
  std::deque<std::string> retried;  // "127.0.0.1:4001: connection refused", the last kRetriesKept
  void add(const std::string& endpoint, const std::string& what) {
    retried.push_back(endpoint + ": " + what);
    if (retried.size() > kRetriesKept) retried.pop_front();
  }
  std::string summary() const {
    std::string text;
    for (const auto& line : retried) text += (text.empty() ? "" : "; ") + line;
    return text.empty() ? "nothing was tried" : text;
  }
};

// The server's result JSON as an EvaluationResult, with the executor's record and where it was judged.
Result<EvaluationResult> read_result(const HttpReply& reply, const std::string& endpoint, const AttemptLog& log) {
  boost::system::error_code error;
  boost::json::value body = boost::json::parse(reply.body, error);
  if (error) return Status(StatusCode::internal, endpoint + " answered a result that is not JSON: " + error.message());
  auto result = evaluation_from_json(body);
  if (!result) return Status(StatusCode::internal, endpoint + " answered a result that cannot be read: " + result.status().message());
  boost::json::value record = boost::json::parse(result->record_json, error);
  if (error || !record.is_object()) record = boost::json::object();
  boost::json::object remote{{"endpoint", endpoint}, {"attempts", log.attempts}};
  const auto& object = body.as_object();
  for (const char* key : {"id", "executor", "endpoint"})
    if (const auto* value = object.if_contains(key); value && value->is_string())
      remote[std::string(key) == "id" ? "evaluation_id" : std::string("server_") + key] = *value;
  boost::json::array retried;
  for (const auto& line : log.retried) retried.emplace_back(line);
  remote["retried"] = std::move(retried);
  record.as_object()["remote"] = std::move(remote);
  result->record_json = boost::json::serialize(record);
  return result;
}

}  // namespace

std::string evaluation_body(const EvaluationRequest& request) {
  const std::string stage = request.stage == EvaluationStage::final_score ? "final" : stage_name(request.stage);
  return boost::json::serialize(boost::json::object{{"task", request.task.id},
                                                    {"code", request.source_code},
                                                    {"stage", stage},
                                                    {"seeds", request.seeds_per_shape},
                                                    {"timeout", request.timeout_s},
                                                    {"wait", true}});
}

RemoteExecutor::RemoteExecutor(RemoteConfig config, std::string token, HostLog* log)
    : config_(std::move(config)), token_(std::move(token)), log_(log) {
  PoolTimings timings;
  timings.health_interval_s = config_.health_interval_seconds;
  pool_ = std::make_unique<EndpointPool>([this] { return read_endpoints(config_); },
                                         [this](const EndpointAddress& address) { return probe(address); }, timings,
                                         [this](const std::string& notice) { this->log(LogLevel::info, "remote: " + notice); });
}

void RemoteExecutor::log(LogLevel level, const std::string& message) const {
  if (log_) log_->write(level, message);
}

ExchangeOutcome RemoteExecutor::probe(const EndpointAddress& address) const {
  HttpCall call;
  call.endpoint = address;
  call.target = "/v1/health";
  call.bearer_token = token_;
  call.connect_timeout_s = config_.connect_timeout_seconds;
  call.timeout_s = config_.connect_timeout_seconds + 5.0;
  return exchange(call);
}

Status RemoteExecutor::availability() const noexcept {
  try {
    pool_->start();
    const auto deadline = Clock::now() + seconds(config_.ready_timeout_seconds);
    while (!pool_->any_ready()) {
      if (pool_->all_refused())
        return Status(StatusCode::unavailable, "every endpoint refuses the token (set " + config_.token_env +
                                                   " or token_file to the servers' token): " + pool_->describe());
      if (Clock::now() >= deadline)
        return Status(StatusCode::unavailable, "no `tritongym serve` endpoint is ready after " +
                                                   number_text(config_.ready_timeout_seconds) + " s: " + pool_->describe());
      pool_->wait_for_change(std::min(deadline, Clock::now() + seconds(config_.health_interval_seconds)));
    }
    return Status::ok();
  } catch (const std::exception& error) {
    return Status(StatusCode::internal, std::string("tritongym.executor.remote: ") + error.what());
  }
}

ExecutorInfo RemoteExecutor::info() const noexcept {
  ExecutorInfo info;
  std::string ready;
  int64_t slots = 0;
  bool performance = true;
  int judged_by = 0;
  for (const auto& view : pool_->endpoints()) {
    if (view.state != EndpointState::ready) continue;
    slots += view.workers;
    ready += (ready.empty() ? "" : ", ") + view.address.text() + (view.executor.empty() ? "" : " (" + view.executor + ")");
    performance = performance && view.reports_performance.value_or(view.executor == kCudaExecutor);
    ++judged_by;
  }
  info.device = judged_by ? "remote: " + ready : "remote: no endpoint ready (" + pool_->describe() + ")";
  info.reports_performance = config_.reports_performance.value_or(judged_by > 0 && performance);
  info.parallel_slots = std::max<int64_t>(slots, 1);
  return info;
}

Result<EvaluationResult> RemoteExecutor::evaluate(const EvaluationRequest& request) noexcept {
  try {
    pool_->start();  // where availability() has not: the first health round, then its thread
    return evaluate_at_some_endpoint(request);
  } catch (const std::exception& error) {
    return Status(StatusCode::internal, std::string("tritongym.executor.remote: ") + error.what());
  }
}

Result<EvaluationResult> RemoteExecutor::evaluate_at_some_endpoint(const EvaluationRequest& request) {
  const std::string body = evaluation_body(request);
  const auto& retry = config_.retry;
  const auto busy_deadline = Clock::now() + seconds(retry.max_busy_wait_seconds);
  std::mt19937 random(std::random_device{}());
  AttemptLog attempts;
  int busy_answers = 0;
  auto gave_up = [&](const std::string& why) {
    return Status(StatusCode::unavailable, "tritongym.executor.remote: " + why + " (tried: " + attempts.summary() +
                                               "; endpoints now: " + pool_->describe() + ")");
  };
  while (true) {
    std::optional<EndpointLease> lease = pool_->pick();
    if (!lease) {
      if (pool_->all_refused()) return gave_up("every endpoint refuses the token");
      if (Clock::now() >= busy_deadline)
        return gave_up("no endpoint took the evaluation within " + number_text(retry.max_busy_wait_seconds) + " s");
      pool_->wait_for_change(std::min(busy_deadline, Clock::now() + seconds(config_.health_interval_seconds)));
      continue;
    }
    const std::string endpoint = lease->address().text();
    HttpCall call;
    call.endpoint = lease->address();
    call.method = "POST";
    call.target = "/v1/evaluations";
    call.body = body;
    call.bearer_token = token_;
    call.connect_timeout_s = config_.connect_timeout_seconds;
    call.timeout_s = config_.timeout_seconds;
    call.abandon = [&] { return pool_->taken_out_since(*lease); };
    ++attempts.attempts;
    ExchangeOutcome outcome = exchange(call);

    if (!outcome.reply) {
      // The evaluation is lost with the exchange; it is idempotent, so it is asked again, elsewhere if possible.
      attempts.add(endpoint, outcome.error);
      if (outcome.failure == ExchangeFailure::timed_out)
        pool_->busy(*lease, retry.max_delay_seconds, "an evaluation timed out there");
      else if (outcome.failure != ExchangeFailure::abandoned)
        pool_->lost(*lease, outcome.error);
      log(LogLevel::warn, "remote: evaluation of " + request.task.id + " at " + endpoint + " failed (" + outcome.error +
                              "); asking again");
      if (++attempts.failed >= retry.max_attempts)
        return gave_up("the evaluation failed " + std::to_string(attempts.failed) + " times");
      lease.reset();
      if (!pool_->any_ready())
        pool_->wait_for_change(Clock::now() + seconds(backoff_seconds(attempts.failed, retry.initial_delay_seconds,
                                                                      retry.max_delay_seconds, random)));
      continue;
    }

    const HttpReply& reply = *outcome.reply;
    if (reply.status == 200) return read_result(reply, endpoint, attempts);
    const std::string said = "HTTP " + std::to_string(reply.status) + ": " + server_message(reply);
    attempts.add(endpoint, said);
    if (reply.status == 429 || reply.status == 503) {
      // Full or not ready (starting, draining): not asked again before its Retry-After; another may take it now.
      const double wait = std::min(retry_after_seconds(reply.headers)
                                       .value_or(backoff_seconds(++busy_answers, retry.initial_delay_seconds,
                                                                 retry.max_delay_seconds, random)),
                                   retry.max_delay_seconds);
      pool_->busy(*lease, wait, said);
      continue;
    }
    if (reply.status == 401 || reply.status == 403) {
      pool_->refused(*lease, said);
      log(LogLevel::warn, "remote: " + endpoint + " refuses the token (" + said + "); it is left out");
      continue;
    }
    if (reply.status >= 500 || reply.status == 408) {
      if (++attempts.failed >= retry.max_attempts)
        return gave_up("the evaluation failed " + std::to_string(attempts.failed) + " times");
      pool_->busy(*lease,
                  backoff_seconds(attempts.failed, retry.initial_delay_seconds, retry.max_delay_seconds, random), said);
      continue;
    }
    // 400, 404, 405, 413: the request itself is refused; asking again would get the same answer.
    return Status(refusal_code(reply.status), endpoint + " refused the evaluation of " + request.task.id + " (" + said + ")");
  }
}

}  // namespace tritongym::remote
