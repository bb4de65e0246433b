// Parses a command's own options with Boost.Program_options, handling --help and errors uniformly.
#pragma once

#include <boost/program_options.hpp>

#include <optional>
#include <string>

#include "cli/commands.hpp"

namespace tritongym::cli {

// Adds --help, parses `arguments`. Returns the values, or nullopt with `exit_code` set (0 after
// --help was printed, kExitUsage after an error was printed).
std::optional<boost::program_options::variables_map> parse_arguments(
    const std::string& usage, boost::program_options::options_description options,
    const boost::program_options::positional_options_description& positional, const Arguments& arguments,
    int& exit_code);

}  // namespace tritongym::cli
