// The routes of `tritongym serve` (docs/serve.md, "API"): what each request means, its checks and its answer.
// Every answer is JSON (the Prometheus page aside); every error is {"error": {"status", "message"}} with one
// sentence naming what is wrong and where.
#pragma once

#include <atomic>
#include <optional>
#include <string>

#include "serve/bearer_token.hpp"
#include "serve/candidate_body.hpp"
#include "serve/evaluation_queue.hpp"
#include "serve/evaluator.hpp"
#include "serve/http_server.hpp"
#include "serve/serve_metrics.hpp"

namespace tritongym::serve {

enum class ServerState { starting, ready, draining };

class Api : public RequestHandler {
 public:
  // `token`: when set, every route but GET /v1/health wants it. The references must outlive the Api.
  Api(Evaluator& evaluator, EvaluationQueue& queue, ServeMetrics& metrics, std::optional<BearerToken> token,
      ApiLimits limits);

  // The ADDR:PORT results name (known once the socket is bound; set before the server starts).
  void set_endpoint(std::string endpoint) { endpoint_ = std::move(endpoint); }
  // starting (503) until the executor is warm, then ready; draining (503) once a signal came.
  void set_state(ServerState state) { state_ = state; }
  // ready, unless a signal made it draining first.
  void become_ready() {
    ServerState expected = ServerState::starting;
    state_.compare_exchange_strong(expected, ServerState::ready);
  }
  ServerState state() const { return state_; }

  void handle(HttpRequest request, Respond respond) noexcept override;
  HttpResponse too_large(const HttpRequest& header, size_t limit_bytes) noexcept override;
  HttpResponse malformed(const std::string& why) noexcept override;

 private:
  void route(const HttpRequest& request, const Respond& respond);
  void post_evaluation(const HttpRequest& request, const Respond& respond);
  HttpResponse get_evaluation(const std::string& id);
  HttpResponse tasks() const;
  HttpResponse health() const;
  HttpResponse metrics() const;
  HttpResponse unavailable() const;
  boost::json::object answer_body(const JudgedCandidate& judged, const std::string& id) const;

  Evaluator& evaluator_;
  EvaluationQueue& queue_;
  ServeMetrics& metrics_;
  std::optional<BearerToken> token_;
  ApiLimits limits_;
  std::string endpoint_;
  std::atomic<ServerState> state_{ServerState::starting};
};

}  // namespace tritongym::serve
