// Commands whose engine lands with a later issue: they say so plainly and exit non-zero.
#include <iostream>
#include <map>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"

namespace tritongym::cli {

int command_not_yet(const std::string& command, const Arguments&) {
  static const std::map<std::string, std::string> lands_with = {
      {"report", "\"Runs, results and reports\" (metrics and the HTML leaderboard)"},
  };
  auto found = lands_with.find(command);
  std::cerr << "error: `tritongym " << command << "` is not in this version yet; it lands with the issue "
            << (found == lands_with.end() ? std::string("that builds it") : found->second) << "\n";
  return kExitNotAvailable;
}

}  // namespace tritongym::cli
