#include "serve/endpoint_file.hpp"

#include <unistd.h>

#include <boost/asio/ip/host_name.hpp>

#include <filesystem>
#include <fstream>

#include "run/episode_conversion.hpp"

namespace tritongym::serve {

namespace fs = std::filesystem;

std::string endpoint_file_temporary(const std::string& path) {
  fs::path target(path);
  return (target.parent_path() / ("." + target.filename().string() + ".tmp-" + std::to_string(::getpid()))).string();
}

Result<EndpointFile> EndpointFile::publish(const std::string& path, const std::string& endpoint,
                                           const std::string& token_file) {
  std::error_code error;
  fs::path folder = fs::path(path).parent_path();
  if (!folder.empty()) fs::create_directories(folder, error);
  if (error)
    return Status(StatusCode::unavailable, "--endpoint-file: cannot create " + folder.string() + ": " + error.message());
  boost::system::error_code host_error;
  std::string host = boost::asio::ip::host_name(host_error);
  std::string temporary = endpoint_file_temporary(path);
  {
    std::ofstream out(temporary);
    out << "# tritongym serve on " << (host_error ? std::string("?") : host) << " (pid " << ::getpid() << ") since "
        << run::utc_now() << "; "
        << (token_file.empty() ? std::string("no token file")
                               : "bearer token in " + fs::absolute(token_file).lexically_normal().string())
        << "\n"
        << endpoint << "\n";
    out.close();
    if (!out) {
      fs::remove(temporary, error);
      return Status(StatusCode::unavailable, "--endpoint-file: cannot write " + temporary);
    }
  }
  fs::rename(temporary, path, error);
  if (error) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    return Status(StatusCode::unavailable,
                  "--endpoint-file: cannot rename " + temporary + " to " + path + ": " + error.message());
  }
  return EndpointFile(path);
}

EndpointFile::EndpointFile(EndpointFile&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }

void EndpointFile::withdraw() noexcept {
  if (path_.empty()) return;
  std::error_code ignored;
  fs::remove(path_, ignored);
  path_.clear();
}

}  // namespace tritongym::serve
