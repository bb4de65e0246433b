// SERVERS_DIR/serve.json: the Slurm jobs `tritongym slurm serve` submitted from that folder, so that
// `slurm serve stop` knows what to cancel, `slurm endpoints` which endpoint files belong to a live job, and a
// second `slurm serve` into the folder sees servers that still run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tritongym/sdk/status.hpp"

namespace tritongym::slurm {

inline constexpr const char* kServeRecordFile = "serve.json";

struct ServeJob {
  std::string job;           // Slurm's job id
  std::string submitted_at;  // ISO 8601 UTC
  int64_t servers = 0;       // how many servers it starts
  std::string placement;     // "nodes" (one server a node) or "count" (tasks placed by Slurm)
};

struct ServeRecord {
  std::string servers_dir;     // absolute
  std::vector<ServeJob> jobs;  // oldest first
  std::vector<std::string> job_ids() const;
};

// not_found when the folder holds no record (nothing was submitted from it); invalid_config when the file
// cannot be read as one (the message names the file and what is wrong).
Result<ServeRecord> read_serve_record(const std::string& servers_dir);
// Written to a temporary file and renamed over the old one.
Status write_serve_record(const ServeRecord& record);

}  // namespace tritongym::slurm
