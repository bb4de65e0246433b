// Ctrl-C and SIGTERM during a run: the first asks the run to stop starting episodes (the running ones
// finish and are recorded), the second asks it to stop at once. The handler only counts signals; the
// run engine polls the count. The count is process-wide state by necessity (a signal handler has no
// other way to speak), and lives only while an InterruptWatch is in scope.
#pragma once

namespace tritongym::run {

class InterruptWatch {
 public:
  InterruptWatch();   // installs the SIGINT and SIGTERM handlers, count 0
  ~InterruptWatch();  // restores the previous handlers
  InterruptWatch(const InterruptWatch&) = delete;
  InterruptWatch& operator=(const InterruptWatch&) = delete;
  int count() const;  // signals received since construction
  int last_signal() const;

 private:
  struct Saved;
  Saved* saved_;
};

}  // namespace tritongym::run
