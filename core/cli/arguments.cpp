#include "cli/arguments.hpp"

#include <filesystem>
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

std::string absolute_folder(const std::string& given) {
  std::string dir = std::filesystem::absolute(given).lexically_normal().string();
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

std::optional<po::variables_map> parse_folder_arguments(const std::string& usage, const std::string& folder_help,
                                                        const std::string& missing, po::options_description options,
                                                        const Arguments& arguments, std::string& folder,
                                                        int& exit_code) {
  options.add_options()("dir", po::value<std::string>(), folder_help.c_str());
  po::positional_options_description positional;
  positional.add("dir", 1);
  auto values = parse_arguments(usage, options, positional, arguments, exit_code);
  if (!values) return std::nullopt;
  if (!values->count("dir")) {
    std::cerr << "error: " << missing << "\n";
    exit_code = kExitUsage;
    return std::nullopt;
  }
  folder = absolute_folder((*values)["dir"].as<std::string>());
  return values;
}

}  // namespace tritongym::cli
