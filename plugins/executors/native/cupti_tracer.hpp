// CUPTI kernel tracing for the worker's timing loop (docs/timing.md).
//
// Activity tracing of concurrent kernels, memcpys and memsets, switched on around the timed window
// only. Every launch API call (driver and runtime) is seen by a callback, which stamps its correlation
// id with the index of the timed call in progress (set_call), so each GPU activity is attributed to the
// call that launched it, whatever stream it ran on and whenever it ran.
//
// libcupti is opened with dlopen: the module imports where there is none, and says so. One CUPTI
// subscriber per process: a second (torch.profiler, Nsight) makes start() fail with CUPTI's reason.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tritongym::native {

struct GpuActivity {
  enum class Kind { kernel, memcpy, memset } kind = Kind::kernel;
  std::string name;          // demangled kernel name; "memcpy HtoD" / "memset" for the others
  uint64_t start_ns = 0;     // GPU timestamps
  uint64_t end_ns = 0;
  uint32_t stream_id = 0;    // CUPTI's stream id (compare with stream_id_of)
  uint32_t correlation_id = 0;
  int64_t call = -1;         // the timed call that launched it; -1: outside every call
  uint32_t grid[3] = {0, 0, 0};
  uint32_t block[3] = {0, 0, 0};
  int32_t registers_per_thread = 0;
  int32_t shared_memory_bytes = 0;  // static + dynamic
  uint64_t bytes = 0;        // memcpy / memset
};

class KernelTracer {
 public:
  // The process's one tracer.
  static KernelTracer& instance();

  // Opens libcupti from the first of `paths` that loads (an already loaded libcupti is preferred).
  // Returns "" on success, else why not. Idempotent.
  std::string load(const std::vector<std::string>& paths);
  bool loaded() const { return library_ != nullptr; }
  std::string library_path() const { return library_path_; }

  // Subscribes, enables the activity kinds and the launch callbacks. "" on success, else why not.
  std::string start();
  // Attributes launches from now on to `call` (-1: none). Cheap: one atomic store.
  void set_call(int64_t call);
  // Flushes every buffer (after the caller synchronised the device), disables tracing, unsubscribes,
  // and returns what ran since start(), in completion order.
  std::vector<GpuActivity> stop();
  // What ran since start() or the last drain(), flushed the same way (after the caller synchronised), while
  // tracing goes on: a window traced whole (the candidate's turn alone on the GPU) is read in parts.
  std::vector<GpuActivity> drain();
  // CUPTI's id of a CUDA stream handle (as torch.cuda.Stream.cuda_stream gives it) in `context`
  // (a CUcontext); -1 when it cannot be resolved.
  int64_t stream_id_of(void* context, uintptr_t stream_handle);

 private:
  KernelTracer() = default;
  void* library_ = nullptr;
  std::string library_path_;
  bool running_ = false;
  void* subscriber_ = nullptr;
};

}  // namespace tritongym::native
