// `tritongym slurm RUN.yaml [key=value ...] --shards N [...]`: checks the run as `run` would, writes the
// resolved run file and the two job scripts into <output.dir>/slurm/, and submits the shards' job array
// and the merge job after it.
#include <boost/program_options.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <tuple>

#include "cli/arguments.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "cli/plugin_loading.hpp"
#include "cli/run_checks.hpp"
#include "cli/slurm_subcommands.hpp"
#include "config/overrides.hpp"
#include "config/run_config.hpp"
#include "run/episode_conversion.hpp"
#include "slurm/job_scripts.hpp"
#include "slurm/shard_progress.hpp"
#include "slurm/slurm_commands.hpp"
#include "slurm/submission_record.hpp"

namespace tritongym::cli {

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

constexpr const char* kUsage =
    "tritongym slurm RUN.yaml [key.sub=value ...] --shards N [--partition P] [--gpus-per-shard G] [--time T] "
    "[--account A] [--extra-sbatch '...'] [--dry-run]\n"
    "       tritongym slurm resume RUN_DIR\n"
    "       tritongym slurm status RUN_DIR [--json]\n"
    "       tritongym slurm serve [--nodes N | --count N] --token-file F [...] | serve stop DIR | endpoints DIR";

// A run folder that already holds a submission or a store of this run is not submitted again.
Status check_run_dir_is_new(const std::string& run_dir, int64_t shard_count) {
  std::string record = (fs::path(slurm::slurm_folder(run_dir)) / slurm::kSubmissionsFile).string();
  if (fs::exists(record))
    return Status(StatusCode::failed_precondition,
                  run_dir + " was already submitted to Slurm (" + record + "): see `tritongym slurm status " + run_dir +
                      "`, submit what is missing with `tritongym slurm resume " + run_dir +
                      "`, or set output.dir=<another folder>");
  std::vector<std::string> stores;
  if (fs::exists(fs::path(run_dir) / "run.sqlite")) stores.push_back(run_dir);
  for (int64_t index = 0; index < shard_count; ++index) {
    std::string dir = slurm::shard_dir(run_dir, index, shard_count);
    if (fs::exists(fs::path(dir) / "run.sqlite")) stores.push_back(dir);
  }
  if (!stores.empty())
    return Status(StatusCode::failed_precondition,
                  stores.front() + " already holds a run; resume it with `tritongym resume`, or set "
                                   "output.dir=<another folder>");
  return {};
}

// The longest an episode may still need once SIGTERM comes: its wall budget, and a minute to record it.
int64_t stop_seconds(const config::RunConfig& run) {
  constexpr int64_t kRecordSeconds = 60, kWithoutBudget = 600, kSlurmMax = 65535;
  int64_t seconds = run.budget.max_wall_seconds ? static_cast<int64_t>(*run.budget.max_wall_seconds) + kRecordSeconds
                                                : kWithoutBudget;
  return std::min(seconds, kSlurmMax);
}

Status write_file(const std::string& path, const std::string& text, bool executable) {
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out) return Status(StatusCode::unavailable, "cannot write " + path);
  if (executable) {
    std::error_code error;
    fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add, error);
  }
  return {};
}

// The command line, checked: what to submit and the jobs' Slurm options.
struct SubmitRequest {
  std::string run_file;
  std::vector<std::string> overrides;
  int64_t shard_count = 0;
  slurm::SlurmJobOptions job;
  int64_t time_limit_seconds = 0;  // 0 when --time is not given
  bool dry_run = false;
};

