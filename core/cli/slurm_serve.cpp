// `tritongym slurm serve [...]`: evaluation servers as a Slurm job (core/slurm/serve_script.hpp); `slurm serve
// stop DIR` goes to slurm_serve_stop.cpp.
#include <boost/json.hpp>
#include <boost/program_options.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>

#include "cli/arguments.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "cli/plugin_loading.hpp"
#include "cli/serve_options.hpp"
#include "cli/slurm_subcommands.hpp"
#include "run/episode_conversion.hpp"
#include "serve/bearer_token.hpp"
#include "slurm/job_states.hpp"
#include "slurm/serve_record.hpp"
#include "slurm/serve_script.hpp"
#include "slurm/server_endpoints.hpp"
#include "slurm/slurm_commands.hpp"

namespace tritongym::cli {

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

constexpr const char* kUsage =
    "tritongym slurm serve [--nodes N | --count N] --token-file F [--gpus-per-server G] [--cpus-per-server C] "
    "[--partition P] [--time T] [--account A] [--extra-sbatch '...'] [--port P] [--dir DIR] [--dry-run] "
    "[serve options: --executor ID --executor-config JSON --root DIR --queue N ...]\n"
    "       tritongym slurm serve stop DIR";
constexpr const char* kDefaultDir = "runs/servers";

// The command line, checked.
struct ServeRequest {
  slurm::ServeJobInputs job;
  std::string token_file;  // absolute
  bool dry_run = false;
};

po::options_description slurm_serve_options() {
  po::options_description options("slurm serve options");
  options.add_options()("nodes", po::value<int64_t>(), "N: one server on each of N nodes (the default, with N = 1)")(
      "count", po::value<int64_t>(), "N: N servers, as Slurm tasks placed where it chooses (several to a node)")(
      "gpus-per-server", po::value<int64_t>()->default_value(0),
      "G: GPUs each server gets (--gres=gpu:G per node; with --count, --gpus-per-task=G)")(
      "cpus-per-server", po::value<int64_t>()->default_value(0),
      "C: CPUs each server gets (--cpus-per-task=C), for its workers and compiles")(
      "partition", po::value<std::string>()->default_value(""), "the partition (default: the cluster's)")(
      "time", po::value<std::string>()->default_value(""), "the job's time limit, in Slurm's format (8:00:00)")(
      "account", po::value<std::string>()->default_value(""), "the account the job is charged to")(
      "extra-sbatch", po::value<std::vector<std::string>>(), "more sbatch options, e.g. '--qos=high --exclusive'")(
      "port", po::value<int64_t>()->default_value(0), "P: the port every server listens on (0: each takes a free one)")(
      "dir", po::value<std::string>()->default_value(kDefaultDir),
      "the servers' folder: serve.sbatch, serve.json, logs/, endpoints/")(
      "dry-run", "print the job script and the sbatch command; write and submit nothing");
  return options;
}

// Options `slurm serve` sets for every server, given by mistake.
bool refuse_set_options(const Arguments& arguments) {
  for (const auto& argument : arguments)
    for (const char* name : {"--listen", "--advertise", "--endpoint-file"})
      if (argument == name || argument.rfind(std::string(name) + "=", 0) == 0) {
        std::cerr << "error: " << name << " is set by slurm serve for every server: each listens on 0.0.0.0:--port "
                  << "(a free port by default) and writes its HOST:PORT into DIR/endpoints/\nusage: " << kUsage << "\n";
        return true;
      }
  return false;
}

// The serve options as given, to be passed on; the token file and the suites folder made absolute, so that the
// script names the same files whichever folder it is resubmitted from.
std::vector<std::string> serve_arguments(const Arguments& arguments, const po::options_description& all,
                                         const po::options_description& serve, const std::string& token_file,
                                         const std::optional<std::string>& root) {
  std::vector<std::string> passed;
  po::parsed_options parsed = po::command_line_parser(arguments).options(all).run();
  for (const auto& option : parsed.options) {
    if (!serve.find_nothrow(option.string_key, false)) continue;
    if (option.string_key == "token-file") {
      passed.insert(passed.end(), {"--token-file", token_file});
    } else if (option.string_key == "root") {
      passed.insert(passed.end(), {"--root", *root});
    } else {
      passed.insert(passed.end(), option.original_tokens.begin(), option.original_tokens.end());
    }
  }
  return passed;
}

// The token file: given, readable, a token in it (never printed), and not readable by others.
Status check_token_file(const std::string& token_file) {
  if (token_file.empty())
    return Status(StatusCode::invalid_argument,
                  "slurm serve needs --token-file F: its servers listen on every address of their nodes, so each "
                  "evaluation must carry the bearer token of F (a file only you can read, on a file system the nodes "
                  "see; a run's executor.remote reads it through token_file)");
  auto token = serve::BearerToken::load(token_file, nullptr);
  if (!token) return token.status();
  struct stat info{};
  if (::stat(token_file.c_str(), &info) == 0 && (info.st_mode & (S_IRWXG | S_IRWXO)))
    std::cerr << "note: the token file " << token_file << " may be read by others than its owner (chmod 600 it)\n";
  return {};
}

Status check_serve_values(const CliContext& context, const po::variables_map& values) {
  boost::system::error_code error;
  std::string config = values["executor-config"].as<std::string>();
  boost::json::value parsed = boost::json::parse(config, error);
  if (error || !parsed.is_object())
    return Status(StatusCode::invalid_argument, "--executor-config '" + config + "' is not a JSON object" +
                                                    (error ? " (" + error.message() + ")" : std::string()));
  std::string executor = values["executor"].as<std::string>();
  if (executor != "auto") {
    plugins::Registry registry;
    load_registry(context, registry);
    if (!registry.contains(plugins::PluginKind::executor, executor))
      return Status(StatusCode::invalid_argument,
                    "--executor: " + registry.unknown_id(plugins::PluginKind::executor, executor).message());
  }
  if (values.count("root") && !fs::is_directory(values["root"].as<std::string>()))
    return Status(StatusCode::invalid_argument, "--root " + values["root"].as<std::string>() + " is not a folder");
  return {};
}

Status check_placement(const po::variables_map& values, slurm::ServeJobInputs& job) {
  if (values.count("nodes") && values.count("count"))
    return Status(StatusCode::invalid_argument, "give --nodes N (one server a node) or --count N (N servers), not both");
  job.placement = values.count("count") ? slurm::ServerPlacement::by_count : slurm::ServerPlacement::one_per_node;
  const char* name = values.count("count") ? "--count" : "--nodes";
  job.servers = values.count("count") ? values["count"].as<int64_t>()
                                      : (values.count("nodes") ? values["nodes"].as<int64_t>() : 1);
  if (job.servers < 1) return Status(StatusCode::invalid_argument, std::string(name) + " must be 1 or more");
  job.gpus_per_server = values["gpus-per-server"].as<int64_t>();
  job.cpus_per_server = values["cpus-per-server"].as<int64_t>();
  if (job.gpus_per_server < 0 || job.cpus_per_server < 0)
    return Status(StatusCode::invalid_argument, "--gpus-per-server and --cpus-per-server must be 0 or more");
  job.port = values["port"].as<int64_t>();
  if (job.port < 0 || job.port > 65535)
    return Status(StatusCode::invalid_argument, "--port " + std::to_string(job.port) + " is not a port (0 to 65535)");
  if (job.port != 0 && job.placement == slurm::ServerPlacement::by_count && job.servers > 1)
    return Status(StatusCode::invalid_argument,
                  "--port with --count: two servers Slurm puts on one node would ask for the same port; leave --port "
                  "out (each server takes a free one and writes it into DIR/endpoints/), or use --nodes");
  return {};
}

Status check_cluster_options(const po::variables_map& values, slurm::SlurmJobOptions& options) {
  options.partition = values["partition"].as<std::string>();
  options.account = values["account"].as<std::string>();
  options.time_limit = values["time"].as<std::string>();
  auto extra = slurm::parse_extra_sbatch(values.count("extra-sbatch") ? values["extra-sbatch"].as<std::vector<std::string>>()
                                                                      : std::vector<std::string>{});
  if (!extra) return extra.status();
  options.extra_sbatch = extra.value();
  for (const auto& [value, what] : {std::pair{options.partition, "--partition"}, {options.account, "--account"},
                                    {options.time_limit, "--time"}})
    if (Status status = slurm::check_sbatch_value(value, what); !status.is_ok()) return status;
  return {};
}

// Two minutes for the servers to drain before the time limit, or a quarter of a limit shorter than eight.
Status fit_drain_time(slurm::ServeJobInputs& job) {
  constexpr int64_t kDrainSeconds = 120;
  if (job.options.time_limit.empty()) return {};
  auto limit = slurm::parse_time_limit_seconds(job.options.time_limit);
  if (!limit) return limit.status();
  job.drain_seconds_before_limit = std::max<int64_t>(std::min(kDrainSeconds, limit.value() / 4), 1);
  return {};
}

std::optional<ServeRequest> parse_request(const CliContext& context, const Arguments& arguments, int& exit_code) {
  exit_code = kExitUsage;
  if (refuse_set_options(arguments)) return std::nullopt;
  po::options_description serve = serve_options_description(ServeOptionSet::passed_on);
  po::options_description all = slurm_serve_options();
  all.add(serve);
  auto values = parse_arguments(kUsage, all, {}, arguments, exit_code);
  if (!values) return std::nullopt;
  exit_code = kExitUsage;
  ServeRequest request;
  request.dry_run = values->count("dry-run") > 0;
  slurm::ServeJobInputs& job = request.job;
  std::optional<std::string> root;
  if (values->count("root")) root = absolute_folder((*values)["root"].as<std::string>());
  std::string token_file = (*values)["token-file"].as<std::string>();
  if (!token_file.empty()) token_file = absolute_folder(token_file);
  job.servers_dir = absolute_folder((*values)["dir"].as<std::string>());
  job.working_dir = fs::current_path().string();
  // In order, up to the first that fails: the later ones read what the earlier set, and the last loads plugins.
  const std::function<Status()> checks[] = {
      [&] { return check_placement(*values, job); },
      [&] { return check_cluster_options(*values, job.options); },
      [&] { return fit_drain_time(job); },
      [&] { return slurm::check_sbatch_value(job.servers_dir, "--dir"); },
      [&] { return slurm::check_sbatch_value(job.working_dir, "the current folder"); },
      [&] { return check_token_file(token_file); },
      [&] { return check_serve_values(context, *values); }};
  for (const auto& check : checks)
    if (Status status = check(); !status.is_ok()) {
      print_error(status);
      return std::nullopt;
    }
  request.token_file = token_file;
  job.tritongym = tritongym_command(context);
  job.serve_options = serve_arguments(arguments, all, serve, token_file, root);
  job.written_at = run::utc_now();
  exit_code = kExitOk;
  return request;
}

// Servers of an earlier submission from this folder that Slurm still holds: a second set would share endpoints/.
Status check_no_servers_running(const slurm::SlurmCommands& commands, const std::string& servers_dir) {
  auto record = slurm::read_serve_record(servers_dir);
  if (!record) return record.status().code() == StatusCode::not_found ? Status() : record.status();
  auto lines = commands.queue_lines(false);
  if (!lines) return lines.status();
  slurm::JobStates queued;
  queued.add_queue_lines(lines.value());
  for (const auto& id : record->job_ids())
    if (const slurm::JobState* state = queued.find({id, std::nullopt}); state && slurm::is_active_state(state->state))
      return Status(StatusCode::failed_precondition,
                    servers_dir + " has servers in Slurm already: job " + id + " (" + state->describe() +
                        "); stop them with `tritongym slurm serve stop " + servers_dir + "`, or give another --dir");
  return {};
}

// The endpoint files the earlier jobs of this folder left (all of them have ended).
void remove_stale_endpoints(const std::string& servers_dir) {
  auto record = slurm::read_serve_record(servers_dir);
  auto files = slurm::read_server_endpoints(slurm::endpoints_folder(servers_dir));
  if (!record || !files) return;
  std::vector<std::string> ids = record->job_ids();
  for (const auto& endpoint : files.value())
    if (std::find(ids.begin(), ids.end(), endpoint.job) != ids.end()) {
      std::error_code ignored;
      fs::remove(endpoint.file, ignored);
      std::cerr << "note: removed " << endpoint.file << ", left by job " << endpoint.job << ", which has ended\n";
    }
}

Status write_script(const std::string& path, const std::string& text, const std::string& servers_dir) {
  std::error_code error;
  for (const auto& folder : {slurm::serve_logs_folder(servers_dir), slurm::endpoints_folder(servers_dir)}) {
    fs::create_directories(folder, error);
    if (error) return Status(StatusCode::unavailable, "cannot create " + folder + ": " + error.message());
  }
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out) return Status(StatusCode::unavailable, "cannot write " + path);
  fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add, error);
  return {};
}

