#include "slurm/submission_record.hpp"

#include <boost/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace tritongym::slurm {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

std::string record_path(const std::string& run_dir) { return (fs::path(slurm_folder(run_dir)) / kSubmissionsFile).string(); }

json::value to_json(const SubmissionRecord& record) {
  json::array submissions;
  for (const auto& submission : record.submissions) {
    json::array shards;
    for (int64_t index : submission.shards) shards.push_back(index);
    submissions.push_back({{"submitted_at", submission.submitted_at}, {"array_job", submission.array_job},
                           {"shards", shards}, {"merge_job", submission.merge_job}});
  }
  return {{"schema", "tritongym.slurm.v1"}, {"run_name", record.run_name}, {"run_dir", record.run_dir},
          {"shard_count", record.shard_count}, {"submissions", submissions}};
}

// Reads the record; throws std::exception (boost::system::system_error, std::invalid_argument) on a bad one.
SubmissionRecord from_json(const json::value& value) {
  const json::object& top = value.as_object();
  if (json::value_to<std::string>(top.at("schema")) != "tritongym.slurm.v1")
    throw std::invalid_argument("schema is not tritongym.slurm.v1");
  SubmissionRecord record;
  record.run_name = json::value_to<std::string>(top.at("run_name"));
  record.run_dir = json::value_to<std::string>(top.at("run_dir"));
  record.shard_count = top.at("shard_count").to_number<int64_t>();
  if (record.shard_count < 1) throw std::invalid_argument("shard_count is below 1");
  for (const auto& item : top.at("submissions").as_array()) {
    const json::object& entry = item.as_object();
    Submission submission;
    submission.submitted_at = json::value_to<std::string>(entry.at("submitted_at"));
    submission.array_job = json::value_to<std::string>(entry.at("array_job"));
    submission.merge_job = json::value_to<std::string>(entry.at("merge_job"));
    for (const auto& index : entry.at("shards").as_array()) submission.shards.push_back(index.to_number<int64_t>());
    record.submissions.push_back(std::move(submission));
  }
  if (record.submissions.empty()) throw std::invalid_argument("it lists no submission");
  return record;
}

}  // namespace

std::string slurm_folder(const std::string& run_dir) { return (fs::path(run_dir) / kSlurmFolder).string(); }

std::optional<JobRef> SubmissionRecord::latest_shard_job(int64_t index) const {
  for (auto submission = submissions.rbegin(); submission != submissions.rend(); ++submission) {
    if (submission->array_job.empty()) continue;
    for (int64_t shard : submission->shards)
      if (shard == index) return JobRef{submission->array_job, index};
  }
  return std::nullopt;
}

std::vector<std::string> SubmissionRecord::merge_jobs() const {
  std::vector<std::string> jobs;
  for (const auto& submission : submissions)
    if (!submission.merge_job.empty()) jobs.push_back(submission.merge_job);
  return jobs;
}

std::vector<std::string> SubmissionRecord::job_ids() const {
  std::vector<std::string> jobs;
  for (const auto& submission : submissions) {
    if (!submission.array_job.empty()) jobs.push_back(submission.array_job);
    if (!submission.merge_job.empty()) jobs.push_back(submission.merge_job);
  }
  return jobs;
}

Result<SubmissionRecord> read_submission_record(const std::string& run_dir) {
  std::string path = record_path(run_dir);
  std::ifstream in(path);
  if (!in)
    return Status(StatusCode::not_found, run_dir + " holds no Slurm submission (" + path +
                                             " is missing); submit a run with `tritongym slurm RUN.yaml --shards N`");
  std::stringstream text;
  text << in.rdbuf();
  try {
    return from_json(json::parse(text.str()));
  } catch (const std::exception& error) {
    return Status(StatusCode::invalid_config, path + " is not a submission record: " + error.what());
  }
}

Status write_submission_record(const SubmissionRecord& record) {
  std::string path = record_path(record.run_dir), temporary = path + ".new";
  {
    std::ofstream out(temporary);
    out << json::serialize(to_json(record)) << "\n";
    if (!out) return Status(StatusCode::unavailable, "cannot write " + temporary);
  }
  std::error_code error;
  fs::rename(temporary, path, error);
  if (error) return Status(StatusCode::unavailable, "cannot rename " + temporary + " to " + path + ": " + error.message());
  return {};
}

}  // namespace tritongym::slurm
