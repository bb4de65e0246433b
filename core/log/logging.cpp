#include "log/logging.hpp"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace tritongym::log {
namespace {

class SpdlogHostLog final : public HostLog {
 public:
  void write(LogLevel level, std::string_view message) noexcept override {
    try {
      spdlog::level::level_enum mapped = spdlog::level::info;
      switch (level) {
        case LogLevel::trace: mapped = spdlog::level::trace; break;
        case LogLevel::debug: mapped = spdlog::level::debug; break;
        case LogLevel::info: mapped = spdlog::level::info; break;
        case LogLevel::warn: mapped = spdlog::level::warn; break;
        case LogLevel::error: mapped = spdlog::level::err; break;
      }
      spdlog::log(mapped, "{}", message);
    } catch (...) {
      // a log line is never worth a crash
    }
  }
};

}  // namespace

Result<int> parse_level(const std::string& name) {
  auto level = spdlog::level::from_str(name);
  if (level == spdlog::level::off && name != "off")
    return Status(StatusCode::invalid_argument,
                  "unknown log level '" + name + "' (use trace, debug, info, warn, error or off)");
  return static_cast<int>(level);
}

void init(int level) {
  auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  sink->set_level(static_cast<spdlog::level::level_enum>(level));
  auto logger = std::make_shared<spdlog::logger>("tritongym", sink);
  logger->set_level(spdlog::level::trace);
  logger->set_pattern("%^[%l]%$ %v");
  spdlog::set_default_logger(logger);
}

Status add_file_sink(const std::string& path) {
  try {
    auto sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(path);
    sink->set_level(spdlog::level::debug);
    sink->set_pattern("%Y-%m-%dT%H:%M:%S.%e [%l] %v");
    spdlog::default_logger()->sinks().push_back(sink);
    return {};
  } catch (const std::exception& error) {
    return Status(StatusCode::unavailable, "cannot open log file " + path + ": " + error.what());
  }
}

HostLog& host_log() {
  static SpdlogHostLog instance;
  return instance;
}

}  // namespace tritongym::log
