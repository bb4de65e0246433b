// How many candidate workers the triton-cuda executor runs by default, from the GPUs the driver reports.
#include <gtest/gtest.h>

#include "worker_count.hpp"

namespace tritongym::triton_executor {
namespace {

std::vector<environment::GpuInfo> gpus_of(std::initializer_list<int64_t> mebibytes) {
  std::vector<environment::GpuInfo> gpus;
  for (int64_t mib : mebibytes) {
    environment::GpuInfo gpu;
    gpu.index = static_cast<int>(gpus.size());
    gpu.memory_bytes = mib << 20;
    gpus.push_back(gpu);
  }
  return gpus;
}

TEST(WorkerCount, FollowsEachGpusMemory) {
  EXPECT_EQ(automatic_workers(gpus_of({143771}), 16), 4);                 // H200: capped at 4
  EXPECT_EQ(automatic_workers(gpus_of({81559}), 16), 3);                  // 80 GB
  EXPECT_EQ(automatic_workers(gpus_of({40536}), 16), 2);                  // 40 GB
  EXPECT_EQ(automatic_workers(gpus_of({24564}), 16), 1);                  // 24 GB
  EXPECT_EQ(automatic_workers(gpus_of({81559, 81559}), 64), 6);           // summed over GPUs
}

TEST(WorkerCount, CpuCoresBoundTheWorkersButEveryGpuGetsOne) {
  EXPECT_EQ(automatic_workers(gpus_of({143771}), 4), 2);                  // one per two cores
  EXPECT_EQ(automatic_workers(gpus_of({143771, 143771, 143771, 143771}), 4), 4);  // at least one per GPU
  EXPECT_EQ(automatic_workers(gpus_of({143771}), 1), 1);
  EXPECT_EQ(automatic_workers({}, 16), 0);                                // no GPU: none
}

TEST(WorkerCount, TheDriverEitherCountsGpusOrSaysWhyItCannot) {
  std::string why;
  auto gpus = environment::probe_gpus(&why);
  if (!gpus.empty()) {
    for (const auto& gpu : gpus) EXPECT_GT(gpu.memory_bytes, int64_t{1} << 30);
  } else {
    EXPECT_FALSE(why.empty());  // no driver library here, or no device: said, not silent
  }
}

}  // namespace
}  // namespace tritongym::triton_executor
