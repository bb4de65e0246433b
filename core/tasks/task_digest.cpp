#include "tasks/task_digest.hpp"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace tritongym::tasks {

namespace {

void mix(uint64_t& hash, const std::string& bytes) {
  for (unsigned char byte : bytes) {
    hash ^= byte;
    hash *= 1099511628211ULL;  // the FNV-1a 64-bit prime
  }
}

std::string read_all(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return file ? std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()) : std::string();
}

}  // namespace

std::string task_files_digest(const TaskSpec& task) {
  uint64_t hash = 14695981039346656037ULL;  // the FNV-1a 64-bit offset basis
  std::string yaml = task.directory.empty() ? "" : (std::filesystem::path(task.directory) / "task.yaml").string();
  for (const auto& [name, path] : {std::pair<const char*, std::string>{"task.yaml", yaml},
                                   {"reference.py", task.reference_path},
                                   {"oracle.py", task.oracle_path}}) {
    mix(hash, name);
    mix(hash, std::string(1, '\0'));
    mix(hash, path.empty() ? "" : read_all(path));
    mix(hash, std::string(1, '\0'));
  }
  if (!task.triton_baseline_path.empty()) {  // mixed only where it exists: other tasks keep their digests
    mix(hash, "triton_baseline.py");
    mix(hash, std::string(1, '\0'));
    mix(hash, read_all(task.triton_baseline_path));
    mix(hash, std::string(1, '\0'));
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

}  // namespace tritongym::tasks
