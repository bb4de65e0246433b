#include "slurm/serve_record.hpp"

#include <boost/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace tritongym::slurm {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

constexpr const char* kSchema = "tritongym.slurm-serve.v1";

std::string record_path(const std::string& servers_dir) { return (fs::path(servers_dir) / kServeRecordFile).string(); }

json::value to_json(const ServeRecord& record) {
  json::array jobs;
  for (const auto& job : record.jobs)
    jobs.push_back({{"job", job.job}, {"submitted_at", job.submitted_at}, {"servers", job.servers},
                    {"placement", job.placement}});
  return {{"schema", kSchema}, {"servers_dir", record.servers_dir}, {"jobs", jobs}};
}

// Throws std::exception (boost::system::system_error, std::invalid_argument) on a bad record.
ServeRecord from_json(const json::value& value) {
  const json::object& top = value.as_object();
  if (json::value_to<std::string>(top.at("schema")) != kSchema)
    throw std::invalid_argument(std::string("schema is not ") + kSchema);
  ServeRecord record;
  record.servers_dir = json::value_to<std::string>(top.at("servers_dir"));
  for (const auto& item : top.at("jobs").as_array()) {
    const json::object& entry = item.as_object();
    ServeJob job;
    job.job = json::value_to<std::string>(entry.at("job"));
    job.submitted_at = json::value_to<std::string>(entry.at("submitted_at"));
    job.servers = entry.at("servers").to_number<int64_t>();
    job.placement = json::value_to<std::string>(entry.at("placement"));
    if (job.job.empty() || job.job.find_first_not_of("0123456789") != std::string::npos)
      throw std::invalid_argument("job id '" + job.job + "' is not a Slurm job id");
    record.jobs.push_back(std::move(job));
  }
  return record;
}

}  // namespace

std::vector<std::string> ServeRecord::job_ids() const {
  std::vector<std::string> ids;
  for (const auto& job : jobs) ids.push_back(job.job);
  return ids;
}

Result<ServeRecord> read_serve_record(const std::string& servers_dir) {
  std::string path = record_path(servers_dir);
  std::ifstream in(path);
  if (!in)
    return Status(StatusCode::not_found, servers_dir + " holds no servers submitted to Slurm (" + path +
                                             " is missing); start them with `tritongym slurm serve --dir " +
                                             servers_dir + " ...`");
  std::stringstream text;
  text << in.rdbuf();
  try {
    return from_json(json::parse(text.str()));
  } catch (const std::exception& error) {
    return Status(StatusCode::invalid_config, path + " is not a record of `tritongym slurm serve`: " + error.what());
  }
}

Status write_serve_record(const ServeRecord& record) {
  std::string path = record_path(record.servers_dir), temporary = path + ".new";
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
