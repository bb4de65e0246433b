#include "worker_count.hpp"

#include <algorithm>

namespace tritongym::triton_executor {

int64_t automatic_workers(const std::vector<environment::GpuInfo>& gpus, int64_t cpu_cores) {
  int64_t workers = 0;
  for (const auto& gpu : gpus) workers += std::min<int64_t>(4, 1 + (gpu.memory_bytes >> 30) / 32);
  const auto count = static_cast<int64_t>(gpus.size());
  return std::max(count, std::min(workers, std::max<int64_t>(cpu_cores / 2, 1)));
}

}  // namespace tritongym::triton_executor