void print_submitted(const ServeRequest& request, const std::string& job_id, const std::string& script) {
  const slurm::ServeJobInputs& job = request.job;
  std::string endpoints = slurm::endpoints_folder(job.servers_dir);
  std::string servers = std::to_string(job.servers) + " evaluation server" + (job.servers == 1 ? "" : "s");
  std::cout << "submitted " << servers << " to Slurm: job " << job_id << " ("
            << (job.placement == slurm::ServerPlacement::one_per_node ? "one per node" : "tasks placed by Slurm")
            << "), " << script << "\n"
            << "  endpoints: " << endpoints << "/" << job_id << "-TASK" << slurm::kEndpointSuffix
            << ", each written once its server listens\n"
            << "  logs:      " << slurm::serve_logs_folder(job.servers_dir) << "/serve-" << job_id << ".log\n"
            << "a run sends its evaluations there with:\n"
            << "  executor:\n"
            << "    plugin: tritongym.executor.remote\n"
            << "    config: {endpoints_dir: " << endpoints << ", token_file: " << request.token_file << "}\n"
            << "watch:\n"
            << "  squeue -j " << job_id << "\n"
            << "  tritongym slurm endpoints " << job.servers_dir << "      (the servers listening now)\n"
            << "  tail -f " << slurm::serve_logs_folder(job.servers_dir) << "/serve-" << job_id << ".log\n"
            << "stop: tritongym slurm serve stop " << job.servers_dir << "\n";
}

}  // namespace

