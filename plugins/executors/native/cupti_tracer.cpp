#include "cupti_tracer.hpp"

#include <cxxabi.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

#ifdef TRITONGYM_HAVE_CUPTI
#include <cupti.h>
#endif

namespace tritongym::native {

KernelTracer& KernelTracer::instance() {
  static KernelTracer tracer;  // CUPTI's callbacks are C functions: the state they reach is per process
  return tracer;
}

#ifndef TRITONGYM_HAVE_CUPTI

std::string KernelTracer::load(const std::vector<std::string>&) {
  return "tritongym_native was built without the CUPTI headers (cupti.h not found at build time)";
}
std::string KernelTracer::start() { return load({}); }
void KernelTracer::set_call(int64_t) {}
std::vector<GpuActivity> KernelTracer::stop() { return {}; }
std::vector<GpuActivity> KernelTracer::drain() { return {}; }
int64_t KernelTracer::stream_id_of(void*, uintptr_t) { return -1; }

#else

namespace {

// The CUPTI entry points, bound from the dlopen'ed library.
struct Cupti {
  decltype(&cuptiGetResultString) result_string = nullptr;
  decltype(&cuptiSubscribe) subscribe = nullptr;
  decltype(&cuptiUnsubscribe) unsubscribe = nullptr;
  decltype(&cuptiEnableCallback) enable_callback = nullptr;
  decltype(&cuptiActivityEnable) activity_enable = nullptr;
  decltype(&cuptiActivityDisable) activity_disable = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
  decltype(&cuptiActivityFlushAll) flush_all = nullptr;
  decltype(&cuptiActivityGetNextRecord) next_record = nullptr;
  decltype(&cuptiGetStreamIdEx) stream_id = nullptr;
};
Cupti api;

// Shared with the C callbacks. The launch callback runs on whatever thread launches (a candidate's
// own thread included), the buffer callback on CUPTI's thread.
std::atomic<int64_t> current_call{-1};
std::mutex state_mutex;
std::unordered_map<uint32_t, int64_t> call_of_correlation;
std::vector<GpuActivity> completed;

constexpr size_t kBufferBytes = 8u << 20;

std::string describe(CUptiResult result) {
  const char* text = nullptr;
  if (api.result_string) api.result_string(result, &text);
  return text ? text : "CUPTI error " + std::to_string(static_cast<int>(result));
}

std::string demangle(const char* name) {
  if (!name) return "?";
  int status = 0;
  char* readable = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = (status == 0 && readable) ? readable : name;
  std::free(readable);
  return out;
}

void CUPTIAPI on_launch(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void* data) {
  const auto* info = static_cast<const CUpti_CallbackData*>(data);
  if (info->callbackSite != CUPTI_API_ENTER) return;
  std::lock_guard lock(state_mutex);
  call_of_correlation[info->correlationId] = current_call.load(std::memory_order_relaxed);
}

void CUPTIAPI on_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI on_buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid_bytes) {
  CUpti_Activity* record = nullptr;
  std::vector<GpuActivity> parsed;
  while (api.next_record(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
    GpuActivity activity;
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      const auto* kernel = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      activity.kind = GpuActivity::Kind::kernel;
      activity.name = demangle(kernel->name);
      activity.start_ns = kernel->start;
      activity.end_ns = kernel->end;
      activity.stream_id = kernel->streamId;
      activity.correlation_id = kernel->correlationId;
      activity.grid[0] = kernel->gridX, activity.grid[1] = kernel->gridY, activity.grid[2] = kernel->gridZ;
      activity.block[0] = kernel->blockX, activity.block[1] = kernel->blockY, activity.block[2] = kernel->blockZ;
      activity.registers_per_thread = kernel->registersPerThread;
      activity.shared_memory_bytes = kernel->staticSharedMemory + kernel->dynamicSharedMemory;
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      const auto* copy = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      activity.kind = GpuActivity::Kind::memcpy;
      static const char* kinds[] = {"unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH"};
      activity.name = std::string("memcpy ") + (copy->copyKind < 10 ? kinds[copy->copyKind] : "other");
      activity.start_ns = copy->start;
      activity.end_ns = copy->end;
      activity.stream_id = copy->streamId;
      activity.correlation_id = copy->correlationId;
      activity.bytes = copy->bytes;
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
      const auto* set = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      activity.kind = GpuActivity::Kind::memset;
      activity.name = "memset";
      activity.start_ns = set->start;
      activity.end_ns = set->end;
      activity.stream_id = set->streamId;
      activity.correlation_id = set->correlationId;
      activity.bytes = set->bytes;
    } else {
      continue;
    }
    parsed.push_back(std::move(activity));
  }
  std::free(buffer);
  std::lock_guard lock(state_mutex);
  for (auto& activity : parsed) completed.push_back(std::move(activity));
}

template <class F>
bool bind(void* library, F& slot, const char* name, std::string& error) {
  slot = reinterpret_cast<F>(dlsym(library, name));
  if (!slot && error.empty()) error = std::string("libcupti lacks ") + name;
  return slot != nullptr;
}

// Every API call that launches GPU work, in both domains.
constexpr CUpti_CallbackId kDriverLaunches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunch, CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid, CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync, CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async, CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async,
};
constexpr CUpti_CallbackId kRuntimeLaunches[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunch_v3020, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunch_ptsz_v7000, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000, CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020,
};
constexpr CUpti_ActivityKind kActivities[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                              CUPTI_ACTIVITY_KIND_MEMSET};

}  // namespace

