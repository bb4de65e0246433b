// The report of a run's store on the terminal and as files: what `tritongym report` prints, and what
// `tritongym run` prints when a run ends.
#pragma once

#include <iosfwd>
#include <string>

#include "store/run_store.hpp"
#include "tritongym/sdk/status.hpp"

namespace tritongym::cli {

struct RunReportOptions {
  bool json = false;      // the JSON document (report::report_to_json) instead of the tables
  std::string html_path;  // "" writes no HTML; else the self-contained page, transcripts included
  std::string trajectories_path;  // "" writes none; else one JSON line per episode, transcript included
};

// Reads the run and its episodes from `store`, prints the leaderboard (or JSON) on `out`, writes the
// HTML file when asked and then names it: on `out` after the tables, on stderr after JSON (so stdout
// stays one JSON document). An error names what could not be read or written; nothing is half-printed.
Status print_run_report(const store::RunStore& store, const RunReportOptions& options, std::ostream& out);

}  // namespace tritongym::cli
