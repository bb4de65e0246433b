#include "gpu_inventory.hpp"

#include <dlfcn.h>

#include <algorithm>

namespace tritongym::triton_executor {

namespace {

using CuResult = int;  // CUresult; 0 is CUDA_SUCCESS
using CuInit = CuResult (*)(unsigned int);
using CuDeviceGetCount = CuResult (*)(int*);
using CuDeviceGet = CuResult (*)(int*, int);
using CuDeviceTotalMem = CuResult (*)(size_t*, int);

}  // namespace

GpuInventory query_gpus() {
  GpuInventory inventory;
  // Never closed: the driver library stays loaded for the life of the process once initialised.
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char* why = dlerror();
    inventory.error = std::string("the CUDA driver library could not be loaded: ") + (why ? why : "libcuda.so.1");
    return inventory;
  }
  auto init = reinterpret_cast<CuInit>(dlsym(library, "cuInit"));
  auto get_count = reinterpret_cast<CuDeviceGetCount>(dlsym(library, "cuDeviceGetCount"));
  auto get_device = reinterpret_cast<CuDeviceGet>(dlsym(library, "cuDeviceGet"));
  auto total_memory = reinterpret_cast<CuDeviceTotalMem>(dlsym(library, "cuDeviceTotalMem_v2"));
  if (!init || !get_count || !get_device || !total_memory) {
    inventory.error = "the CUDA driver library lacks cuInit, cuDeviceGetCount, cuDeviceGet or cuDeviceTotalMem_v2";
    return inventory;
  }
  if (CuResult code = init(0); code != 0) {
    inventory.error = "cuInit failed with CUDA error " + std::to_string(code);
    return inventory;
  }
  int count = 0;
  if (CuResult code = get_count(&count); code != 0) {
    inventory.error = "cuDeviceGetCount failed with CUDA error " + std::to_string(code);
    return inventory;
  }
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    int device = 0;
    size_t bytes = 0;
    if (get_device(&device, ordinal) != 0 || total_memory(&bytes, device) != 0) {
      inventory.memory_bytes.clear();
      inventory.error = "the memory of GPU " + std::to_string(ordinal) + " could not be read";
      return inventory;
    }
    inventory.memory_bytes.push_back(static_cast<int64_t>(bytes));
  }
  return inventory;
}

int64_t automatic_workers(const GpuInventory& gpus, int64_t cpu_cores) {
  int64_t workers = 0;
  for (int64_t bytes : gpus.memory_bytes) workers += std::min<int64_t>(4, 1 + (bytes >> 30) / 32);
  return std::max(gpus.count(), std::min(workers, std::max<int64_t>(cpu_cores / 2, 1)));
}

}  // namespace tritongym::triton_executor
