#include "slurm/server_endpoints.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "slurm/serve_script.hpp"

namespace tritongym::slurm {

namespace fs = std::filesystem;

namespace {

bool all_digits(const std::string& text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
}

std::string trimmed(const std::string& text) {
  size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

ServerEndpoint read_one(const fs::path& path) {
  ServerEndpoint endpoint;
  endpoint.file = path.string();
  std::string stem = path.stem().string();
  if (size_t dash = stem.find('-'); dash != std::string::npos && all_digits(stem.substr(0, dash)) &&
                                    all_digits(stem.substr(dash + 1))) {
    endpoint.job = stem.substr(0, dash);
    endpoint.task = stem.substr(dash + 1);
  }
  std::ifstream in(path);
  if (!in) {
    endpoint.problem = "cannot be read";
    return endpoint;
  }
  for (std::string line; std::getline(in, line);) {
    std::string text = trimmed(line);
    if (text.empty()) continue;
    if (text.front() == '#') {
      if (endpoint.note.empty()) endpoint.note = trimmed(text.substr(1));
      continue;
    }
    if (endpoint.address.empty()) endpoint.address = text;
  }
  if (endpoint.address.empty()) endpoint.problem = "holds no HOST:PORT line";
  return endpoint;
}

// Job, then task, as numbers; files not named JOB-TASK after them, by name.
bool comes_before(const ServerEndpoint& a, const ServerEndpoint& b) {
  auto key = [](const ServerEndpoint& e) {
    return std::make_tuple(e.job.empty(), e.job.size(), e.job, e.task.size(), e.task, e.file);
  };
  return key(a) < key(b);
}

}  // namespace

Result<std::vector<ServerEndpoint>> read_server_endpoints(const std::string& folder) {
  std::vector<ServerEndpoint> endpoints;
  std::error_code error;
  if (!fs::exists(folder, error)) return endpoints;
  fs::directory_iterator entries(folder, error);
  if (error) return Status(StatusCode::unavailable, "cannot list " + folder + ": " + error.message());
  for (const auto& entry : entries) {
    const fs::path& path = entry.path();
    std::string name = path.filename().string();
    if (name.front() == '.' || path.extension() != kEndpointSuffix || !entry.is_regular_file(error)) continue;
    endpoints.push_back(read_one(path));
  }
  std::sort(endpoints.begin(), endpoints.end(), comes_before);
  return endpoints;
}

}  // namespace tritongym::slurm
