#include "http_exchange.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <chrono>
#include <memory>
#include <sstream>

namespace tritongym::remote {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

std::string seconds_text(double seconds) {
  std::ostringstream text;
  text << seconds << " s";
  return text.str();
}

constexpr uint64_t kBodyLimitBytes = 256ull << 20;  // a result with long captured output stays well below

// The exchange's steps, chained through Asio's handlers on one io_context that the caller runs.
class Exchange : public std::enable_shared_from_this<Exchange> {
 public:
  Exchange(asio::io_context& context, const HttpCall& call) : resolver_(context), stream_(context), call_(call) {
    request_.method(call.method == "POST" ? http::verb::post : http::verb::get);
    request_.target(call.target);
    request_.version(11);
    const bool v6 = call.endpoint.host.find(':') != std::string::npos;
    request_.set(http::field::host, (v6 ? "[" + call.endpoint.host + "]" : call.endpoint.host) + ":" + call.endpoint.port);
    request_.set(http::field::user_agent, "tritongym.executor.remote");
    request_.set(http::field::accept, "application/json");
    if (!call.bearer_token.empty()) request_.set(http::field::authorization, "Bearer " + call.bearer_token);
    if (call.method == "POST") {
      request_.set(http::field::content_type, "application/json");
      request_.body() = call.body;
    }
    request_.keep_alive(false);
    request_.prepare_payload();
    parser_.body_limit(kBodyLimitBytes);
  }

  void start() {
    resolver_.async_resolve(call_.endpoint.host, call_.endpoint.port,
                            [self = shared_from_this()](beast::error_code error, tcp::resolver::results_type found) {
                              if (error) return self->fail(ExchangeFailure::not_connected, "cannot resolve: " + error.message());
                              self->stream_.async_connect(found, [self](beast::error_code error, const tcp::endpoint&) {
                                self->connected(error);
                              });
                            });
  }

  void cancel(ExchangeFailure why, const std::string& error) {
    if (done_) return;
    fail(why, error);
    beast::error_code ignored;
    resolver_.cancel();
    stream_.socket().cancel(ignored);
    stream_.socket().close(ignored);
  }

  bool connected() const { return connected_; }
  bool done() const { return done_; }
  ExchangeOutcome& outcome() { return outcome_; }

 private:
  void connected(beast::error_code error) {
    if (done_) return;
    if (error) return fail(ExchangeFailure::not_connected, error.message());
    connected_ = true;
    http::async_write(stream_, request_, [self = shared_from_this()](beast::error_code error, size_t) {
      if (self->done_) return;
      // The server may refuse before it has read the whole request (401, 413): read its answer all the same.
      if (error && error != http::error::end_of_stream && error != asio::error::connection_reset &&
          error != asio::error::broken_pipe)
        return self->fail(ExchangeFailure::lost, "sending the request: " + error.message());
      http::async_read(self->stream_, self->buffer_, self->parser_, [self](beast::error_code error, size_t) {
        self->answered(error);
      });
    });
  }

  void answered(beast::error_code error) {
    if (done_) return;
    if (error) return fail(ExchangeFailure::lost, "reading the response: " + error.message());
    HttpReply reply;
    const auto& response = parser_.get();
    reply.status = static_cast<int>(response.result_int());
    for (const auto& header : response) {
      std::string name(header.name_string());
      std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
      reply.headers[name] = std::string(header.value());
    }
    reply.body = response.body();
    outcome_.reply = std::move(reply);
    done_ = true;
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
  }

  void fail(ExchangeFailure why, const std::string& error) {
    if (done_) return;
    done_ = true;
    outcome_.failure = why;
    outcome_.error = error;
  }

  tcp::resolver resolver_;
  beast::tcp_stream stream_;
  const HttpCall& call_;
  http::request<http::string_body> request_;
  beast::flat_buffer buffer_;
  http::response_parser<http::string_body> parser_;
  bool connected_ = false;
  bool done_ = false;
  ExchangeOutcome outcome_;
};

}  // namespace

ExchangeOutcome exchange(const HttpCall& call) noexcept {
  try {
    asio::io_context context;
    auto exchange = std::make_shared<Exchange>(context, call);
    exchange->start();
    const auto started = Clock::now();
    auto seconds = [](double s) { return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s)); };
    const auto connect_deadline = started + seconds(call.connect_timeout_s);
    const auto deadline = started + seconds(call.timeout_s);
    while (!exchange->done()) {
      context.run_for(std::chrono::milliseconds(50));
      if (exchange->done()) break;
      const auto now = Clock::now();
      if (!exchange->connected() && now >= connect_deadline)
        exchange->cancel(ExchangeFailure::not_connected, "no connection within " + seconds_text(call.connect_timeout_s));
      else if (now >= deadline)
        exchange->cancel(ExchangeFailure::timed_out, "no response within " + seconds_text(call.timeout_s));
      else if (call.abandon && call.abandon())
        exchange->cancel(ExchangeFailure::abandoned, "abandoned: the endpoint was taken out");
      if (context.stopped()) context.restart();
    }
    context.restart();
    context.poll();  // let the cancelled handlers run before the socket goes away
    return std::move(exchange->outcome());
  } catch (const std::exception& error) {
    ExchangeOutcome outcome;
    outcome.failure = ExchangeFailure::not_connected;
    outcome.error = error.what();
    return outcome;
  }
}

}  // namespace tritongym::remote
