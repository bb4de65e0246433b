// The GPUs the triton-cuda executor is told of by the CUDA driver before any worker starts, and how many
// candidate workers it then runs by default.
#include <gtest/gtest.h>

#include "gpu_inventory.hpp"

namespace tritongym::triton_executor {
namespace {

GpuInventory gpus_of(std::initializer_list<int64_t> mebibytes) {
  GpuInventory inventory;
  for (int64_t mib : mebibytes) inventory.memory_bytes.push_back(mib << 20);
  return inventory;
}

TEST(GpuInventory, AutomaticWorkersFollowEachGpusMemory) {
  EXPECT_EQ(automatic_workers(gpus_of({143771}), 16), 4);                 // H200: capped at 4
  EXPECT_EQ(automatic_workers(gpus_of({81559}), 16), 3);                  // 80 GB
  EXPECT_EQ(automatic_workers(gpus_of({40536}), 16), 2);                  // 40 GB
  EXPECT_EQ(automatic_workers(gpus_of({24564}), 16), 1);                  // 24 GB
  EXPECT_EQ(automatic_workers(gpus_of({81559, 81559}), 64), 6);           // summed over GPUs
}

TEST(GpuInventory, CpuCoresBoundTheWorkersButEveryGpuGetsOne) {
  EXPECT_EQ(automatic_workers(gpus_of({143771}), 4), 2);                  // one per two cores
  EXPECT_EQ(automatic_workers(gpus_of({143771, 143771, 143771, 143771}), 4), 4);  // at least one per GPU
  EXPECT_EQ(automatic_workers(gpus_of({143771}), 1), 1);
  EXPECT_EQ(automatic_workers(GpuInventory{}, 16), 0);                    // no GPU: none
}

TEST(GpuInventory, TheDriverEitherCountsGpusOrSaysWhyItCannot) {
  GpuInventory gpus = query_gpus();
  if (gpus.count() > 0) {
    EXPECT_TRUE(gpus.error.empty()) << gpus.error;
    for (int64_t bytes : gpus.memory_bytes) EXPECT_GT(bytes, int64_t{1} << 30);
  } else {
    EXPECT_FALSE(gpus.error.empty());  // no driver library here, or no device: said, not silent
  }
}

}  // namespace
}  // namespace tritongym::triton_executor
