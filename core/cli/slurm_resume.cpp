// `tritongym slurm resume RUN_DIR`: submits again the shards of a submitted run that are not complete (by
// their stores) and that no Slurm job will run (by squeue), as one job array of just those indices, and a new
// merge job after them; a merge job still waiting is cancelled, since the new one replaces it.
#include <boost/program_options.hpp>

#include <filesystem>
#include <iostream>

#include "cli/arguments.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "cli/slurm_subcommands.hpp"
#include "run/episode_conversion.hpp"
#include "slurm/job_scripts.hpp"
#include "slurm/resume_plan.hpp"
#include "slurm/shard_progress.hpp"
#include "slurm/slurm_commands.hpp"
#include "slurm/submission_record.hpp"
#include "store/run_store.hpp"

namespace tritongym::cli {

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

// A store that holds no run (its process was stopped while it started) cannot be resumed; the shard starts
// afresh without it. Its WAL files go with it.
Status remove_empty_store(const std::string& dir) {
  std::error_code error;
  for (const char* suffix : {"", "-wal", "-shm"}) {
    fs::remove(fs::path(dir) / (std::string(store::kStoreFileName) + suffix), error);
    if (error) return Status(StatusCode::unavailable, "cannot remove the empty store in " + dir + ": " + error.message());
  }
  return {};
}

}  // namespace

int slurm_resume(const CliContext&, const Arguments& arguments) {
  std::string run_dir;
  int exit_code = kExitOk;
  if (!parse_folder_arguments("tritongym slurm resume RUN_DIR", "the run folder (the run file's output.dir)",
                              "slurm resume needs the run folder, e.g. tritongym slurm resume runs/quickstart",
                              po::options_description("slurm resume options"), arguments, run_dir, exit_code))
    return exit_code;
  auto record = slurm::read_submission_record(run_dir);
  if (!record) {
    print_error(record.status());
    return record.status().code() == StatusCode::not_found ? kExitUsage : kExitFailure;
  }
  auto commands = slurm::SlurmCommands::locate(slurm::SlurmUse::resume);
  if (!commands) {
    print_error(commands.status());
    return kExitMissingRequirement;
  }
  // Without squeue's answer nothing is resubmitted: a shard still running would run twice at once.
  auto queued_lines = commands->queue_lines(false);
  if (!queued_lines) {
    print_error(queued_lines.status());
    return kExitMissingRequirement;
  }
  slurm::JobStates queued;
  queued.add_queue_lines(queued_lines.value());
  auto shards = slurm::read_shard_progress(run_dir, record->shard_count);
  auto merged = slurm::read_store_progress((fs::path(run_dir) / slurm::kMergedFolder).string());
  slurm::ResumePlan plan = slurm::plan_resume(record.value(), shards, merged, queued);
  for (const auto& note : plan.notes) std::cout << note << "\n";
  if (plan.resubmit.empty() && !plan.submit_merge) {
    std::cout << "nothing submitted\n";
    return kExitOk;
  }

  std::string folder = slurm::slurm_folder(run_dir);
  std::string shard_script = (fs::path(folder) / slurm::kShardScript).string();
  std::string merge_script = (fs::path(folder) / slurm::kMergeScript).string();
  for (int64_t index : plan.empty_stores)
    if (Status status = remove_empty_store(slurm::shard_dir(run_dir, index, record->shard_count)); !status.is_ok()) {
      print_error(status);
      return kExitFailure;
    }
  if (Status status = commands->cancel(plan.cancel); !status.is_ok()) {
    print_error(status);
    return kExitFailure;
  }
  for (const auto& job : plan.cancel) std::cout << "cancelled the merge job " << job << " (a new one replaces it)\n";

  slurm::Submission submission;
  submission.submitted_at = run::utc_now();
  std::vector<std::string> dependencies;
  if (!plan.resubmit.empty()) {
    auto array_job = commands->submit({"--array=" + slurm::array_spec(plan.resubmit)}, shard_script);
    if (!array_job) {
      print_error(array_job.status());
      return kExitFailure;
    }
    submission.array_job = array_job.value();
    submission.shards = plan.resubmit;
    dependencies.push_back(array_job.value());
    std::cout << "submitted again: shard" << (plan.resubmit.size() > 1 ? "s " : " ") << slurm::array_spec(plan.resubmit)
              << " as job array " << array_job.value() << "\n";
  }
  for (const auto& job : plan.still_queued) dependencies.push_back(job.to_string());
  record->submissions.push_back(submission);
  if (Status status = slurm::write_submission_record(record.value()); !status.is_ok()) print_error(status);

  std::string dependency;
  for (const auto& job : dependencies) dependency += (dependency.empty() ? "afterany:" : ":") + job;
  auto merge_job = commands->submit(dependency.empty() ? std::vector<std::string>{}
                                                       : std::vector<std::string>{"--dependency=" + dependency},
                                    merge_script);
  if (!merge_job) {
    print_error(merge_job.status());
    return kExitFailure;
  }
  record->submissions.back().merge_job = merge_job.value();
  if (Status status = slurm::write_submission_record(record.value()); !status.is_ok()) print_error(status);
  std::string waits_for;
  for (const auto& job : dependencies) waits_for += (waits_for.empty() ? "" : ", ") + job;
  std::cout << "merge: job " << merge_job.value()
            << (waits_for.empty() ? "" : ", once " + waits_for + (dependencies.size() > 1 ? " have" : " has") + " ended")
            << "\n";
  std::vector<std::string> jobs = {merge_job.value()};
  if (!submission.array_job.empty()) jobs.insert(jobs.begin(), submission.array_job);
  print_watch_hints(run_dir, record->shard_count, jobs);
  return kExitOk;
}

}  // namespace tritongym::cli