std::optional<SubmitRequest> parse_request(const Arguments& arguments, int& exit_code) {
  po::options_description options("slurm options");
  options.add_options()("file", po::value<std::string>(), "the run file (YAML)")(
      "override", po::value<std::vector<std::string>>(), "key.sub=value, applied after the file")(
      "shards", po::value<int64_t>(), "N: the run is split into N shards, one Slurm array task each")(
      "partition", po::value<std::string>()->default_value(""), "the partition of every job (default: the cluster's)")(
      "gpus-per-shard", po::value<int64_t>()->default_value(0), "G: each shard asks for G GPUs (--gres=gpu:G)")(
      "time", po::value<std::string>()->default_value(""), "each job's time limit, in Slurm's format (4:00:00)")(
      "account", po::value<std::string>()->default_value(""), "the account the jobs are charged to")(
      "extra-sbatch", po::value<std::vector<std::string>>(),
      "more sbatch options for both scripts, e.g. '--qos=high --mem=32G' (repeatable)")(
      "dry-run", "print the job scripts and the sbatch commands; write and submit nothing");
  po::positional_options_description positional;
  positional.add("file", 1).add("override", -1);
  auto values = parse_arguments(kUsage, options, positional, arguments, exit_code);
  if (!values) return std::nullopt;
  exit_code = kExitUsage;
  if (!values->count("file") || !values->count("shards")) {
    std::cerr << "error: slurm needs a run file and --shards N, e.g. tritongym slurm examples/quickstart.yaml --shards 3\n"
              << "usage: " << kUsage << "\n";
    return std::nullopt;
  }
  SubmitRequest request;
  request.run_file = (*values)["file"].as<std::string>();
  request.shard_count = (*values)["shards"].as<int64_t>();
  request.dry_run = values->count("dry-run") > 0;
  if (request.shard_count < 1) {
    std::cerr << "error: --shards must be 1 or more, not " << request.shard_count << "\n";
    return std::nullopt;
  }
  if (values->count("override")) request.overrides = (*values)["override"].as<std::vector<std::string>>();
  for (const auto& assignment : request.overrides)
    if (!config::is_override(assignment)) {
      std::cerr << "error: '" << assignment << "' is not an override; write key.sub=value\n";
      return std::nullopt;
    }
  slurm::SlurmJobOptions& job = request.job;
  job.partition = (*values)["partition"].as<std::string>();
  job.account = (*values)["account"].as<std::string>();
  job.time_limit = (*values)["time"].as<std::string>();
  job.gpus_per_shard = (*values)["gpus-per-shard"].as<int64_t>();
  if (job.gpus_per_shard < 0) {
    std::cerr << "error: --gpus-per-shard must be 0 or more\n";
    return std::nullopt;
  }
  auto extra = slurm::parse_extra_sbatch(values->count("extra-sbatch") ? (*values)["extra-sbatch"].as<std::vector<std::string>>()
                                                                       : std::vector<std::string>{});
  if (!extra) {
    print_error(extra.status());
    return std::nullopt;
  }
  job.extra_sbatch = extra.value();
  if (!job.time_limit.empty()) {
    auto limit = slurm::parse_time_limit_seconds(job.time_limit);
    if (!limit) {
      print_error(limit.status());
      return std::nullopt;
    }
    request.time_limit_seconds = limit.value();
  }
  for (const auto& [value, what] : {std::pair{job.partition, "--partition"}, {job.account, "--account"},
                                    {job.time_limit, "--time"}})
    if (Status status = slurm::check_sbatch_value(value, what); !status.is_ok()) {
      print_error(status);
      return std::nullopt;
    }
  exit_code = kExitOk;
  return request;
}

// The run as `run` resolves it, with output.dir made absolute: every shard runs this file, whatever happens to
// the run file (or the workflow files it names) while the jobs wait in the queue.
Result<config::RunConfig> resolve_run(const CliContext& context, const SubmitRequest& request) {
  auto loaded = config::load_run_config(request.run_file, request.overrides, context.project_root);
  if (!loaded) return loaded.status();
  std::string run_dir = loaded->output_dir;
  while (run_dir.size() > 1 && run_dir.back() == '/') run_dir.pop_back();
  if (Status status = slurm::check_sbatch_value(run_dir, "the run folder (output.dir)"); !status.is_ok()) return status;
  std::vector<std::string> pinned = request.overrides;
  pinned.push_back("output.dir=" + run_dir);
  auto run = config::load_run_config(request.run_file, pinned, context.project_root);
  if (run) run->output_dir = run_dir;
  return run;
}