int slurm_serve(const CliContext& context, const Arguments& arguments) {
  if (!arguments.empty() && arguments.front() == "stop")
    return slurm_serve_stop(context, Arguments(arguments.begin() + 1, arguments.end()));
  int exit_code = kExitOk;
  auto request = parse_request(context, arguments, exit_code);
  if (!request) return exit_code;
  std::string script = (fs::path(request->job.servers_dir) / slurm::kServeScript).string();
  std::string text = slurm::serve_script(request->job);
  if (request->dry_run) {
    std::cout << "# dry run: nothing written, nothing submitted. Without --dry-run, " << request->job.servers_dir
              << "/ gets " << slurm::kServeScript << ", " << slurm::kServeRecordFile << ", logs/ and "
              << slurm::kEndpointsFolder << "/, and this is submitted:\n"
              << "#   sbatch --parsable " << script << "\n\n# ---- " << script << "\n"
              << text;
    return kExitOk;
  }
  auto commands = slurm::SlurmCommands::locate(slurm::SlurmUse::submit);
  if (!commands) {
    print_error(commands.status());
    return kExitMissingRequirement;
  }
  if (Status status = check_no_servers_running(commands.value(), request->job.servers_dir); !status.is_ok()) {
    print_error(status);
    return kExitFailure;
  }
  remove_stale_endpoints(request->job.servers_dir);
  if (Status status = write_script(script, text, request->job.servers_dir); !status.is_ok()) {
    print_error(status);
    return kExitFailure;
  }
  // The servers read their token from the file alone; sbatch's --export=ALL would otherwise copy this variable
  // into the job's environment, which Slurm stores.
  ::unsetenv("TRITONGYM_SERVE_TOKEN");
  auto job_id = commands->submit({}, script);
  if (!job_id) {
    print_error(job_id.status());
    return kExitFailure;
  }
  auto record = slurm::read_serve_record(request->job.servers_dir);
  slurm::ServeRecord updated = record ? record.value() : slurm::ServeRecord{request->job.servers_dir, {}};
  updated.servers_dir = request->job.servers_dir;
  updated.jobs.push_back({job_id.value(), request->job.written_at, request->job.servers,
                          request->job.placement == slurm::ServerPlacement::one_per_node ? "nodes" : "count"});
  if (Status status = slurm::write_serve_record(updated); !status.is_ok()) {
    print_error(status);
    std::cerr << "job " << job_id.value() << " is submitted; without the record, stop it with scancel "
              << job_id.value() << "\n";
  }
  print_submitted(request.value(), job_id.value(), script);
  return kExitOk;
}

}  // namespace tritongym::cli
