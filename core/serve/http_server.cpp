#include "serve/http_server.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <spdlog/spdlog.h>

#include <chrono>
#include <optional>

#include "tritongym/sdk/version.hpp"

namespace tritongym::serve {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

std::chrono::steady_clock::duration seconds(double value) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(value));
}

// A body refused for its size is read and dropped, up to this much, before the connection closes: a client that
// sends its whole body before it reads the answer then gets the 413 instead of a reset connection.
constexpr size_t kMaxDrainBytes = 64 << 20;

// One connection: requests read one after another (HTTP/1.1 keep-alive), each answered in order. Every step
// runs on the connection's strand.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, RequestHandler& handler, const HttpLimits& limits,
          std::shared_ptr<std::atomic<size_t>> pending)
      : stream_(std::move(socket)), handler_(handler), limits_(limits), pending_(std::move(pending)) {}

  void start() { net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->read_header(); }); }

 private:
  void read_header() {
    parser_.emplace();
    parser_->body_limit(limits_.max_body_bytes);
    parser_->header_limit(static_cast<std::uint32_t>(limits_.max_header_bytes));
    stream_.expires_after(seconds(limits_.idle_seconds));
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = shared_from_this()](beast::error_code error, size_t) { self->on_header(error); });
  }

  void on_header(beast::error_code error) {
    if (error) return refuse_or_close(error);
    const auto& header = parser_->get();
    if (beast::iequals(header[http::field::expect], "100-continue")) {
      // curl asks before it sends a body over 1 KiB, and waits a second for the answer.
      auto proceed = std::make_shared<http::response<http::empty_body>>(http::status::continue_, header.version());
      stream_.expires_after(seconds(limits_.io_seconds));
      http::async_write(stream_, *proceed, [self = shared_from_this(), proceed](beast::error_code error, size_t) {
        if (error) return self->close();
        self->read_body();
      });
      return;
    }
    read_body();
  }

  void read_body() {
    stream_.expires_after(seconds(limits_.io_seconds));
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code error, size_t) { self->on_body(error); });
  }

  void on_body(beast::error_code error) {
    if (error) return refuse_or_close(error);
    stream_.expires_never();  // the answer may wait for an evaluation: no timer runs meanwhile
    HttpRequest request = parser_->release();
    const bool keep_alive = request.keep_alive();
    const unsigned version = request.version();
    pending_->fetch_add(1);
    handler_.handle(std::move(request), [self = shared_from_this(), keep_alive, version](HttpResponse response) {
      response.version(version);
      net::post(self->stream_.get_executor(), [self, keep_alive, response = std::move(response)]() mutable {
        self->write(std::move(response), !keep_alive, false);
      });
    });
  }

  // A request over the size limit or not HTTP gets its answer and the connection closes; a closed or idle
  // connection just closes.
  void refuse_or_close(beast::error_code error) {
    if (error == http::error::body_limit) {
      const bool asked_first = beast::iequals(parser_->get()[http::field::expect], "100-continue");
      pending_->fetch_add(1);
      return write(handler_.too_large(parser_->get(), limits_.max_body_bytes), true, !asked_first);
    }
    if (error == http::error::end_of_stream || error == http::error::partial_message ||
        &error.category() != &http::make_error_code(http::error::end_of_stream).category())
      return close();  // the peer left, the connection timed out, or it broke
    spdlog::debug("serve: a request that is not HTTP: {}", error.message());
    pending_->fetch_add(1);
    write(handler_.malformed(error.message()), true, false);
  }

  // `drain`: the client may still be sending a body the server will not read; read and drop it before closing.
  void write(HttpResponse response, bool close_after, bool drain) {
    response.set(http::field::server, std::string("tritongym/") + TRITONGYM_SDK_VERSION);
    response.keep_alive(!close_after);
    response.prepare_payload();
    auto answer = std::make_shared<HttpResponse>(std::move(response));
    stream_.expires_after(seconds(limits_.io_seconds));
    http::async_write(stream_, *answer,
                      [self = shared_from_this(), answer, close_after, drain](beast::error_code error, size_t) {
                        self->pending_->fetch_sub(1);
                        if (error) return self->close();
                        if (drain) return self->drain_then_close();
                        if (close_after) return self->close();
                        self->read_header();
                      });
  }

  void drain_then_close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    drained_ = 0;
    stream_.expires_after(seconds(5));
    drain_step();
  }

  void drain_step() {
    stream_.async_read_some(net::buffer(discard_), [self = shared_from_this()](beast::error_code error, size_t got) {
      self->drained_ += got;
      if (error || self->drained_ > kMaxDrainBytes) return self->close();
      self->drain_step();
    });
  }

  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

  beast::tcp_stream stream_;
  RequestHandler& handler_;
  const HttpLimits& limits_;
  std::shared_ptr<std::atomic<size_t>> pending_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  size_t drained_ = 0;
  char discard_[16384];
};

}  // namespace

HttpServer::HttpServer(RequestHandler& handler, HttpLimits limits)
    : handler_(handler), limits_(limits), acceptor_(net::make_strand(context_)) {}

HttpServer::~HttpServer() { stop(); }

Result<tcp::endpoint> HttpServer::listen(const tcp::endpoint& address) {
  beast::error_code error;
  const std::string where = address.address().to_string() + ":" + std::to_string(address.port());
  acceptor_.open(address.protocol(), error);
  if (!error) acceptor_.set_option(net::socket_base::reuse_address(true), error);
  if (!error) acceptor_.bind(address, error);
  if (!error) acceptor_.listen(net::socket_base::max_listen_connections, error);
  if (error) return Status(StatusCode::unavailable, "cannot listen on " + where + ": " + error.message());
  return acceptor_.local_endpoint();
}

void HttpServer::start(size_t threads) {
  accept();
  for (size_t i = 0; i < std::max<size_t>(threads, 1); ++i) threads_.emplace_back([this] { context_.run(); });
}

void HttpServer::accept() {
  acceptor_.async_accept(net::make_strand(context_), [this](beast::error_code error, tcp::socket socket) {
    if (error == net::error::operation_aborted || !acceptor_.is_open()) return;
    if (!error) std::make_shared<Session>(std::move(socket), handler_, limits_, pending_)->start();
    else spdlog::warn("serve: accepting a connection failed: {}", error.message());
    accept();
  });
}

void HttpServer::wait() {
  for (auto& thread : threads_)
    if (thread.joinable()) thread.join();
}

void HttpServer::stop() {
  net::post(acceptor_.get_executor(), [this] {
    beast::error_code ignored;
    acceptor_.close(ignored);
  });
  context_.stop();
  for (auto& thread : threads_)
    if (thread.joinable() && thread.get_id() != std::this_thread::get_id()) thread.join();
  threads_.clear();
}

}  // namespace tritongym::serve