std::string KernelTracer::load(const std::vector<std::string>& paths) {
  if (library_) return "";
  std::vector<std::string> tried;
  // A libcupti torch already loaded is the one to use: two copies in one process would fight.
  for (const char* soname : {"libcupti.so.13", "libcupti.so.12", "libcupti.so"}) {
    if (void* handle = dlopen(soname, RTLD_NOW | RTLD_NOLOAD)) {
      library_ = handle;
      library_path_ = std::string(soname) + " (already loaded)";
      break;
    }
  }
  for (size_t i = 0; !library_ && i < paths.size(); ++i) {
    if (void* handle = dlopen(paths[i].c_str(), RTLD_NOW | RTLD_LOCAL)) {
      library_ = handle;
      library_path_ = paths[i];
    } else {
      tried.push_back(paths[i]);
    }
  }
  if (!library_) {
    std::string message = "libcupti could not be loaded (tried";
    for (const auto& path : tried) message += " " + path;
    return message + (tried.empty() ? " nothing)" : ")");
  }
  std::string error;
  bind(library_, api.result_string, "cuptiGetResultString", error);
  bind(library_, api.subscribe, "cuptiSubscribe", error);
  bind(library_, api.unsubscribe, "cuptiUnsubscribe", error);
  bind(library_, api.enable_callback, "cuptiEnableCallback", error);
  bind(library_, api.activity_enable, "cuptiActivityEnable", error);
  bind(library_, api.activity_disable, "cuptiActivityDisable", error);
  bind(library_, api.register_callbacks, "cuptiActivityRegisterCallbacks", error);
  bind(library_, api.flush_all, "cuptiActivityFlushAll", error);
  bind(library_, api.next_record, "cuptiActivityGetNextRecord", error);
  bind(library_, api.stream_id, "cuptiGetStreamIdEx", error);
  if (!error.empty()) library_ = nullptr;  // never dlclose'd: CUPTI may have threads of its own
  return error;
}

std::string KernelTracer::start() {
  if (!library_) return "libcupti is not loaded";
  if (running_) return "";
  {
    std::lock_guard lock(state_mutex);
    completed.clear();
    call_of_correlation.clear();
  }
  current_call.store(-1);
  CUpti_SubscriberHandle subscriber = nullptr;
  if (CUptiResult result = api.subscribe(&subscriber, reinterpret_cast<CUpti_CallbackFunc>(&on_launch), nullptr);
      result != CUPTI_SUCCESS)
    return "cuptiSubscribe: " + describe(result) +
           (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
                ? " (another CUPTI client is active: torch.profiler, Nsight Systems or Nsight Compute)"
                : "");
  subscriber_ = subscriber;
  for (CUpti_CallbackId id : kDriverLaunches) api.enable_callback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
  for (CUpti_CallbackId id : kRuntimeLaunches) api.enable_callback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id);
  if (CUptiResult result = api.register_callbacks(&on_buffer_requested, &on_buffer_completed);
      result != CUPTI_SUCCESS) {
    api.unsubscribe(subscriber);
    subscriber_ = nullptr;
    return "cuptiActivityRegisterCallbacks: " + describe(result);
  }
  for (CUpti_ActivityKind kind : kActivities) {
    if (CUptiResult result = api.activity_enable(kind); result != CUPTI_SUCCESS) {
      for (CUpti_ActivityKind enabled : kActivities) api.activity_disable(enabled);
      api.unsubscribe(subscriber);
      subscriber_ = nullptr;
      return "cuptiActivityEnable: " + describe(result);
    }
  }
  running_ = true;
  return "";
}

void KernelTracer::set_call(int64_t call) { current_call.store(call, std::memory_order_relaxed); }

namespace {

// What completed since the last take, each attributed to the call that launched it. The launches it came from
// are forgotten: the caller synchronised first, so nothing more of theirs will complete.
std::vector<GpuActivity> take_completed() {
  std::lock_guard lock(state_mutex);
  std::vector<GpuActivity> out = std::move(completed);
  completed.clear();
  for (auto& activity : out) {
    auto found = call_of_correlation.find(activity.correlation_id);
    activity.call = found == call_of_correlation.end() ? -1 : found->second;
  }
  for (const auto& activity : out) call_of_correlation.erase(activity.correlation_id);
  return out;
}

}  // namespace

std::vector<GpuActivity> KernelTracer::stop() {
  if (!running_) return {};
  current_call.store(-1);
  api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  for (CUpti_ActivityKind kind : kActivities) api.activity_disable(kind);
  api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  api.unsubscribe(static_cast<CUpti_SubscriberHandle>(subscriber_));
  subscriber_ = nullptr;
  running_ = false;
  std::vector<GpuActivity> out = take_completed();
  std::lock_guard lock(state_mutex);
  call_of_correlation.clear();
  return out;
}

std::vector<GpuActivity> KernelTracer::drain() {
  if (!running_) return {};
  api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  return take_completed();
}

int64_t KernelTracer::stream_id_of(void* context, uintptr_t stream_handle) {
  if (!library_ || !context) return -1;
  uint32_t id = 0;
  if (api.stream_id(static_cast<CUcontext>(context), reinterpret_cast<CUstream>(stream_handle), 0, &id) !=
      CUPTI_SUCCESS)
    return -1;
  return static_cast<int64_t>(id);
}

#endif

}  // namespace tritongym::native
