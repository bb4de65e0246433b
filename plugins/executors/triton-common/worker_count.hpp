// How many candidate workers triton-cuda runs when its config says 0 (automatic), from the GPUs the CUDA
// driver reports (environment::probe_gpus, asked before any worker starts).
#pragma once

#include <cstdint>
#include <vector>

#include "tritongym/support/machine_probe.hpp"

namespace tritongym::triton_executor {

// Per GPU, one, and one more for each 32 GiB of its memory, up to 4 (an H200: 4; 80 GB: 3; 24 GB: 1); in all
// at most one per two CPU cores, and never fewer than one per GPU. Their checks share a GPU; timing takes it
// alone (docs/timing.md).
int64_t automatic_workers(const std::vector<environment::GpuInfo>& gpus, int64_t cpu_cores);

}  // namespace tritongym::triton_executor
