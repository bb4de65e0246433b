// The executor that triton_executor_test.cpp judges in the binary this file is linked into.
namespace tritongym::plugins {
extern const char* const kExecutorUnderTest;
const char* const kExecutorUnderTest = "tritongym.executor.triton-cuda";
}  // namespace tritongym::plugins
