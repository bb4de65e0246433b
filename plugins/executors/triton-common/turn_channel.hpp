// The host's end of a candidate worker's turn socket: how a timed child asks the executor for its turns on the GPU
// directly (gpu_turns.py), with no relay in its fork server. One SOCK_SEQPACKET pair per candidate worker, made
// before the worker starts: the worker gets the other end as fd 5, and every child it forks inherits it. The
// kernel stamps each message with its sender's pid (SO_PASSCRED), which a child that has dropped its capabilities
// (sandbox.py) cannot forge; child_turns.hpp decides whose messages count. Not thread-safe: one evaluation at a
// time uses a worker's channel (the lease).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "tritongym/sdk/status.hpp"

namespace tritongym::triton_executor {

class TurnChannel {
 public:
  // One message as it came: its bytes and the pid of the process that sent it.
  struct Message {
    std::string bytes;
    pid_t sender = 0;
  };

  // Makes the pair. Error: why the sockets could not be made.
  static Result<TurnChannel> make();
  TurnChannel(TurnChannel&& other) noexcept;
  TurnChannel& operator=(TurnChannel&& other) noexcept;
  TurnChannel(const TurnChannel&) = delete;
  TurnChannel& operator=(const TurnChannel&) = delete;
  ~TurnChannel();

  // The worker's end, for ChildOptions::inherited_fds; close it here once the worker has started.
  int worker_end() const { return worker_end_; }
  void close_worker_end();
  // The host's end, to wait on (readable: a message came).
  int fd() const { return host_end_; }

  // The next message, without waiting; std::nullopt when none is there.
  std::optional<Message> receive();
  // Drops every message waiting (those of a run that has ended), at most `limit`.
  void drain(int limit = 4096);
  // Sends one byte to whichever child waits for its answer on the worker's end. Error: the worker is gone.
  Status answer(char byte);

 private:
  TurnChannel(int host_end, int worker_end) : host_end_(host_end), worker_end_(worker_end) {}
  void close_all();
  int host_end_ = -1;
  int worker_end_ = -1;
};

}  // namespace tritongym::triton_executor
