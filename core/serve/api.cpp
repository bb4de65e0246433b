#include "serve/api.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cmath>
#include <exception>

#include "tasks/task_json.hpp"

namespace tritongym::serve {
namespace {

namespace http = boost::beast::http;

constexpr const char* kRoutes =
    "POST /v1/evaluations, GET /v1/evaluations/{id}, GET /v1/tasks, GET /v1/health, GET /metrics";
constexpr const char* kEvaluationsPath = "/v1/evaluations";

HttpResponse json_response(int status, const boost::json::value& body) {
  HttpResponse response{static_cast<http::status>(status), 11};
  response.set(http::field::content_type, "application/json");
  response.body() = boost::json::serialize(body) + "\n";
  return response;
}

HttpResponse error_response(int status, const std::string& message) {
  return json_response(status, {{"error", {{"status", status}, {"message", message}}}});
}

// The path of a target, without its query.
std::string path_of(const HttpRequest& request) {
  std::string target(request.target());
  return target.substr(0, target.find('?'));
}

}  // namespace

Api::Api(Evaluator& evaluator, EvaluationQueue& queue, ServeMetrics& metrics, std::optional<BearerToken> token,
         ApiLimits limits)
    : evaluator_(evaluator), queue_(queue), metrics_(metrics), token_(std::move(token)), limits_(limits) {}

void Api::handle(HttpRequest request, Respond respond) noexcept {
  // Every answer is counted by its status and logged (the method, the path and the status: never a header).
  const auto started = std::chrono::steady_clock::now();
  auto counted = [this, respond = std::move(respond), started, method = std::string(request.method_string()),
                  path = path_of(request)](HttpResponse response) {
    metrics_.count_request(response.result_int());
    spdlog::debug("serve: {} {} {} in {:.3f} s", method, path, response.result_int(),
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    respond(std::move(response));
  };
  try {
    route(request, counted);
  } catch (const std::exception& error) {
    // An answer that was not sent yet: a bug of the server's, said as a 500, and the server goes on.
    spdlog::error("serve: {} {} failed: {}", std::string(request.method_string()), path_of(request), error.what());
    counted(error_response(500, "internal error answering " + std::string(request.method_string()) + " " +
                                    path_of(request) + ": " + error.what()));
  }
}

HttpResponse Api::too_large(const HttpRequest& header, size_t limit_bytes) noexcept {
  metrics_.count_request(413);
  return error_response(413, "the body of " + std::string(header.method_string()) + " " + path_of(header) +
                                 " is over the limit of " + std::to_string(limit_bytes) + " bytes (--max-body-bytes)");
}

HttpResponse Api::malformed(const std::string& why) noexcept {
  metrics_.count_request(400);
  return error_response(400, "the request is not valid HTTP/1.1: " + why);
}

void Api::route(const HttpRequest& request, const Respond& respond) {
  const std::string path = path_of(request);
  const std::string prefix = std::string(kEvaluationsPath) + "/";
  const bool evaluations = path == kEvaluationsPath;
  const bool one_evaluation = path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
                              path.find('/', prefix.size()) == std::string::npos;
  const char* allowed = evaluations ? "POST"
                        : one_evaluation || path == "/v1/tasks" || path == "/v1/health" || path == "/metrics"
                            ? "GET"
                            : nullptr;
  if (!allowed)
    return respond(error_response(404, "no route " + std::string(request.method_string()) + " " + path + " (routes: " +
                                           kRoutes + ")"));
  if (request.method_string() != allowed) {
    HttpResponse response = error_response(405, std::string(request.method_string()) + " " + path +
                                                    ": method not allowed (" + allowed + " only)");
    response.set(http::field::allow, allowed);
    return respond(std::move(response));
  }
  if (path == "/v1/health") return respond(health());  // a load balancer's probe carries no token
  if (token_) {
    auto header = request.find(http::field::authorization);
    if (header == request.end() || !token_->admits(header->value())) {
      HttpResponse response = error_response(
          401, header == request.end()
                   ? path + " wants an 'Authorization: Bearer <token>' header, and the request has none"
                   : path + ": the Authorization header does not carry this server's bearer token");
      response.set(http::field::www_authenticate, "Bearer");
      return respond(std::move(response));
    }
  }
  if (path == "/metrics") return respond(metrics());
  if (path == "/v1/tasks") return respond(tasks());
  if (one_evaluation) return respond(get_evaluation(path.substr(prefix.size())));
  post_evaluation(request, respond);
}

HttpResponse Api::unavailable() const {
  const bool starting = state_ == ServerState::starting;
  HttpResponse response = error_response(
      503, starting ? "the server is starting: its executor is not warm yet (GET /v1/health says when it is)"
                    : "the server is draining: it finishes what it accepted and takes no new evaluations");
  if (starting) response.set(http::field::retry_after, "5");
  return response;
}

void Api::post_evaluation(const HttpRequest& request, const Respond& respond) {
  if (state_ != ServerState::ready) return respond(unavailable());
  auto parsed = parse_candidate_body(request.body(), evaluator_.tasks(), limits_);
  if (auto* error = std::get_if<ApiError>(&parsed)) return respond(error_response(error->status, error->message));
  CandidateBody& candidate = std::get<CandidateBody>(parsed);
  EvaluationQueue::Done on_done;
  if (candidate.wait)
    on_done = [this, respond, task = candidate.request.task_id](const std::string& id,
                                                               const Result<JudgedCandidate>& outcome,
                                                               EvaluationQueue::Timing timing) {
      HttpResponse response = outcome ? json_response(200, answer_body(*outcome, id))
                                      : error_response(500, "judging evaluation " + id + " (" + task + ") failed: " +
                                                                outcome.status().message());
      // Where the time went, beside the body (which stays what `eval --json` prints): what a client can subtract
      // from its round trip to see what the server and the network added.
      response.set("Server-Timing", fmt::format("queue;dur={:.3f}, judge;dur={:.3f}",
                                                           1000.0 * timing.queue_seconds, 1000.0 * timing.judge_seconds));
      respond(std::move(response));
    };
  auto submitted = queue_.submit(*candidate.task, std::move(candidate.request), std::move(on_done));
  if (!submitted && submitted.status().code() == StatusCode::resource_exhausted) {
    HttpResponse response = error_response(429, submitted.status().message() + "; try again later");
    // The time the workers take to clear the queue, by the median evaluation so far; at least a second.
    double median = metrics_.median_evaluation_seconds().value_or(1.0);
    double workers = static_cast<double>(std::max<int64_t>(evaluator_.workers(), 1));
    double wait = std::ceil(median * static_cast<double>(queue_.capacity() + 1) / workers);
    response.set(http::field::retry_after, std::to_string(static_cast<int64_t>(std::clamp(wait, 1.0, 600.0))));
    return respond(std::move(response));
  }
  if (!submitted) return respond(unavailable());
  if (candidate.wait) return;  // answered by on_done
  HttpResponse response = json_response(202, {{"id", *submitted}, {"status", "queued"}});
  response.set(http::field::location, std::string(kEvaluationsPath) + "/" + *submitted);
  respond(std::move(response));
}

HttpResponse Api::get_evaluation(const std::string& id) {
  auto job = queue_.find(id);
  if (!job)
    return error_response(404, "no evaluation '" + id + "' on this server (unknown, or finished and forgotten: see "
                                                        "--keep-results and --keep-seconds)");
  boost::json::object body{{"id", job->id}, {"status", job_status_name(job->status)}};
  if (job->outcome) {
    if (*job->outcome) body["result"] = answer_body(**job->outcome, job->id);
    else
      body["error"] = {{"status", 500}, {"message", "judging evaluation " + job->id + " failed: " +
                                                          job->outcome->status().message()}};
  }
  return json_response(200, body);
}

boost::json::object Api::answer_body(const JudgedCandidate& judged, const std::string& id) const {
  boost::json::object body = judged.result;
  body["id"] = id;
  body["endpoint"] = endpoint_;
  return body;
}

HttpResponse Api::tasks() const {
  boost::json::array list;
  for (const auto& task : evaluator_.tasks()) {
    boost::json::object entry = tasks::task_json(task, false);
    entry.erase("directory");  // the server's own paths are none of a client's business
    list.push_back(std::move(entry));
  }
  return json_response(200, {{"tasks", std::move(list)}});
}

HttpResponse Api::health() const {
  switch (state_.load()) {
    case ServerState::starting: return json_response(503, {{"status", "starting"}});
    case ServerState::draining: return json_response(503, {{"status", "draining"}});
    case ServerState::ready: break;
  }
  return json_response(200, {{"status", "ready"},
                             {"workers", evaluator_.workers()},
                             {"queue_depth", static_cast<int64_t>(queue_.depth())},
                             {"queue_capacity", static_cast<int64_t>(queue_.capacity())},
                             {"executor", evaluator_.executor_id()}});
}

HttpResponse Api::metrics() const {
  HttpResponse response{http::status::ok, 11};
  response.set(http::field::content_type, "text/plain; version=0.0.4; charset=utf-8");
  response.body() = metrics_.prometheus_text(
      {queue_.depth(), queue_.capacity(), state_ == ServerState::starting ? 0 : evaluator_.workers()});
  return response;
}

}  // namespace tritongym::serve
