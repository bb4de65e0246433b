#include "util/project_paths.hpp"

#include <boost/dll/runtime_symbol_info.hpp>

#include <cstdlib>
#include <filesystem>

namespace tritongym::util {

std::string project_root() {
  namespace fs = std::filesystem;
  if (const char* home = std::getenv("TRITONGYM_HOME"); home && *home) return fs::absolute(home).lexically_normal().string();
  fs::path here = boost::dll::program_location().parent_path().string();
  for (fs::path probe = here; !probe.empty() && probe != probe.root_path(); probe = probe.parent_path()) {
    if (fs::is_directory(probe / "tasks") && fs::is_directory(probe / "workflows")) return probe.string();
    fs::path shared = probe / "share" / "tritongym";
    if (fs::is_directory(shared / "tasks")) return shared.string();
  }
  return fs::current_path().string();
}

}  // namespace tritongym::util
