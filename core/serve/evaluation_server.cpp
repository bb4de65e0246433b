#include "serve/evaluation_server.hpp"

#include <boost/asio/ip/host_name.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <spdlog/spdlog.h>

#include <atomic>
#include <csignal>
#include <functional>
#include <optional>
#include <ostream>
#include <thread>

#include "serve/api.hpp"
#include "serve/endpoint_file.hpp"
#include "serve/serve_metrics.hpp"

namespace tritongym::serve {
namespace {

namespace net = boost::asio;

std::string endpoint_text(const net::ip::address& address, unsigned short port) {
  std::string host = address.to_string();
  if (address.is_v6()) host = "[" + host + "]";
  return host + ":" + std::to_string(port);
}

// What results name: the bound address, or this host's name where it listens on every address.
std::string advertised(const net::ip::tcp::endpoint& bound) {
  if (!bound.address().is_unspecified()) return endpoint_text(bound.address(), bound.port());
  boost::system::error_code error;
  std::string host = net::ip::host_name(error);
  return (error || host.empty() ? std::string("localhost") : host) + ":" + std::to_string(bound.port());
}

}  // namespace

ServeEnd run_server(Evaluator& evaluator, ServeOptions options, std::ostream& announce) {
  ServeMetrics metrics;
  EvaluationQueue queue(evaluator, metrics, options.queue_capacity, options.retention);
  Api api(evaluator, queue, metrics, std::move(options.token), options.api);
  HttpServer http(api, options.http);
  auto bound = http.listen(options.listen);
  if (!bound) {
    spdlog::error("serve: {}", bound.status().message());
    return ServeEnd::cannot_listen;
  }
  const std::string endpoint = options.advertise.empty() ? advertised(*bound) : options.advertise;
  api.set_endpoint(endpoint);
  std::optional<EndpointFile> published;
  if (!options.endpoint_file.empty()) {
    auto written = EndpointFile::publish(options.endpoint_file, endpoint, options.token_file);
    if (!written) {
      spdlog::error("serve: {}", written.status().message());
      return ServeEnd::cannot_publish;
    }
    published.emplace(std::move(written.value()));
  }
  announce << "listening on " << endpoint_text(bound->address(), bound->port()) << std::endl;
  if (published) spdlog::info("serve: wrote {} into {}", endpoint, published->path());

  std::atomic<bool> executor_settled{false};  // start() returned, well or not
  std::atomic<bool> executor_failed{false};
  net::steady_timer drain_timer(http.context());
  // Stops the io_context once every accepted evaluation is judged and its answer written.
  std::function<void()> stop_when_drained = [&] {
    if (executor_settled && queue.finished() && http.answers_pending() == 0) return http.context().stop();
    drain_timer.expires_after(std::chrono::milliseconds(20));
    drain_timer.async_wait([&](boost::system::error_code error) {
      if (!error) stop_when_drained();
    });
  };
  net::signal_set signals(http.context(), SIGINT, SIGTERM);
  std::function<void()> on_signals = [&] {
    signals.async_wait([&](boost::system::error_code error, int signal) {
      if (error) return;
      if (api.state() == ServerState::draining) {
        spdlog::warn("serve: still draining ({} waiting, {} running); SIGKILL stops it at once", queue.depth(),
                     queue.running());
      } else {
        spdlog::info("serve: {}: draining ({} waiting, {} running), then exiting", signal == SIGINT ? "SIGINT" : "SIGTERM",
                     queue.depth(), queue.running());
        if (published) published->withdraw();  // whoever reads the endpoint files stops sending here
        api.set_state(ServerState::draining);
        queue.close();
        stop_when_drained();
      }
      on_signals();
    });
  };
  on_signals();
  http.start(options.http_threads);

  // The executor starts beside the HTTP side, which says "starting" meanwhile.
  std::thread starter([&] {
    Status started = evaluator.start();
    if (!started.is_ok()) {
      spdlog::error("serve: the executor cannot start: {}", started.message());
      executor_failed = true;
      executor_settled = true;
      net::post(http.context(), [&] { http.context().stop(); });
      return;
    }
    queue.start(static_cast<size_t>(std::max<int64_t>(evaluator.workers(), 1)));
    executor_settled = true;
    api.become_ready();
    spdlog::info("serve: ready: {} judges {} evaluations at once; at most {} wait", evaluator.executor_id(),
                 evaluator.workers(), queue.capacity());
  });
  http.wait();
  starter.join();
  queue.join();  // before the io_context goes: a judging thread may still hand an answer to it
  http.stop();
  if (executor_failed) return ServeEnd::executor_failed;
  spdlog::info("serve: drained; exiting");
  return ServeEnd::drained;
}

}  // namespace tritongym::serve
