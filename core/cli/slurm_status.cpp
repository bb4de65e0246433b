// `tritongym slurm status RUN_DIR [--json]`: each shard's store (episodes recorded, finished or not) beside
// its latest Slurm job and that job's state, then the merge. Exit 0 when every shard is complete and the
// merged store holds the whole run, 1 otherwise (the merge job ends with this command: a partial merge
// shows as a failed job).
#include <boost/json.hpp>
#include <boost/program_options.hpp>

#include <filesystem>
#include <iostream>

#include "cli/arguments.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "cli/slurm_subcommands.hpp"
#include "slurm/job_states.hpp"
#include "slurm/shard_progress.hpp"
#include "slurm/slurm_commands.hpp"
#include "slurm/submission_record.hpp"

namespace tritongym::cli {

namespace po = boost::program_options;

namespace {

// What Slurm says of the record's jobs: squeue (jobs slurmctld holds), then sacct where there is accounting.
// Never fails: what could not be asked becomes a note.
slurm::JobStates ask_slurm(const slurm::SubmissionRecord& record, std::vector<std::string>& notes) {
  slurm::JobStates states;
  auto commands = slurm::SlurmCommands::locate(slurm::SlurmUse::watch);
  if (!commands) {
    notes.push_back("Slurm's state is not shown: " + commands.status().message());
    return states;
  }
  if (auto lines = commands->queue_lines(true))
    states.add_queue_lines(lines.value());
  else
    notes.push_back("squeue: " + lines.status().message());
  if (auto lines = commands->accounting_lines(record.job_ids()))
    states.add_accounting_lines(lines.value());
  else
    notes.push_back("no accounting (jobs that slurmctld no longer holds show no state): " + lines.status().message());
  return states;
}

boost::json::object store_json(const slurm::StoreProgress& progress) {
  return {{"dir", progress.dir},          {"exists", progress.store_exists}, {"has_run", progress.has_run},
          {"status", progress.status},    {"recorded", progress.recorded},   {"planned", progress.planned},
          {"complete", progress.complete()}, {"problem", progress.problem}};
}

void add_job(boost::json::object& object, const std::optional<slurm::JobRef>& job, const slurm::JobStates& states) {
  const slurm::JobState* state = job ? states.find(*job) : nullptr;
  object["job"] = job ? job->to_string() : "";
  object["slurm_state"] = state ? state->state : "";
  object["slurm_reason"] = state ? state->reason : "";
}

}  // namespace

int slurm_status(const CliContext&, const Arguments& arguments) {
  po::options_description options("slurm status options");
  options.add_options()("json", "print one JSON document instead of the table");
  std::string run_dir;
  int exit_code = kExitOk;
  auto values =
      parse_folder_arguments("tritongym slurm status RUN_DIR [--json]", "the run folder (the run file's output.dir)",
                             "slurm status needs the run folder, e.g. tritongym slurm status runs/quickstart", options,
                             arguments, run_dir, exit_code);
  if (!values) return exit_code;
  auto record = slurm::read_submission_record(run_dir);
  if (!record) {
    print_error(record.status());
    return record.status().code() == StatusCode::not_found ? kExitUsage : kExitFailure;
  }
  std::vector<std::string> notes;
  slurm::JobStates states = ask_slurm(record.value(), notes);
  auto shards = slurm::read_shard_progress(run_dir, record->shard_count);
  auto merged = slurm::read_store_progress((std::filesystem::path(run_dir) / slurm::kMergedFolder).string());
  std::optional<slurm::JobRef> merge_job;
  if (auto jobs = record->merge_jobs(); !jobs.empty()) merge_job = slurm::JobRef{jobs.back(), std::nullopt};

  int64_t complete_shards = 0;
  bool waiting = merge_job && states.active(*merge_job);
  for (size_t index = 0; index < shards.size(); ++index) {
    complete_shards += shards[index].complete();
    auto job = record->latest_shard_job(static_cast<int64_t>(index));
    waiting = waiting || (job && states.active(*job));
  }
  bool complete = complete_shards == record->shard_count && merged.complete();

  if (values->count("json")) {
    boost::json::array shard_rows;
    for (size_t index = 0; index < shards.size(); ++index) {
      boost::json::object row{{"index", index}, {"store", store_json(shards[index])}};
      add_job(row, record->latest_shard_job(static_cast<int64_t>(index)), states);
      shard_rows.push_back(row);
    }
    boost::json::object merge;
    merge["store"] = store_json(merged);
    add_job(merge, merge_job, states);
    boost::json::array note_list;
    for (const auto& note : notes) note_list.push_back(boost::json::string(note));
    print_json(std::cout, boost::json::object{{"run_name", record->run_name}, {"run_dir", run_dir},
                                              {"shard_count", record->shard_count}, {"complete", complete},
                                              {"complete_shards", complete_shards}, {"jobs_in_slurm", waiting},
                                              {"shards", shard_rows}, {"merge", merge}, {"notes", note_list}});
    return complete ? kExitOk : kExitFailure;
  }

  std::cout << "run '" << record->run_name << "' in " << run_dir << ": " << record->shard_count << " shards, "
            << record->submissions.size() << " submission" << (record->submissions.size() == 1 ? "" : "s")
            << " (the latest at " << record->submissions.back().submitted_at << ")\n\n";
  auto state_text = [&](const std::optional<slurm::JobRef>& job) -> std::string {
    if (!job) return "-";
    const slurm::JobState* state = states.find(*job);
    return state ? state->describe() : "unknown to Slurm now";
  };
  std::vector<std::vector<std::string>> rows;
  for (size_t index = 0; index < shards.size(); ++index) {
    auto job = record->latest_shard_job(static_cast<int64_t>(index));
    rows.push_back({std::to_string(index), shards[index].describe(), job ? job->to_string() : std::string("-"),
                    state_text(job)});
  }
  rows.push_back({"merged", merged.describe(), merge_job ? merge_job->to_string() : std::string("-"),
                  state_text(merge_job)});
  print_table(std::cout, {"shard", "store", "job", "Slurm state"}, rows);
  for (const auto& note : notes) std::cout << "note: " << note << "\n";
  std::cout << "\n" << complete_shards << " of " << record->shard_count << " shards complete; ";
  if (complete)
    std::cout << "the run is complete and merged: tritongym report " << run_dir << "/" << slurm::kMergedFolder << "\n";
  else if (waiting)
    std::cout << "jobs are still in Slurm (squeue -u $USER)\n";
  else
    std::cout << "nothing is in Slurm for this run: tritongym slurm resume " << run_dir << " submits what is missing\n";
  return complete ? kExitOk : kExitFailure;
}

}  // namespace tritongym::cli