// When SIGTERM comes before the time limit: the run's wrap-up time, or a quarter of a limit shorter than that.
void fit_stop_time(slurm::SlurmJobOptions& job, const config::RunConfig& run, int64_t time_limit_seconds) {
  job.stop_seconds_before_limit = stop_seconds(run);
  if (time_limit_seconds == 0 || job.stop_seconds_before_limit <= time_limit_seconds / 4 * 3) return;
  job.stop_seconds_before_limit = std::max<int64_t>(time_limit_seconds / 4, 1);
  std::cerr << "note: --time " << job.time_limit << " leaves less than the run's wrap-up time (its "
            << "budget.max_wall_seconds and a minute); each shard is asked to stop " << job.stop_seconds_before_limit
            << " s before its limit\n";
}

struct JobFiles {
  std::string folder, run_file, shard_script, merge_script;
  std::string run_text, shard_text, merge_text;
};

JobFiles job_files(const slurm::JobScriptInputs& inputs, const config::RunConfig& run) {
  JobFiles files;
  files.folder = slurm::slurm_folder(inputs.run_dir);
  files.run_file = (fs::path(files.folder) / slurm::kRunFile).string();
  files.shard_script = (fs::path(files.folder) / slurm::kShardScript).string();
  files.merge_script = (fs::path(files.folder) / slurm::kMergeScript).string();
  files.run_text = "# resolved by `tritongym slurm` at " + inputs.written_at + " from " + inputs.source +
                   "\n# every shard of the run runs this file\n" + config::to_yaml(run.resolved);
  files.shard_text = slurm::shard_array_script(inputs);
  files.merge_text = slurm::merge_script(inputs);
  return files;
}

void print_dry_run(const JobFiles& files) {
  std::cout << "# dry run: nothing written, nothing submitted. Without --dry-run, " << files.folder << "/ gets:\n"
            << "#   " << slurm::kRunFile << " (the resolved run file every shard runs), " << slurm::kShardScript << ", "
            << slurm::kMergeScript << ", " << slurm::kSubmissionsFile << ", logs/\n"
            << "# and these are submitted:\n"
            << "#   sbatch --parsable " << files.shard_script << "\n"
            << "#   sbatch --parsable --dependency=afterany:<the array's job id> " << files.merge_script << "\n"
            << "\n# ---- " << files.shard_script << "\n" << files.shard_text
            << "\n# ---- " << files.merge_script << "\n" << files.merge_text;
}

Status write_job_files(const JobFiles& files, const std::string& run_dir) {
  std::error_code error;
  fs::create_directories(slurm::logs_folder(run_dir), error);
  if (error) return Status(StatusCode::unavailable, "cannot create " + slurm::logs_folder(run_dir) + ": " + error.message());
  for (const auto& [path, text, executable] : {std::tuple{files.run_file, files.run_text, false},
                                               {files.shard_script, files.shard_text, true},
                                               {files.merge_script, files.merge_text, true}})
    if (Status status = write_file(path, text, executable); !status.is_ok()) return status;
  return {};
}

