#include "slurm/server_endpoints.hpp"

#include <gtest/gtest.h>

#include "support/test_support.hpp"

namespace tritongym::slurm {
namespace {

TEST(ServerEndpoints, ReadsEachServersFileInJobAndTaskOrder) {
  testing::TemporaryDirectory dir;
  dir.write("endpoints/12-10.endpoint", "# tritongym serve on node3 (pid 5) since 2026-12-07T08:00:00Z; bearer token in /t\n"
                                        "node3:40010\n");
  dir.write("endpoints/12-2.endpoint", "# tritongym serve on node2\nnode2:40002\n");
  dir.write("endpoints/9-0.endpoint", "\nnode1:40000\n");
  dir.write("endpoints/mine.endpoint", "gpu-box:8000\n");
  dir.write("endpoints/12-3.endpoint", "# started, no address yet\n");
  dir.write("endpoints/.12-4.endpoint.tmp-77", "node5:1\n");  // being written
  dir.write("endpoints/README", "not an endpoint file\n");
  auto read = read_server_endpoints((dir.path() / "endpoints").string());
  ASSERT_TRUE(read) << read.status().message();
  ASSERT_EQ(read->size(), 5u);
  EXPECT_EQ((*read)[0].job, "9");
  EXPECT_EQ((*read)[0].address, "node1:40000");
  EXPECT_EQ((*read)[0].note, "");
  EXPECT_EQ((*read)[1].task, "2");
  EXPECT_EQ((*read)[1].note, "tritongym serve on node2");
  EXPECT_EQ((*read)[2].task, "3");
  EXPECT_EQ((*read)[2].address, "");
  EXPECT_EQ((*read)[2].problem, "holds no HOST:PORT line");
  EXPECT_EQ((*read)[3].task, "10");
  EXPECT_EQ((*read)[3].address, "node3:40010");
  EXPECT_EQ((*read)[3].note, "tritongym serve on node3 (pid 5) since 2026-12-07T08:00:00Z; bearer token in /t");
  EXPECT_EQ((*read)[4].job, "");  // not named JOB-TASK: listed last, without a job
  EXPECT_EQ((*read)[4].address, "gpu-box:8000");
  EXPECT_TRUE((*read)[4].problem.empty());
}

TEST(ServerEndpoints, AFolderNotMadeYetHoldsNone) {
  testing::TemporaryDirectory dir;
  auto read = read_server_endpoints((dir.path() / "endpoints").string());
  ASSERT_TRUE(read);
  EXPECT_TRUE(read->empty());
}

}  // namespace
}  // namespace tritongym::slurm
