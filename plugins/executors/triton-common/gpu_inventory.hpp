// The GPUs this host process can see, asked of the CUDA driver (libcuda, loaded at run time: the executor
// does not link it). Knowing them before any worker starts lets the reference worker and the candidate
// workers start at once. cuInit only: no context is created here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tritongym::triton_executor {

struct GpuInventory {
  std::vector<int64_t> memory_bytes;  // one entry per visible GPU (CUDA_VISIBLE_DEVICES applies)
  std::string error;                  // why nothing could be asked: no driver library, cuInit failed, ...

  int64_t count() const { return static_cast<int64_t>(memory_bytes.size()); }
};

GpuInventory query_gpus();

// Candidate workers when the config says 0 (automatic): per GPU, one, and one more for each 32 GiB of its
// memory, up to 4 (an H200: 4; 80 GB: 3; 24 GB: 1); in all at most one per two CPU cores, and never fewer
// than one per GPU. Their checks share a GPU; timing takes it alone (docs/timing.md).
int64_t automatic_workers(const GpuInventory& gpus, int64_t cpu_cores);

}  // namespace tritongym::triton_executor
