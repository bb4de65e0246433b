// `tritongym serve`: one warm executor behind HTTP (core/serve/, docs/serve.md).
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cli/arguments.hpp"
#include "cli/eval_judging.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "cli/plugin_loading.hpp"
#include "cli/serve_evaluator.hpp"
#include "serve/evaluation_server.hpp"
#include "serve/listen_address.hpp"

namespace tritongym::cli {

namespace po = boost::program_options;

int command_serve(const CliContext& context, const Arguments& arguments) {
  serve::ServeOptions defaults;
  po::options_description options("serve options");
  options.add_options()("listen", po::value<std::string>()->default_value("127.0.0.1:8080"),
                        "ADDR:PORT to listen on (port 0: a free one; the first line of stdout names it)")(
      "advertise", po::value<std::string>()->default_value(""),
      "the ADDR:PORT results name as their endpoint (default: the bound one; this host's name for 0.0.0.0)")(
      "executor", po::value<std::string>()->default_value("auto"), "executor id, or auto")(
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
  int exit_code = kExitOk;
  const std::string usage =
      "tritongym serve [--listen ADDR:PORT] [--executor ID|auto] [--executor-config JSON] [--root DIR] [--queue N] "
      "[--token-file F]";
  auto values = parse_arguments(usage, options, {}, arguments, exit_code);
  if (!values) return exit_code;

  serve::ServeOptions serving;
  auto listen = serve::parse_listen_address((*values)["listen"].as<std::string>());
  if (!listen) {
    print_error(listen.status());
    return kExitUsage;
  }
  serving.listen = *listen;
  auto token = serve::BearerToken::load((*values)["token-file"].as<std::string>(), std::getenv("TRITONGYM_SERVE_TOKEN"));
  if (!token) {
    print_error(token.status());
    return kExitUsage;
  }
  if (!*token && !serving.listen.address().is_loopback()) {
    std::cerr << "error: --listen " << (*values)["listen"].as<std::string>()
              << " is not a loopback address, and serve has no token: anyone who reaches it could run code on this "
                 "machine. Give one with --token-file F or TRITONGYM_SERVE_TOKEN, or listen on 127.0.0.1\n";
    return kExitUsage;
  }
  serving.token = std::move(*token);
  ::unsetenv("TRITONGYM_SERVE_TOKEN");  // read once; no process this one starts inherits it
  serving.advertise = (*values)["advertise"].as<std::string>();
  serving.queue_capacity = (*values)["queue"].as<size_t>();
  serving.http.max_body_bytes = (*values)["max-body-bytes"].as<size_t>();
  serving.api.max_code_bytes = (*values)["max-code-bytes"].as<size_t>();
  serving.api.max_timeout_s = (*values)["max-timeout"].as<double>();
  serving.retention.max_results = (*values)["keep-results"].as<size_t>();
  serving.retention.max_age_s = (*values)["keep-seconds"].as<double>();
  serving.http_threads = std::max<size_t>((*values)["http-threads"].as<size_t>(), 1);
  if (serving.queue_capacity < 1 || serving.api.max_timeout_s <= 0 || serving.http.max_body_bytes < 1) {
    std::cerr << "error: --queue, --max-body-bytes and --max-timeout must be over 0\nusage: " << usage << "\n";
    return kExitUsage;
  }

  plugins::Registry registry;
  load_registry(context, registry);
  std::string root = values->count("root") ? (*values)["root"].as<std::string>()
                                           : (std::filesystem::path(context.project_root) / "tasks").string();
  TaskFinder finder(context, registry, root);
  auto tasks = finder.all();
  if (!tasks) {
    print_error(tasks.status());
    return kExitConfigError;
  }
  ServeEvaluator evaluator(context, registry, std::move(tasks.value()), (*values)["executor"].as<std::string>(),
                           (*values)["executor-config"].as<std::string>());
  switch (serve::run_server(evaluator, std::move(serving), std::cout)) {
    case serve::ServeEnd::drained: return kExitOk;
    case serve::ServeEnd::cannot_listen: return kExitFailure;
    case serve::ServeEnd::executor_failed: return executor_not_made(evaluator.start_error());
  }
  return kExitFailure;
}

}  // namespace tritongym::cli
