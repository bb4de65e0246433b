// `tritongym report DIR [--html FILE] [--trajectories FILE] [--json]`: the leaderboard of a run, from its store.
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "cli/arguments.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "cli/run_report.hpp"
#include "report/report.hpp"
#include "report/trajectories.hpp"

namespace tritongym::cli {

namespace po = boost::program_options;

Status print_run_report(const store::RunStore& store, const RunReportOptions& options, std::ostream& out) {
  auto run = store.load_run();
  if (!run) return run.status();
  auto episodes = store.load_episodes();
  if (!episodes) return episodes.status();
  const report::Report built = report::build_report(*run, *episodes);
  if (!options.html_path.empty()) {
    auto load_transcript = [&store](const results::EpisodeKey& key) {
      auto transcript = store.load_transcript(key.key());
      if (!transcript) throw std::runtime_error(transcript.status().message());
      return *transcript;
    };
    std::ofstream file(options.html_path, std::ios::binary | std::ios::trunc);
    if (!file) return Status(StatusCode::invalid_argument, "cannot write the HTML report to " + options.html_path);
    file << report::render_html(built, load_transcript);
    if (!file.flush()) return Status(StatusCode::internal, "writing the HTML report to " + options.html_path + " failed");
  }
  if (!options.trajectories_path.empty()) {
    std::ofstream file(options.trajectories_path, std::ios::binary | std::ios::trunc);
    if (!file) return Status(StatusCode::invalid_argument, "cannot write trajectories to " + options.trajectories_path);
    for (const auto& episode : *episodes) {
      auto transcript = store.load_transcript(episode.key.key());
      if (!transcript) return transcript.status();
      file << report::trajectory_line(episode, *transcript) << "\n";
    }
    if (!file.flush()) return Status(StatusCode::internal, "writing trajectories to " + options.trajectories_path + " failed");
  }
  std::ostream& notes = options.json ? std::cerr : out;  // stdout stays one JSON document
  if (options.json) print_json(out, report::report_to_json(built));
  else out << report::render_terminal(built) << "\n";
  if (!options.html_path.empty()) notes << "HTML report: " << options.html_path << "\n";
  if (!options.trajectories_path.empty()) notes << "trajectories (JSONL): " << options.trajectories_path << "\n";
  return Status::ok();
}

int command_report(const CliContext&, const Arguments& arguments) {
  po::options_description options("report options");
  options.add_options()("dir", po::value<std::string>(), "the run folder (holds run.sqlite)")(
      "html", po::value<std::string>(), "also write the self-contained HTML report to FILE")(
      "trajectories", po::value<std::string>(), "also write every episode with its transcript as JSONL to FILE")(
      "json", "print every metric as JSON instead of the tables");
  po::positional_options_description positional;
  positional.add("dir", 1);
  int exit_code = kExitOk;
  const std::string usage = "tritongym report DIR [--html FILE] [--trajectories FILE] [--json]";
  auto values = parse_arguments(usage, options, positional, arguments, exit_code);
  if (!values) return exit_code;
  if (!values->count("dir")) {
    std::cerr << "error: report needs the run folder\nusage: " << usage << "\n";
    return kExitUsage;
  }
  auto store = store::open_run_dir((*values)["dir"].as<std::string>());
  if (!store) {
    print_error(store.status());
    return store.status().code() == StatusCode::not_found ? kExitUsage : kExitFailure;
  }
  RunReportOptions report_options;
  report_options.json = values->count("json") > 0;
  if (values->count("html")) report_options.html_path = (*values)["html"].as<std::string>();
  if (values->count("trajectories")) report_options.trajectories_path = (*values)["trajectories"].as<std::string>();
  if (Status status = print_run_report(*store, report_options, std::cout); !status.is_ok()) {
    print_error(status);
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace tritongym::cli
