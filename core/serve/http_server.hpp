// The HTTP/1.1 side of `tritongym serve`: Boost.Beast on a pool of io_context threads, one strand per
// connection, keep-alive, request size limits. It parses and writes HTTP; what a request means is the
// RequestHandler's (serve/api.hpp). An answer may come later and from any thread (a request that waits for its
// evaluation holds no thread meanwhile).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/http.hpp>

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tritongym/sdk/status.hpp"

namespace tritongym::serve {

using HttpRequest = boost::beast::http::request<boost::beast::http::string_body>;
using HttpResponse = boost::beast::http::response<boost::beast::http::string_body>;
// Hands over the answer to a request. Call it exactly once, from any thread.
using Respond = std::function<void(HttpResponse)>;

class RequestHandler {
 public:
  virtual ~RequestHandler() = default;
  // A complete request; answer through `respond`, now or later. Must not throw.
  virtual void handle(HttpRequest request, Respond respond) noexcept = 0;
  // The answer to a request whose body is over `limit_bytes` (only its header was read), or that is not HTTP
  // (`why` says what the parser found). The connection is closed after it.
  virtual HttpResponse too_large(const HttpRequest& header, size_t limit_bytes) noexcept = 0;
  virtual HttpResponse malformed(const std::string& why) noexcept = 0;
};

struct HttpLimits {
  size_t max_body_bytes = 1 << 20;
  size_t max_header_bytes = 16 << 10;
  double idle_seconds = 60.0;  // a keep-alive connection with no request in this long is closed
  double io_seconds = 60.0;    // reading one request's body, or writing one answer, takes at most this long
};

class HttpServer {
 public:
  HttpServer(RequestHandler& handler, HttpLimits limits);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and listens on `address` (port 0: one the system picks). Error: the address cannot be bound (the
  // message names it and says why). Returns the bound endpoint.
  Result<boost::asio::ip::tcp::endpoint> listen(const boost::asio::ip::tcp::endpoint& address);
  // Starts accepting, on `threads` threads of the io_context. Returns at once.
  void start(size_t threads);
  // Returns once the io_context has stopped (context().stop(), or stop()) and its threads ended.
  void wait();
  // Stops accepting, drops the open connections, ends the threads (waiting for them). Idempotent.
  void stop();

  // The io_context the connections run on (for timers and signals beside them).
  boost::asio::io_context& context() { return context_; }
  // Answers handed to the handler and not yet written out (or failed to write).
  size_t answers_pending() const { return pending_->load(); }

 private:
  void accept();

  RequestHandler& handler_;
  HttpLimits limits_;
  boost::asio::io_context context_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::shared_ptr<std::atomic<size_t>> pending_ = std::make_shared<std::atomic<size_t>>(0);
  std::vector<std::thread> threads_;
};

}  // namespace tritongym::serve
