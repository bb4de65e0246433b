// `tritongym merge DIR... --into OUT`: join the stores of a run's shards, or of runs of parts of its task set, into one.
#include <iostream>

#include "cli/arguments.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "run/merge_runs.hpp"

namespace tritongym::cli {

namespace po = boost::program_options;

int command_merge(const CliContext&, const Arguments& arguments) {
  po::options_description options("merge options");
  options.add_options()("dirs", po::value<std::vector<std::string>>(), "the run folders of the shards (or parts)")(
      "into", po::value<std::string>(), "the folder of the merged store (must not hold a run yet)");
  po::positional_options_description positional;
  positional.add("dirs", -1);
  int exit_code = kExitOk;
  std::string usage = "tritongym merge DIR... --into OUT";
  auto values = parse_arguments(usage, options, positional, arguments, exit_code);
  if (!values) return exit_code;
  if (!values->count("dirs") || !values->count("into")) {
    std::cerr << "error: merge needs the shards' run folders and --into\nusage: " << usage << "\n";
    return kExitUsage;
  }
  auto merged = run::merge_runs((*values)["dirs"].as<std::vector<std::string>>(), (*values)["into"].as<std::string>());
  if (!merged) {
    print_error(merged.status());
    return merged.status().code() == StatusCode::not_found ? kExitUsage : kExitFailure;
  }
  for (const auto& note : merged->notes) std::cerr << "warning: " << note << "\n";
  std::cout << "merged " << merged->stores << " stores";
  if (merged->parts > 1) std::cout << " (" << merged->parts << " parts of one task set)";
  std::cout << ": " << merged->episodes << " episodes";
  if (merged->duplicates > 0) std::cout << " (" << merged->duplicates << " identical duplicates kept once)";
  std::cout << "; " << merged->status << "\nstore: " << merged->store_path << "\n";
  return kExitOk;
}

}  // namespace tritongym::cli
