#include "cli/arguments.hpp"

#include <iostream>

#include "cli/exit_codes.hpp"

namespace tritongym::cli {

namespace po = boost::program_options;

std::optional<po::variables_map> parse_arguments(const std::string& usage, po::options_description options,
                                                 const po::positional_options_description& positional,
                                                 const Arguments& arguments, int& exit_code) {
  options.add_options()("help,h", "show this help");
  po::variables_map values;
  try {
    po::store(po::command_line_parser(arguments).options(options).positional(positional).run(), values);
    if (values.count("help")) {
      std::cout << "usage: " << usage << "\n\n" << options;
      exit_code = kExitOk;
      return std::nullopt;
    }
    po::notify(values);
  } catch (const po::error& error) {
    std::cerr << "error: " << error.what() << "\nusage: " << usage << "\n";
    exit_code = kExitUsage;
    return std::nullopt;
  }
  return values;
}

}  // namespace tritongym::cli
