#include "cli/serve_options.hpp"

#include <string>

#include "serve/evaluation_server.hpp"

namespace tritongym::cli {

namespace po = boost::program_options;

po::options_description serve_options_description(ServeOptionSet set) {
  serve::ServeOptions defaults;
  po::options_description options("serve options");
  if (set == ServeOptionSet::all)
    options.add_options()("listen", po::value<std::string>()->default_value("127.0.0.1:8080"),
                          "ADDR:PORT to listen on (port 0: a free one; the first line of stdout names it)")(
        "advertise", po::value<std::string>()->default_value(""),
        "the ADDR:PORT results name as their endpoint (default: the bound one; this host's name for 0.0.0.0)")(
        "endpoint-file", po::value<std::string>()->default_value(""),
        "F: write the advertised ADDR:PORT into F once listening; removed when the server drains");
  options.add_options()("executor", po::value<std::string>()->default_value("auto"), "executor id, or auto")(
      "executor-config", po::value<std::string>()->default_value("{}"),
      "the executor's config as JSON, e.g. '{\"workers\": 8}' (keys: its plugin.yaml)")(
      "root", po::value<std::string>(), "suites folder (default: <project>/tasks)")(
      "queue", po::value<size_t>()->default_value(defaults.queue_capacity),
      "evaluations that may wait for a worker; one more is answered 429")(
      "token-file", po::value<std::string>()->default_value(""),
      "file holding the bearer token (else TRITONGYM_SERVE_TOKEN); needed to listen beyond loopback")(
      "max-body-bytes", po::value<size_t>()->default_value(defaults.http.max_body_bytes), "largest request body")(
      "max-code-bytes", po::value<size_t>()->default_value(defaults.api.max_code_bytes), "largest candidate source")(
      "max-timeout", po::value<double>()->default_value(defaults.api.max_timeout_s),
      "largest `timeout` a request may ask for, in seconds")(
      "keep-results", po::value<size_t>()->default_value(defaults.retention.max_results),
      "finished evaluations kept for GET /v1/evaluations/{id} (the newest)")(
      "keep-seconds", po::value<double>()->default_value(defaults.retention.max_age_s),
      "how long a finished evaluation is kept")(
      "http-threads", po::value<size_t>()->default_value(defaults.http_threads), "threads serving HTTP");
  return options;
}

}  // namespace tritongym::cli
