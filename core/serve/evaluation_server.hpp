// `tritongym serve` from start to exit: listen, say where, start the executor beside the HTTP side (503 until it
// is warm), serve, and on SIGTERM or SIGINT drain: 503 to new evaluations, finish those accepted, answer them,
// exit 0 (docs/serve.md).
#pragma once

#include <boost/asio/ip/tcp.hpp>

#include <iosfwd>
#include <optional>
#include <string>

#include "serve/bearer_token.hpp"
#include "serve/candidate_body.hpp"
#include "serve/evaluation_queue.hpp"
#include "serve/evaluator.hpp"
#include "serve/http_server.hpp"

namespace tritongym::serve {

struct ServeOptions {
  boost::asio::ip::tcp::endpoint listen;  // port 0: one the system picks
  std::string advertise;                  // the ADDR:PORT results name; "": the bound one (this host's name for 0.0.0.0)
  std::string endpoint_file;              // "" for none; else the advertised ADDR:PORT is written there (EndpointFile)
  std::string token_file;                 // where the token came from, named in the endpoint file ("" for none)
  std::optional<BearerToken> token;
  size_t queue_capacity = 64;
  size_t http_threads = 2;
  HttpLimits http;
  ApiLimits api;
  Retention retention;
};

// How run_server ended.
enum class ServeEnd { drained, cannot_listen, cannot_publish, executor_failed };

// Serves until a signal drains it, or the executor cannot start. Writes "listening on ADDR:PORT" (the bound
// address) as the first line of `announce` once the socket listens, before the executor is warm, and, with an
// endpoint file, writes the advertised address there at the same time and removes it when draining starts.
ServeEnd run_server(Evaluator& evaluator, ServeOptions options, std::ostream& announce);

}  // namespace tritongym::serve
