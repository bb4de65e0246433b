// The command-line options of `tritongym serve`, in one place: `serve` parses them, and `tritongym slurm serve`
// checks the ones it passes on to the servers it starts, so that a mistake is refused at submission and not on
// a node after the job waited in the queue.
#pragma once

#include <boost/program_options.hpp>

namespace tritongym::cli {

enum class ServeOptionSet {
  all,        // every option of `tritongym serve`
  passed_on,  // those `slurm serve` passes on: all but --listen, --advertise and --endpoint-file, which it sets
};

boost::program_options::options_description serve_options_description(ServeOptionSet set);

}  // namespace tritongym::cli
