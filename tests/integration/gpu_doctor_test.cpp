// GPU tests of the foundation (label `gpu`): on a machine with a GPU, `tritongym doctor` must find it
// through the driver it dlopens, with the host still linking neither libcuda nor libpython.
#include <boost/json.hpp>
#include <gtest/gtest.h>

#include "support/test_support.hpp"

namespace tritongym::testing {
namespace {

TEST(GpuDoctor, FindsTheGpuTheDriverAndCudaCapableTorch) {
  if (!gpu_present()) GTEST_SKIP() << "no GPU on this machine: the gpu-labelled tests are skipped";
  auto result = run_cli({"doctor", "--json"}, "", 180);
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  auto json = boost::json::parse(result.stdout_text);
  const auto& gpus = json.at("gpus").as_array();
  ASSERT_FALSE(gpus.empty());
  for (const auto& gpu : gpus) {
    EXPECT_FALSE(gpu.at("name").as_string().empty());
    EXPECT_GT(gpu.at("memory_bytes").as_int64(), int64_t{1} << 30);
  }
  EXPECT_GT(json.at("driver").at("cuda_driver_api_version").as_int64(), 0);
  EXPECT_FALSE(json.at("driver").at("version").as_string().empty());
  EXPECT_TRUE(json.at("python").at("torch_cuda").as_bool()) << json.at("python");
  for (const auto& capability : json.at("capabilities").as_array())
    EXPECT_TRUE(capability.at("available").as_bool()) << capability;
}

}  // namespace
}  // namespace tritongym::testing
