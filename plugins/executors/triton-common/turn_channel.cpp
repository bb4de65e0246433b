#include "turn_channel.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace tritongym::triton_executor {

Result<TurnChannel> TurnChannel::make() {
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends) != 0)
    return Status(StatusCode::unavailable, std::string("cannot make a candidate worker's turn socket: ") + std::strerror(errno));
  int on = 1;
  if (::setsockopt(ends[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0) {
    const int error = errno;
    ::close(ends[0]);
    ::close(ends[1]);
    return Status(StatusCode::unavailable, std::string("cannot learn who writes on a turn socket: ") + std::strerror(error));
  }
  return TurnChannel(ends[0], ends[1]);
}

TurnChannel::TurnChannel(TurnChannel&& other) noexcept { *this = std::move(other); }

TurnChannel& TurnChannel::operator=(TurnChannel&& other) noexcept {
  if (this != &other) {
    close_all();
    host_end_ = std::exchange(other.host_end_, -1);
    worker_end_ = std::exchange(other.worker_end_, -1);
  }
  return *this;
}

TurnChannel::~TurnChannel() { close_all(); }

void TurnChannel::close_all() {
  close_worker_end();
  if (host_end_ >= 0) ::close(host_end_);
  host_end_ = -1;
}

void TurnChannel::close_worker_end() {
  if (worker_end_ >= 0) ::close(worker_end_);
  worker_end_ = -1;
}

std::optional<TurnChannel::Message> TurnChannel::receive() {
  if (host_end_ < 0) return std::nullopt;
  char data[4096];
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
  iovec part{data, sizeof data};
  msghdr header{};
  header.msg_iov = &part;
  header.msg_iovlen = 1;
  header.msg_control = control;
  header.msg_controllen = sizeof control;
  ssize_t got;
  do {
    got = ::recvmsg(host_end_, &header, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  } while (got < 0 && errno == EINTR);
  if (got < 0) return std::nullopt;
  Message message;
  message.bytes.assign(data, static_cast<size_t>(got));
  for (cmsghdr* item = CMSG_FIRSTHDR(&header); item != nullptr; item = CMSG_NXTHDR(&header, item)) {
    if (item->cmsg_level == SOL_SOCKET && item->cmsg_type == SCM_CREDENTIALS) {
      ucred credentials;
      std::memcpy(&credentials, CMSG_DATA(item), sizeof credentials);
      message.sender = credentials.pid;
    }
  }
  // A message the kernel did not stamp, or one cut short, is nobody's.
  if (header.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) message.sender = 0;
  return message;
}

void TurnChannel::drain(int limit) {
  for (int i = 0; i < limit && receive(); ++i) {
  }
}

Status TurnChannel::answer(char byte) {
  ssize_t sent;
  do {
    sent = ::send(host_end_, &byte, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
  } while (sent < 0 && errno == EINTR);
  if (sent == 1) return {};
  return Status(StatusCode::unavailable, std::string("cannot answer on the turn socket: ") + std::strerror(errno));
}

}  // namespace tritongym::triton_executor
