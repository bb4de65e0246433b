#include "run/progress.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace tritongym::run {

namespace {

std::string duration_text(double seconds) {
  auto whole = static_cast<int64_t>(seconds + 0.5);
  if (whole >= 3600) return fmt::format("{}h{:02}m", whole / 3600, (whole % 3600) / 60);
  if (whole >= 60) return fmt::format("{}m{:02}s", whole / 60, whole % 60);
  return fmt::format("{}s", whole);
}

}  // namespace

ProgressDisplay::ProgressDisplay(int64_t total, const std::vector<results::EpisodeRecord>& earlier, bool terminal)
    : total_(total), already_done_(static_cast<int64_t>(earlier.size())), terminal_(terminal) {
  for (const auto& record : earlier) {
    already_passed_ += record.passed() ? 1 : 0;
    input_tokens_ += record.input_tokens;
    output_tokens_ += record.output_tokens;
    dollars_ += record.dollars;
    gpu_seconds_ += record.gpu_seconds;
  }
  std::lock_guard lock(mutex_);
  redraw();
}

std::string ProgressDisplay::status_line() const {
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  std::string eta = "?";
  if (done_ > 0) eta = duration_text(elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_));
  int64_t done = already_done_ + done_, passed = already_passed_ + passed_, planned = already_done_ + total_;
  return fmt::format("episodes {}/{}  passed {}  tokens {}in/{}out  ${:.4f}  GPU {:.1f}s  elapsed {}  ETA {}", done,
                     planned, passed, input_tokens_, output_tokens_, dollars_, gpu_seconds_, duration_text(elapsed),
                     done_ == total_ ? "0s" : eta);
}

void ProgressDisplay::redraw() {
  if (!terminal_) return;
  std::fprintf(stderr, "\r\033[K%s", status_line().c_str());
  std::fflush(stderr);
  line_open_ = true;
}

void ProgressDisplay::episode_finished(const results::EpisodeRecord& record) {
  std::lock_guard lock(mutex_);
  ++done_;
  if (record.passed()) ++passed_;
  input_tokens_ += record.input_tokens;
  output_tokens_ += record.output_tokens;
  dollars_ += record.dollars;
  gpu_seconds_ += record.gpu_seconds;
  if (terminal_) {
    redraw();
    return;
  }
  spdlog::info("episode {} {}: {} ({:.1f}s) | {}", already_done_ + done_, record.key.key(), record.verdict,
               record.wall_seconds, status_line());
}

void ProgressDisplay::note(const std::string& line) {
  std::lock_guard lock(mutex_);
  if (terminal_ && line_open_) std::fprintf(stderr, "\r\033[K");
  spdlog::warn("{}", line);
  redraw();
}

void ProgressDisplay::finish() {
  std::lock_guard lock(mutex_);
  if (terminal_ && line_open_) {
    std::fprintf(stderr, "\r\033[K%s\n", status_line().c_str());
    line_open_ = false;
  }
}

int64_t ProgressDisplay::done() const {
  std::lock_guard lock(mutex_);
  return done_;
}

int64_t ProgressDisplay::passed() const {
  std::lock_guard lock(mutex_);
  return passed_;
}

}  // namespace tritongym::run
