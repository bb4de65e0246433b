// `tritongym slurm RUN.yaml [key=value ...] --shards N [...]`: checks the run as `run` would, writes the
// resolved run file and the two job scripts into <output.dir>/slurm/, and submits the shards' job array
// and the merge job after it.
#include <boost/program_options.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>

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
    "       tritongym slurm status RUN_DIR [--json]";

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

int exit_for(const Status& status) {
  switch (status.code()) {
    case StatusCode::invalid_argument: return kExitUsage;
    case StatusCode::invalid_config: return kExitConfigError;
    case StatusCode::unavailable: return kExitMissingRequirement;
    default: return kExitFailure;
  }
}

}  // namespace

int slurm_submit(const CliContext& context, const Arguments& arguments) {
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
  int exit_code = kExitOk;
  auto values = parse_arguments(kUsage, options, positional, arguments, exit_code);
  if (!values) return exit_code;
  if (!values->count("file") || !values->count("shards")) {
    std::cerr << "error: slurm needs a run file and --shards N, e.g. tritongym slurm examples/quickstart.yaml --shards 3\n"
              << "usage: " << kUsage << "\n";
    return kExitUsage;
  }
  int64_t shard_count = (*values)["shards"].as<int64_t>();
  if (shard_count < 1) {
    std::cerr << "error: --shards must be 1 or more, not " << shard_count << "\n";
    return kExitUsage;
  }
  std::vector<std::string> overrides;
  if (values->count("override")) overrides = (*values)["override"].as<std::vector<std::string>>();
  for (const auto& assignment : overrides) {
    if (!config::is_override(assignment)) {
      std::cerr << "error: '" << assignment << "' is not an override; write key.sub=value\n";
      return kExitUsage;
    }
  }
  slurm::SlurmJobOptions job_options;
  job_options.partition = (*values)["partition"].as<std::string>();
  job_options.account = (*values)["account"].as<std::string>();
  job_options.time_limit = (*values)["time"].as<std::string>();
  job_options.gpus_per_shard = (*values)["gpus-per-shard"].as<int64_t>();
  if (job_options.gpus_per_shard < 0) {
    std::cerr << "error: --gpus-per-shard must be 0 or more\n";
    return kExitUsage;
  }
  auto extra = slurm::parse_extra_sbatch(values->count("extra-sbatch") ? (*values)["extra-sbatch"].as<std::vector<std::string>>()
                                                                       : std::vector<std::string>{});
  if (!extra) {
    print_error(extra.status());
    return kExitUsage;
  }
  job_options.extra_sbatch = extra.value();
  Result<int64_t> time_limit = int64_t{0};
  if (!job_options.time_limit.empty()) time_limit = slurm::parse_time_limit_seconds(job_options.time_limit);
  if (!time_limit) {
    print_error(time_limit.status());
    return kExitUsage;
  }
  for (const auto& [value, what] : {std::pair{job_options.partition, "--partition"}, {job_options.account, "--account"},
                                    {job_options.time_limit, "--time"}})
    if (Status status = slurm::check_sbatch_value(value, what); !status.is_ok()) {
      print_error(status);
      return kExitUsage;
    }

  // The run as `run` resolves it, with output.dir made absolute: every shard runs this file, whatever
  // happens to the run file (or the workflow files it names) while the jobs wait in the queue.
  std::string run_file = (*values)["file"].as<std::string>();
  auto loaded = config::load_run_config(run_file, overrides, context.project_root);
  if (!loaded) {
    print_error(loaded.status());
    return loaded.status().code() == StatusCode::not_found ? kExitUsage : kExitConfigError;
  }
  std::string run_dir = loaded->output_dir;
  while (run_dir.size() > 1 && run_dir.back() == '/') run_dir.pop_back();
  std::string working_dir = fs::current_path().string();
  for (const auto& [value, what] : {std::pair{run_dir, "the run folder (output.dir)"}, {working_dir, "the current folder"}})
    if (Status status = slurm::check_sbatch_value(value, what); !status.is_ok()) {
      print_error(status);
      return kExitUsage;
    }
  std::vector<std::string> pinned = overrides;
  pinned.push_back("output.dir=" + run_dir);
  auto run = config::load_run_config(run_file, pinned, context.project_root);
  if (!run) {
    print_error(run.status());
    return kExitConfigError;
  }
  plugins::Registry registry;
  load_registry(context, registry, run->plugin_paths);
  size_t task_count = 0;
  if (Status status = check_run_plugins(context, registry, *run, task_count); !status.is_ok()) {
    print_error(status);
    return status.code() == StatusCode::invalid_config ? kExitConfigError : kExitPluginError;
  }
  int64_t episodes = static_cast<int64_t>(task_count * run->models.size() * run->workflows.size()) * run->samples;
  if (shard_count > episodes)
    std::cerr << "warning: " << shard_count << " shards for " << episodes << " episodes: " << shard_count - episodes
              << " shards get none\n";
  if (job_options.gpus_per_shard == 0 && run->executor.id != "tritongym.executor.triton-interpreter")
    std::cerr << "note: no --gpus-per-shard: the shards ask Slurm for no GPU, and executor '" << run->executor.id
              << "' judges on the Triton interpreter unless the partition gives GPUs anyway\n";
  job_options.stop_seconds_before_limit = stop_seconds(*run);
  if (!job_options.time_limit.empty()) {
    // A limit shorter than the wrap-up time would stop every shard before it starts: a quarter of it then.
    int64_t limit = time_limit.value();
    if (job_options.stop_seconds_before_limit > limit / 4 * 3) {
      job_options.stop_seconds_before_limit = std::max<int64_t>(limit / 4, 1);
      std::cerr << "note: --time " << job_options.time_limit << " leaves less than the run's wrap-up time (its "
                << "budget.max_wall_seconds and a minute); each shard is asked to stop "
                << job_options.stop_seconds_before_limit << " s before its limit\n";
    }
  }

  slurm::JobScriptInputs inputs;
  inputs.run_name = run->name;
  inputs.run_dir = run_dir;
  inputs.working_dir = working_dir;
  inputs.shard_count = shard_count;
  inputs.tritongym = tritongym_command(context);
  inputs.options = job_options;
  inputs.written_at = run::utc_now();
  inputs.source = run_file;
  for (const auto& assignment : overrides) inputs.source += " " + assignment;
  std::string folder = slurm::slurm_folder(run_dir);
  std::string shard_script = (fs::path(folder) / slurm::kShardScript).string();
  std::string merge_script = (fs::path(folder) / slurm::kMergeScript).string();
  std::string shards_text = slurm::shard_array_script(inputs), merge_text = slurm::merge_script(inputs);

  if (values->count("dry-run")) {
    std::cout << "# dry run: nothing written, nothing submitted. Without --dry-run, " << folder << "/ gets:\n"
              << "#   " << slurm::kRunFile << " (the resolved run file every shard runs), " << slurm::kShardScript << ", "
              << slurm::kMergeScript << ", " << slurm::kSubmissionsFile << ", logs/\n"
              << "# and these are submitted:\n"
              << "#   sbatch --parsable " << shard_script << "\n"
              << "#   sbatch --parsable --dependency=afterany:<the array's job id> " << merge_script << "\n"
              << "\n# ---- " << shard_script << "\n" << shards_text
              << "\n# ---- " << merge_script << "\n" << merge_text;
    return kExitOk;
  }

  if (Status status = check_run_dir_is_new(run_dir, shard_count); !status.is_ok()) {
    print_error(status);
    return kExitFailure;
  }
  auto commands = slurm::SlurmCommands::locate(slurm::SlurmUse::submit);
  if (!commands) {
    print_error(commands.status());
    return kExitMissingRequirement;
  }
  std::error_code error;
  fs::create_directories(slurm::logs_folder(run_dir), error);
  if (error) {
    print_error(Status(StatusCode::unavailable, "cannot create " + slurm::logs_folder(run_dir) + ": " + error.message()));
    return kExitFailure;
  }
  std::string resolved = "# resolved by `tritongym slurm` at " + inputs.written_at + " from " + inputs.source +
                         "\n# every shard of the run runs this file\n" + config::to_yaml(run->resolved);
  for (const auto& [path, text, executable] :
       {std::tuple{(fs::path(folder) / slurm::kRunFile).string(), resolved, false},
        {shard_script, shards_text, true}, {merge_script, merge_text, true}})
    if (Status status = write_file(path, text, executable); !status.is_ok()) {
      print_error(status);
      return kExitFailure;
    }

  slurm::SubmissionRecord record;
  record.run_name = run->name;
  record.run_dir = run_dir;
  record.shard_count = shard_count;
  slurm::Submission submission;
  submission.submitted_at = inputs.written_at;
  for (int64_t index = 0; index < shard_count; ++index) submission.shards.push_back(index);
  auto array_job = commands->submit({}, shard_script);
  if (!array_job) {
    print_error(array_job.status());
    return exit_for(array_job.status());
  }
  submission.array_job = array_job.value();
  record.submissions.push_back(submission);
  if (Status status = slurm::write_submission_record(record); !status.is_ok()) print_error(status);
  auto merge_job = commands->submit({"--dependency=afterany:" + submission.array_job}, merge_script);
  if (!merge_job) {
    print_error(merge_job.status());
    std::cerr << "the shards are submitted (job array " << submission.array_job
              << "); `tritongym slurm resume " << run_dir << "` submits the merge\n";
    return exit_for(merge_job.status());
  }
  record.submissions.back().merge_job = merge_job.value();
  if (Status status = slurm::write_submission_record(record); !status.is_ok()) print_error(status);

  std::cout << "submitted run '" << run->name << "' (" << episodes << " episodes) to Slurm as " << shard_count
            << " shards\n"
            << "  shards: job array " << submission.array_job << " (tasks " << slurm::array_spec(submission.shards)
            << "), " << shard_script << "\n"
            << "  merge:  job " << merge_job.value() << ", once every shard has ended (afterany), into " << run_dir
            << "/" << slurm::kMergedFolder << "\n"
            << "  logs:   " << slurm::logs_folder(run_dir) << "/shard-I.log, merge.log\n";
  print_watch_hints(run_dir, shard_count, {submission.array_job, merge_job.value()});
  return kExitOk;
}

}  // namespace tritongym::cli
