// A stand-in for the two checkpoint entry points of libcuda, for cuda_process_lock_test.cpp: it answers by pid
// and keeps the timeout it was last given.
#include <cstdint>

namespace {
unsigned int last_timeout_ms = 0;
}

extern "C" {

struct FakeLockArgs {
  unsigned int timeout_ms;
  unsigned int reserved0;
  uint64_t reserved1[7];
};

// pid 909: the work did not finish in time (CUDA_ERROR_TIMEOUT); 801: CUDA_ERROR_NOT_SUPPORTED; others: held.
__attribute__((visibility("default"))) int cuCheckpointProcessLock(int pid, FakeLockArgs* args) {
  last_timeout_ms = args ? args->timeout_ms : 0;
  return pid == 909 || pid == 801 ? pid : 0;
}

// pid 401: CUDA_ERROR_ILLEGAL_STATE (not held); others: let go.
__attribute__((visibility("default"))) int cuCheckpointProcessUnlock(int pid, void*) { return pid == 401 ? 401 : 0; }

__attribute__((visibility("default"))) unsigned int fake_last_timeout_ms() { return last_timeout_ms; }
}
