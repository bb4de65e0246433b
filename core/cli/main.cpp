// tritongym: the command-line host. `tritongym --help` works on any machine: no GPU, driver or
// Python is needed to list plugins and tasks or to check a run file.
#include <boost/program_options.hpp>
#include <execinfo.h>
#include <unistd.h>

#include <exception>

#include <iostream>
#include <map>
#include <set>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "log/logging.hpp"
#include "tritongym/sdk/did_you_mean.hpp"
#include "tritongym/sdk/version.hpp"
#include "util/project_paths.hpp"

namespace po = boost::program_options;
using namespace tritongym;

namespace {

// A bug that ends the process says where: the stack, to stderr, before the default handler aborts.
[[noreturn]] void terminate_with_stack() {
  static const char kSaid[] = "tritongym: terminated (a bug; please report it with this stack):\n";
  (void)!write(STDERR_FILENO, kSaid, sizeof(kSaid) - 1);
  void* frames[64];
  backtrace_symbols_fd(frames, backtrace(frames, 64), STDERR_FILENO);
  std::abort();
}

struct CommandEntry {
  const char* summary;
  int (*run)(const cli::CliContext&, const cli::Arguments&);
};

const std::vector<std::pair<std::string, CommandEntry>>& command_table() {
  static const std::vector<std::pair<std::string, CommandEntry>> table = {
      {"run", {"run FILE [key.sub=value ...] [--check] [--shard I/N]: run an experiment from a YAML run file", cli::command_run}},
      {"resume", {"resume DIR: continue an interrupted run (finished episodes are kept, the rest run)",
                  cli::command_resume}},
      {"eval", {"eval --task ID --code FILE | --batch FILE [--stage S] [--json]: judge candidate files by hand",
                cli::command_eval}},
      {"serve", {"serve [--listen ADDR:PORT] [--executor ID|auto] [--queue N] [--token-file F]: one warm executor "
                 "behind HTTP (POST /v1/evaluations, /metrics)",
                 cli::command_serve}},
      {"report", {"report DIR [--html FILE] [--trajectories FILE] [--json]: leaderboard of a run, HTML page, JSONL",
                  cli::command_report}},
      {"merge", {"merge DIR... --into OUT: join the shards of one run (run --shard I/N) into one store",
                 cli::command_merge}},
      {"slurm", {"slurm RUN.yaml --shards N [...] | resume|status RUN_DIR | serve [...] | serve stop DIR | "
                 "endpoints DIR: runs and evaluation servers as Slurm jobs",
                 cli::command_slurm}},
      {"export", {"export RUN_DIR EPISODE_KEY --to DIR: a solved kernel as a module with its test and benchmark",
                  cli::command_export}},
      {"plugins", {"plugins list|doctor [--json]: the plugins found, and whether they load", cli::command_plugins}},
      {"tasks", {"tasks list|show|check [ID...] [--split S]: the tasks of the suites, one in full, or their oracles run", cli::command_tasks}},
      {"doctor", {"doctor [--json]: what this machine has (GPU, driver, CUDA, Python, torch, triton, CUPTI)",
                  cli::command_doctor}},
  };
  return table;
}

void print_usage(const po::options_description& globals) {
  std::cout << "TritonGym " << TRITONGYM_SDK_VERSION
            << ": a benchmark for agentic LLM workflows that write GPU kernels.\n\n"
               "usage: tritongym [global options] COMMAND [command options]\n\ncommands:\n";
  for (const auto& [name, entry] : command_table()) std::cout << "  " << entry.summary << "\n";
  std::cout << "\n" << globals
            << "\nexit codes: 0 ok, 1 failure, 2 usage, 3 config error, 4 plugin error, 5 not in this version yet,\n"
               "            6 missing requirement (docs/cli.md)\n"
               "`tritongym COMMAND --help` describes a command.\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::set_terminate(terminate_with_stack);
  po::options_description globals("global options");
  globals.add_options()("help,h", "show this help")("version", "print the version")(
      "log-level", po::value<std::string>()->default_value("info"), "trace, debug, info, warn, error, off")(
      "plugin-path", po::value<std::vector<std::string>>()->composing(),
      "extra folder to search for plugins (repeatable; also TRITONGYM_PLUGIN_PATH)");
  po::options_description hidden;
  hidden.add_options()("command", po::value<std::string>())("rest", po::value<std::vector<std::string>>());
  po::options_description all;
  all.add(globals).add(hidden);
  po::positional_options_description positional;
  positional.add("command", 1).add("rest", -1);

  po::variables_map options;
  std::vector<std::string> rest;
  std::set<std::string> global_keys;  // the global options given before the command (`eval --help` is eval's)
  try {
    po::parsed_options parsed =
        po::command_line_parser(argc, argv).options(all).positional(positional).allow_unregistered().run();
    po::store(parsed, options);
    po::notify(options);
    // Everything after the command (including its own --options) belongs to the command.
    bool after_command = false;
    for (const auto& option : parsed.options) {
      if (option.position_key == 0 && option.string_key == "command") {
        after_command = true;
        continue;
      }
      if (!after_command) {
        if (option.unregistered) {
          std::cerr << "error: unknown global option '" << option.original_tokens.front()
                    << "' (command options go after the command)\n";
          return cli::kExitUsage;
        }
        global_keys.insert(option.string_key);
        continue;
      }
      if (!option.unregistered && (option.string_key == "log-level" || option.string_key == "plugin-path")) {
        std::cerr << "error: '" << option.original_tokens.front() << "' is a global option: put it before the "
                  << "command (tritongym " << option.original_tokens.front() << " ... COMMAND ...)\n";
        return cli::kExitUsage;
      }
      for (const auto& token : option.original_tokens) rest.push_back(token);
    }
  } catch (const po::error& error) {
    std::cerr << "error: " << error.what() << "\n";
    return cli::kExitUsage;
  }

  if (global_keys.count("version")) {
    std::cout << "tritongym " << TRITONGYM_SDK_VERSION << " (plugin ABI " << TRITONGYM_PLUGIN_ABI_VERSION
              << ", " << TRITONGYM_BUILD_FINGERPRINT << ")\n";
    return cli::kExitOk;
  }
  if (global_keys.count("help") || !options.count("command")) {
    print_usage(globals);
    return global_keys.count("help") ? cli::kExitOk : cli::kExitUsage;
  }

  cli::CliContext context;
  context.log_level = options["log-level"].as<std::string>();
  auto level = log::parse_level(context.log_level);
  if (!level) {
    cli::print_error(level.status());
    return cli::kExitUsage;
  }
  log::init(*level);
  context.project_root = util::project_root();
  if (options.count("plugin-path")) context.plugin_paths = options["plugin-path"].as<std::vector<std::string>>();

  std::string command = options["command"].as<std::string>();
  std::vector<std::string> names;
  for (const auto& [name, entry] : command_table()) {
    names.push_back(name);
    if (name != command) continue;
    try {
      return entry.run(context, rest);
    } catch (const std::exception& error) {
      std::cerr << "error: internal error in `" << name << "`: " << error.what() << "\n";
      return cli::kExitFailure;
    }
  }
  std::cerr << "error: unknown command '" << command << "'" << did_you_mean(command, names)
            << "; `tritongym --help` lists them\n";
  return cli::kExitUsage;
}
