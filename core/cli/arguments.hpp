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

// A folder or file argument, absolute and normalized, without a trailing '/'.
std::string absolute_folder(const std::string& given);

// A command whose one positional argument is a folder (`tritongym resume DIR`, `tritongym slurm status DIR`):
// parses `options` with that folder added as "dir" (described by `folder_help`) and puts it in `folder`, absolute.
// Nullopt with `exit_code` set as parse_arguments sets it, or kExitUsage after printing "error: " + `missing`
// when no folder was given.
std::optional<boost::program_options::variables_map> parse_folder_arguments(
    const std::string& usage, const std::string& folder_help, const std::string& missing,
    boost::program_options::options_description options, const Arguments& arguments, std::string& folder,
    int& exit_code);

}  // namespace tritongym::cli