// Submits the array, then the merge after it, recording each job as soon as Slurm has it.
int submit_jobs(const slurm::SlurmCommands& commands, const JobFiles& files, slurm::SubmissionRecord record,
                const std::string& submitted_at, int64_t episodes) {
  slurm::Submission submission;
  submission.submitted_at = submitted_at;
  for (int64_t index = 0; index < record.shard_count; ++index) submission.shards.push_back(index);
  auto array_job = commands.submit({}, files.shard_script);
  if (!array_job) {
    print_error(array_job.status());
    return kExitFailure;
  }
  submission.array_job = array_job.value();
  record.submissions.push_back(submission);
  if (Status status = slurm::write_submission_record(record); !status.is_ok()) print_error(status);
  auto merge_job = commands.submit({"--dependency=afterany:" + submission.array_job}, files.merge_script);
  if (!merge_job) {
    print_error(merge_job.status());
    std::cerr << "the shards are submitted (job array " << submission.array_job << "); `tritongym slurm resume "
              << record.run_dir << "` submits the merge\n";
    return kExitFailure;
  }
  record.submissions.back().merge_job = merge_job.value();
  if (Status status = slurm::write_submission_record(record); !status.is_ok()) print_error(status);

  std::cout << "submitted run '" << record.run_name << "' (" << episodes << " episodes) to Slurm as "
            << record.shard_count << " shards\n"
            << "  shards: job array " << submission.array_job << " (tasks " << slurm::array_spec(submission.shards)
            << "), " << files.shard_script << "\n"
            << "  merge:  job " << merge_job.value() << ", once every shard has ended (afterany), into "
            << record.run_dir << "/" << slurm::kMergedFolder << "\n"
            << "  logs:   " << slurm::logs_folder(record.run_dir) << "/shard-I.log, merge.log\n";
  print_watch_hints(record.run_dir, record.shard_count, {submission.array_job, merge_job.value()});
  return kExitOk;
}

}  // namespace

int slurm_submit(const CliContext& context, const Arguments& arguments) {
  int exit_code = kExitOk;
  auto request = parse_request(arguments, exit_code);
  if (!request) return exit_code;
  std::string working_dir = fs::current_path().string();
  if (Status status = slurm::check_sbatch_value(working_dir, "the current folder"); !status.is_ok()) {
    print_error(status);
    return kExitUsage;
  }
  auto run = resolve_run(context, *request);
  if (!run) {
    print_error(run.status());
    switch (run.status().code()) {
      case StatusCode::not_found:
      case StatusCode::invalid_argument: return kExitUsage;
      default: return kExitConfigError;
    }
  }
  plugins::Registry registry;
  load_registry(context, registry, run->plugin_paths);
  size_t task_count = 0;
  if (Status status = check_run_plugins(context, registry, *run, task_count); !status.is_ok()) {
    print_error(status);
    return status.code() == StatusCode::invalid_config ? kExitConfigError : kExitPluginError;
  }
  int64_t episodes = static_cast<int64_t>(task_count * run->models.size() * run->workflows.size()) * run->samples;
  if (request->shard_count > episodes)
    std::cerr << "warning: " << request->shard_count << " shards for " << episodes << " episodes: "
              << request->shard_count - episodes << " shards get none\n";
  if (request->job.gpus_per_shard == 0 && run->executor.id != "tritongym.executor.triton-interpreter")
    std::cerr << "note: no --gpus-per-shard: the shards ask Slurm for no GPU, and executor '" << run->executor.id
              << "' judges on the Triton interpreter unless the partition gives GPUs anyway\n";
  fit_stop_time(request->job, *run, request->time_limit_seconds);

  slurm::JobScriptInputs inputs;
  inputs.run_name = run->name;
  inputs.run_dir = run->output_dir;
  inputs.working_dir = working_dir;
  inputs.shard_count = request->shard_count;
  inputs.tritongym = tritongym_command(context);
  inputs.options = request->job;
  inputs.written_at = run::utc_now();
  inputs.source = request->run_file;
  for (const auto& assignment : request->overrides) inputs.source += " " + assignment;
  JobFiles files = job_files(inputs, *run);
  if (request->dry_run) {
    print_dry_run(files);
    return kExitOk;
  }

  if (Status status = check_run_dir_is_new(inputs.run_dir, inputs.shard_count); !status.is_ok()) {
    print_error(status);
    return kExitFailure;
  }
  auto commands = slurm::SlurmCommands::locate(slurm::SlurmUse::submit);
  if (!commands) {
    print_error(commands.status());
    return kExitMissingRequirement;
  }
  if (Status status = write_job_files(files, inputs.run_dir); !status.is_ok()) {
    print_error(status);
    return kExitFailure;
  }
  slurm::SubmissionRecord record;
  record.run_name = run->name;
  record.run_dir = inputs.run_dir;
  record.shard_count = inputs.shard_count;
  return submit_jobs(commands.value(), files, record, inputs.written_at, episodes);
}

}  // namespace tritongym::cli
