#include "child_turns.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tritongym::triton_executor {
namespace {

constexpr size_t kMaxCheckedBytes = 4 << 20;

const char* event_name(char byte) {
  switch (byte) {
    case 'i': return "gpu_idle";
    case 'w': return "gpu_wanted";
    case 'a': return "gpu_alone_wanted";
    case 't': return "gpu_alone_done";
    case 'r': return "ready_to_time";
    case 'd': return "timed";
  }
  return nullptr;
}

bool answered(char byte) { return byte == 'w' || byte == 'a' || byte == 'r' || byte == 'd'; }

}  // namespace

boost::json::value checked_cases(const std::string& folder) {
  const std::string path = folder + "/" + kCheckedFile;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat info {};
  std::string data;
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) {
    char chunk[65536];
    ssize_t got;
    while (data.size() <= kMaxCheckedBytes && (got = ::read(fd, chunk, sizeof chunk)) > 0) data.append(chunk, got);
  }
  ::close(fd);
  if (data.empty() || data.size() > kMaxCheckedBytes) return nullptr;
  boost::system::error_code error;
  boost::json::value cases = boost::json::parse(data, error);
  if (error || !cases.is_array()) return nullptr;
  for (const auto& item : cases.as_array())
    if (!item.is_object()) return nullptr;
  return cases;
}

ChildTurns::~ChildTurns() {
  if (!clock_) return;
  stop_counting();  // a run that ended while its child waited (killed at its limit)
  clock_->forget();  // the child has ended: its fork server has read what it needs
}

void ChildTurns::stop_counting() {
  counting_ = false;
  for (; waits_ > 0; --waits_) clock_->end();
  spare_readied();  // a wait for it that nothing will end now
}

void ChildTurns::spare_readied() {
  spare_readied_ = true;
  if (waiting_for_spare_) {
    waiting_for_spare_ = false;
    clock_->end();
  }
}

Result<boost::json::object> ChildTurns::start(const boost::json::object& run) {
  TurnChannel* channel = listen_ ? worker_.turns() : nullptr;
  if (channel) channel->drain();  // what a run before this one left: a late word of its fork server, its child's
  if (Status sent = worker_.send(run); !sent.is_ok()) return sent;
  return next();
}

Result<boost::json::object> ChildTurns::answer(bool go) {
  if (awaiting_) {
    const char byte = awaiting_;
    awaiting_ = 0;
    // The child goes on either way after w and a (it cannot otherwise); after r, s means no timing; after d,
    // nothing it says counts any more.
    (void)worker_.turns()->answer(byte == 'r' && !go ? 's' : 'g');
    if (waits_ > 0) {
      --waits_;
      clock_->end();
    }
    if (byte == 'r') being_timed_ = go;
    if ((byte == 'r' && !go) || byte == 'd') stop_counting();
  }
  return next();
}

void ChildTurns::take(const TurnChannel::Message& message) {
  if (message.sender <= 0 || message.bytes.empty()) return;
  if (message.sender == worker_.pid()) {  // the fork server's own word
    if (message.bytes == "R") {
      spare_readied();
    } else if (message.bytes[0] == 'C' && child_ == 0) {
      boost::system::error_code error;
      boost::json::value named = boost::json::parse(std::string_view(message.bytes).substr(1), error);
      const auto* pid = !error && named.is_object() ? named.as_object().if_contains("pid") : nullptr;
      const auto* folder = pid ? named.as_object().if_contains("folder") : nullptr;
      if (pid && pid->is_int64() && pid->as_int64() > 0 && folder && folder->is_string()) {
        child_ = static_cast<int>(pid->as_int64());
        folder_ = std::string(folder->as_string());
        clock_ = std::make_shared<HeldClock>(worker_.root + "/holds/" + std::to_string(child_));
      }
    }
    return;
  }
  if (message.sender != child_ || !counting_) return;  // another process (an earlier child's leftover), or too late
  if (message.bytes.size() != 1) {
    stop_counting();
    return;
  }
  queued_.push_back(message.bytes[0]);
  if (!spare_readied_ && !waiting_for_spare_) {  // held back until the next child has readied: not its time
    waiting_for_spare_ = true;
    clock_->begin();
  }
  if (answered(message.bytes[0])) {  // it waits from now on
    ++waits_;
    clock_->begin();
  }
}

std::optional<boost::json::object> ChildTurns::event_of(char byte) {
  const char* name = event_name(byte);
  // After r was answered g only d counts; d counts only then.
  if (!name || being_timed_ != (byte == 'd')) return std::nullopt;
  boost::json::object event{{"ok", true}, {"event", name}, {"pid", child_}};
  if (byte == 'r') {
    event["folder"] = folder_;
    event["cases"] = checked_cases(folder_);
  }
  return event;
}

Result<boost::json::object> ChildTurns::next() {
  TurnChannel* channel = listen_ ? worker_.turns() : nullptr;
  while (true) {
    while (channel && counting_ && spare_readied_ && !queued_.empty()) {
      const char byte = queued_.front();
      queued_.pop_front();
      if (auto event = event_of(byte)) {
        if (answered(byte)) awaiting_ = byte;
        return std::move(*event);
      }
      stop_counting();  // out of turn: nothing more counts, and the child's waits are not answered
    }
    auto word = worker_.receive("run", channel ? channel->fd() : -1, timeout_s_);
    if (!word) return word.status();
    if (word->has_value()) {  // the run's reply: its child has ended
      if (clock_) {
        stop_counting();
        clock_->forget();
      }
      return std::move(**word);
    }
    while (auto message = channel->receive()) take(*message);
  }
}

}  // namespace tritongym::triton_executor
