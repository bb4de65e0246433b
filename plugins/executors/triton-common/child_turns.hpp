// The host's arbiter for one candidate run: what the child asks of its turns on the GPU, straight from the child
// over the worker's turn socket (turn_channel.hpp, gpu_turns.py), read beside the run's reply on the worker's
// channel. The fork server relays nothing; it says two things of its own on the socket, stamped with its pid: which
// child runs this request and in which folder (`C{"pid", "folder"}`, before the child has its request), and that the
// next child it forked meanwhile has readied itself (`R`). Only the named child's messages count, and none of them
// until the next child has readied (its CUDA context falls under this evaluation's share, never in another
// candidate's turn alone). The child's bytes, in the only order they count in (a byte out of turn ends what counts):
//   i  idle: compiling, its streams synchronised            -> gpu_idle          (no answer)
//   w  wants its share back                                 -> gpu_wanted        (answered)
//   a  wants the GPU alone for its autotuner's benchmarks   -> gpu_alone_wanted  (answered)
//   t  its autotuner's benchmarks are done                  -> gpu_alone_done    (no answer)
//   r  checked and idle, ready to be timed                  -> ready_to_time     (answered: g to be timed, s not)
//   d  after r was answered g: its timed calls are done     -> timed             (answered; nothing counts after)
// The time the child waits for an answer, and the time its words are held back until the next child has readied, are
// waits on its HeldClock (held_clock.hpp), so that they count neither against its limit nor in its wall time. Not thread-safe: the evaluation that leased the worker uses it.
#pragma once

#include <boost/json.hpp>

#include <deque>
#include <memory>
#include <string>

#include "held_clock.hpp"
#include "tritongym/sdk/status.hpp"
#include "worker.hpp"

namespace tritongym::triton_executor {

// What a paused child says of its cases (the run reply's `cases`) before it is timed, in its folder.
inline constexpr const char* kCheckedFile = "checked.json";

class ChildTurns {
 public:
  // `listen`: the run is timed and pauses (pause_before_timing), so its child may ask for turns; otherwise the
  // socket is not read. `timeout_s`: how long to wait for each word of the child's.
  ChildTurns(Worker& worker, bool listen, double timeout_s) : worker_(worker), listen_(listen), timeout_s_(timeout_s) {}
  ChildTurns(const ChildTurns&) = delete;
  ChildTurns& operator=(const ChildTurns&) = delete;
  ~ChildTurns();

  // Sends the run request and returns the child's first word: an event ({ok, event, pid} as in the table above;
  // ready_to_time adds `folder` and `cases`, its checked cases or null) or the run's reply.
  Result<boost::json::object> start(const boost::json::object& run);
  // Answers the event last returned (`go`: go on, or be timed; an event without an answer gets none) and returns
  // the child's next word.
  Result<boost::json::object> answer(bool go);
  // The child's waits, for CheckSuspension (null until the fork server has named the child).
  std::shared_ptr<HeldClock> clock() const { return clock_; }

 private:
  Result<boost::json::object> next();
  // Takes one message off the socket: the fork server's word, or the named child's byte (queued).
  void take(const TurnChannel::Message& message);
  // The event of the next queued byte, or std::nullopt when it ends what counts.
  std::optional<boost::json::object> event_of(char byte);
  // A byte out of turn, or the end: nothing more counts, and the waits still open end.
  void stop_counting();
  // The next child has readied (or nothing will be counted any more): the wait for it ends.
  void spare_readied();

  Worker& worker_;
  const bool listen_;
  const double timeout_s_;
  int child_ = 0;            // the child's pid, as the fork server names it
  std::string folder_;       // its folder
  bool spare_readied_ = false;
  bool counting_ = true;     // no byte out of turn yet
  bool being_timed_ = false; // said ready, and was answered g
  char awaiting_ = 0;        // the byte whose answer the child waits for
  std::deque<char> queued_;  // the child's bytes not handled yet
  int waits_ = 0;            // its bytes that wait for an answer, each a wait on clock_
  bool waiting_for_spare_ = false;  // its words are held back until the next child has readied: a wait on clock_
  std::shared_ptr<HeldClock> clock_;
};

// The cases a paused child wrote to its folder (kCheckedFile): a list of objects, or null when it left none the
// host can read. A plain file of at most 4 MiB only: the candidate may have put a link or a pipe there.
boost::json::value checked_cases(const std::string& folder);

}  // namespace tritongym::triton_executor
