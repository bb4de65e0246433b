#include "process_holds.hpp"

#include "cuda_process_lock.hpp"

namespace tritongym::triton_executor {

ProcessHolds::Driver ProcessHolds::cuda() {
  const CudaProcessLock& driver = CudaProcessLock::driver();
  Driver out;
  if (!driver.available()) {
    out.unavailable = driver.why_unavailable();
    return out;
  }
  out.lock = [&driver](int pid, double timeout_s, double* seconds) { return driver.lock(pid, timeout_s, seconds); };
  out.unlock = [&driver](int pid) { return driver.unlock(pid); };
  return out;
}

std::string ProcessHolds::unavailable() const {
  if (!driver_.unavailable.empty()) return driver_.unavailable;
  return driver_.lock && driver_.unlock ? "" : "no driver to hold processes";
}

Status ProcessHolds::hold(int pid, double timeout_s, double* seconds) {
  *seconds = 0.0;
  if (std::string why = unavailable(); !why.empty()) return Status(StatusCode::unavailable, why);
  std::unique_lock guard(mutex_);
  locked_.wait(guard, [&] { return !entries_[pid].locking; });
  Entry& entry = entries_[pid];
  if (entry.holders > 0) {
    ++entry.holders;
    return Status();
  }
  entry.locking = true;
  guard.unlock();
  Status locked = driver_.lock(pid, timeout_s, seconds);
  guard.lock();
  Entry& after = entries_[pid];  // std::map: the reference stays valid, looked up again for clarity
  after.locking = false;
  if (locked) after.holders = 1;
  else entries_.erase(pid);
  locked_.notify_all();
  return locked;
}

Status ProcessHolds::release(int pid) {
  std::lock_guard guard(mutex_);
  auto found = entries_.find(pid);
  if (found == entries_.end() || found->second.holders == 0)
    return Status(StatusCode::failed_precondition, "process " + std::to_string(pid) + " is not held");
  if (--found->second.holders > 0) return Status();
  entries_.erase(found);
  return driver_.unlock(pid);  // under the mutex: a new holder's lock comes after it (0.13 ms on the H200)
}

int ProcessHolds::holders(int pid) const {
  std::lock_guard guard(mutex_);
  auto found = entries_.find(pid);
  return found == entries_.end() ? 0 : found->second.holders;
}

}  // namespace tritongym::triton_executor
