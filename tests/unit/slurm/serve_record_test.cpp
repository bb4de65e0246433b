#include "slurm/serve_record.hpp"

#include <gtest/gtest.h>

#include "support/test_support.hpp"

namespace tritongym::slurm {
namespace {

TEST(ServeRecordTest, RoundTripsEveryJobOldestFirst) {
  testing::TemporaryDirectory dir;
  ServeRecord record;
  record.servers_dir = dir.path().string();
  record.jobs.push_back({"41", "2026-12-07T08:00:00Z", 2, "nodes"});
  record.jobs.push_back({"57", "2026-12-07T09:00:00Z", 4, "count"});
  ASSERT_TRUE(write_serve_record(record).is_ok());
  auto read = read_serve_record(dir.path().string());
  ASSERT_TRUE(read) << read.status().message();
  EXPECT_EQ(read->servers_dir, record.servers_dir);
  ASSERT_EQ(read->jobs.size(), 2u);
  EXPECT_EQ(read->jobs[1].job, "57");
  EXPECT_EQ(read->jobs[1].servers, 4);
  EXPECT_EQ(read->jobs[1].placement, "count");
  EXPECT_EQ(read->job_ids(), (std::vector<std::string>{"41", "57"}));
}

TEST(ServeRecordTest, AMissingOrBadRecordSaysWhichFile) {
  testing::TemporaryDirectory dir;
  auto missing = read_serve_record(dir.path().string());
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.status().code(), StatusCode::not_found);
  EXPECT_NE(missing.status().message().find("tritongym slurm serve --dir"), std::string::npos);
  dir.write("serve.json", R"({"schema": "tritongym.slurm-serve.v1", "servers_dir": "/x", "jobs": [{"job": "12;rm",)"
                          R"( "submitted_at": "", "servers": 1, "placement": "nodes"}]})");
  auto bad = read_serve_record(dir.path().string());
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.status().code(), StatusCode::invalid_config);
  EXPECT_NE(bad.status().message().find("serve.json"), std::string::npos) << bad.status().message();
  EXPECT_NE(bad.status().message().find("not a Slurm job id"), std::string::npos) << bad.status().message();
}

}  // namespace
}  // namespace tritongym::slurm
