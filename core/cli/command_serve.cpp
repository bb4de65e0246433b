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
#include "cli/serve_options.hpp"
#include "serve/evaluation_server.hpp"
#include "serve/listen_address.hpp"

namespace tritongym::cli {

namespace po = boost::program_options;

int command_serve(const CliContext& context, const Arguments& arguments) {
  po::options_description options = serve_options_description(ServeOptionSet::all);
  int exit_code = kExitOk;
  const std::string usage =
      "tritongym serve [--listen ADDR:PORT] [--executor ID|auto] [--executor-config JSON] [--root DIR] [--queue N] "
      "[--token-file F] [--endpoint-file F]";
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
  serving.endpoint_file = (*values)["endpoint-file"].as<std::string>();
  serving.token_file = (*values)["token-file"].as<std::string>();
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
    case serve::ServeEnd::cannot_listen:
    case serve::ServeEnd::cannot_publish: return kExitFailure;
    case serve::ServeEnd::executor_failed: return executor_not_made(evaluator.start_error());
  }
  return kExitFailure;
}

}  // namespace tritongym::cli
