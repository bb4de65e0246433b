#include "run/interrupt.hpp"

#include <atomic>
#include <csignal>

namespace tritongym::run {

namespace {
std::atomic<int> signal_count{0};
std::atomic<int> last_signal_number{0};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs a lock-free counter");

extern "C" void count_signal(int number) {
  last_signal_number.store(number);
  signal_count.fetch_add(1);
}
}  // namespace

struct InterruptWatch::Saved {
  struct sigaction interrupt {};
  struct sigaction terminate {};
};

InterruptWatch::InterruptWatch() : saved_(new Saved) {
  signal_count.store(0);
  last_signal_number.store(0);
  struct sigaction action {};
  action.sa_handler = count_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, &saved_->interrupt);
  sigaction(SIGTERM, &action, &saved_->terminate);
}

InterruptWatch::~InterruptWatch() {
  sigaction(SIGINT, &saved_->interrupt, nullptr);
  sigaction(SIGTERM, &saved_->terminate, nullptr);
  delete saved_;
}

int InterruptWatch::count() const { return signal_count.load(); }
int InterruptWatch::last_signal() const { return last_signal_number.load(); }

}  // namespace tritongym::run
