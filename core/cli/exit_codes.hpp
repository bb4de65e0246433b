// The CLI's exit codes (docs/cli.md lists them; scripts rely on them).
#pragma once

namespace tritongym::cli {

enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,          // the command ran and something failed (a check, a refused plugin)
  kExitUsage = 2,            // bad command line
  kExitConfigError = 3,      // a run file or manifest is invalid
  kExitPluginError = 4,      // a plugin could not be loaded or created
  kExitNotAvailable = 5,     // the command's engine is not in this version yet
  kExitMissingRequirement = 6,  // the machine lacks what the command needs (Python, GPU, ...)
};

}  // namespace tritongym::cli
