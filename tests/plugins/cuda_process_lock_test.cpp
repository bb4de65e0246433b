// CudaProcessLock against a stand-in for libcuda's two checkpoint entry points (fake_cuda_checkpoint.cpp): how it
// loads them, what timeout it passes, and what each driver answer becomes. The real driver is held in the GPU tests
// (BenchmarkTimesOnTheGpu asserts the holds of a timed child's compiles).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>

#include "cuda_process_lock.hpp"

namespace tritongym::triton_executor {
namespace {

unsigned int last_timeout_ms() {
  void* handle = ::dlopen(TRITONGYM_FAKE_CUDA, RTLD_NOW | RTLD_LOCAL);  // the one the lock loaded
  auto read = reinterpret_cast<unsigned int (*)()>(::dlsym(handle, "fake_last_timeout_ms"));
  return read ? read() : 0;
}

TEST(CudaProcessLockTest, HoldsAndLetsGoThroughTheDriversEntryPoints) {
  CudaProcessLock driver({"libdoes-not-exist.so", TRITONGYM_FAKE_CUDA});
  ASSERT_TRUE(driver.available()) << driver.why_unavailable();
  double seconds = -1.0;
  EXPECT_TRUE(driver.lock(1234, 2.5, &seconds).is_ok());
  EXPECT_EQ(last_timeout_ms(), 2500u);
  EXPECT_GE(seconds, 0.0);
  EXPECT_TRUE(driver.lock(1234, 0.0001, nullptr).is_ok());
  EXPECT_EQ(last_timeout_ms(), 1u);  // never 0, which the driver reads as "no timeout"
  EXPECT_TRUE(driver.unlock(1234).is_ok());
}

TEST(CudaProcessLockTest, EachRefusalSaysWhat) {
  CudaProcessLock driver({TRITONGYM_FAKE_CUDA});
  Status late = driver.lock(909, 3, nullptr);
  EXPECT_EQ(late.code(), StatusCode::deadline_exceeded);
  EXPECT_NE(late.message().find("process 909's GPU work did not finish within 3 s"), std::string::npos) << late.message();
  Status refused = driver.lock(801, 3, nullptr);
  EXPECT_EQ(refused.code(), StatusCode::internal);
  EXPECT_NE(refused.message().find("CUresult 801 (CUDA_ERROR_NOT_SUPPORTED)"), std::string::npos) << refused.message();
  Status not_held = driver.unlock(401);
  EXPECT_NE(not_held.message().find("cuCheckpointProcessUnlock of process 401"), std::string::npos) << not_held.message();
  EXPECT_NE(not_held.message().find("CUDA_ERROR_ILLEGAL_STATE"), std::string::npos);
}

TEST(CudaProcessLockTest, WithoutTheLibraryOrItsEntryPointsNothingIsHeld) {
  CudaProcessLock missing({"libdoes-not-exist.so"});
  EXPECT_FALSE(missing.available());
  EXPECT_EQ(missing.why_unavailable(), "libdoes-not-exist.so cannot be loaded");
  EXPECT_EQ(missing.lock(1, 1, nullptr).code(), StatusCode::unavailable);
  EXPECT_EQ(missing.unlock(1).code(), StatusCode::unavailable);

  CudaProcessLock old_driver({"libm.so.6"});  // loads, but has no checkpoint API (a driver before CUDA 12.8)
  EXPECT_FALSE(old_driver.available());
  EXPECT_NE(old_driver.why_unavailable().find("needs a CUDA 12.8 or later driver"), std::string::npos);
}

}  // namespace
}  // namespace tritongym::triton_executor
