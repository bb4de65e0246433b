// tritongym.executor.remote's parts without a server: endpoint addresses and files, Retry-After, the health
// report, and how the endpoint pool picks, takes out and brings back endpoints. The whole executor against real
// `tritongym serve` processes is tests/integration/remote_executor_test.cpp.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <atomic>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>

#include "endpoint_pool.hpp"
#include "remote_config.hpp"
#include "remote_executor.hpp"
#include "retry_timing.hpp"

namespace tritongym::remote {
namespace {

namespace fs = std::filesystem;

TEST(RemoteEndpoints, AddressesParseWithTheirPortAndBadOnesSayWhere) {
  auto plain = parse_endpoint("gpu1.cluster:8000", "/endpoints/0");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->host, "gpu1.cluster");
  EXPECT_EQ(plain->port, "8000");
  auto url = parse_endpoint(" http://10.0.0.2:9000/ ", "/endpoints/1");
  ASSERT_TRUE(url);
  EXPECT_EQ(url->text(), "10.0.0.2:9000");
  auto v6 = parse_endpoint("[::1]:8000", "x");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->text(), "[::1]:8000");
  for (const char* bad : {"gpu1", "gpu1:", ":8000", "gpu1:80000", "gpu1:http", "::1:8000", "", "a b:1"}) {
    auto refused = parse_endpoint(bad, "/endpoints/3");
    ASSERT_FALSE(refused) << bad;
    EXPECT_EQ(refused.status().location(), "/endpoints/3");
    EXPECT_NE(refused.status().message().find("host:port"), std::string::npos) << refused.status().message();
  }
  auto tls = parse_endpoint("https://gpu1:443", "/endpoints/0");
  ASSERT_FALSE(tls);
  EXPECT_NE(tls.status().message().find("plain HTTP"), std::string::npos);
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("remote-parts-" + std::to_string(std::random_device{}()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

TEST(RemoteEndpoints, TheFileAddsItsLinesAfterTheListedOnesWithoutRepeats) {
  TempDir dir;
  std::ofstream((dir.path / "hosts").string()) << "# written by the serve jobs\n\nnode7:8000\n  node8:8000  # gpu\n"
                                                 "gpu1:8000\n";
  RemoteConfig config;
  config.endpoints = {"gpu1:8000"};
  config.endpoints_file = (dir.path / "hosts").string();
  auto read = read_endpoints(config);
  ASSERT_TRUE(read) << read.status().to_string();
  ASSERT_EQ(read->size(), 3u);
  EXPECT_EQ((*read)[0].text(), "gpu1:8000");
  EXPECT_EQ((*read)[1].text(), "node7:8000");
  EXPECT_EQ((*read)[2].text(), "node8:8000");

  std::ofstream((dir.path / "hosts").string()) << "node7:8000\nnode8\n";
  auto bad = read_endpoints(config);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.status().message().find("hosts:2"), std::string::npos) << bad.status().message();

  // A file not written yet: fine while the config lists endpoints, an error when it is the only source.
  config.endpoints_file = (dir.path / "later").string();
  EXPECT_TRUE(read_endpoints(config));
  config.endpoints.clear();
  EXPECT_FALSE(read_endpoints(config));
}

TEST(RemoteEndpoints, TheFolderAddsEveryEndpointFileInItButThoseBeingWritten) {
  TempDir dir;
  fs::path folder = dir.path / "endpoints";
  fs::create_directories(folder);
  // As `tritongym slurm serve`'s servers write them (serve --endpoint-file): a comment, then HOST:PORT.
  std::ofstream((folder / "12-1.endpoint").string()) << "# tritongym serve on node8 (pid 7)\nnode8:41000\n";
  std::ofstream((folder / "12-0.endpoint").string()) << "# tritongym serve on node7 (pid 9)\nnode7:40000\n";
  std::ofstream((folder / ".12-2.endpoint.tmp-33").string()) << "node9:1\n";  // being written: not yet
  std::ofstream((folder / "notes.txt").string()) << "not an endpoint\n";
  RemoteConfig config;
  config.endpoints = {"node8:41000"};
  config.endpoints_dir = folder.string();
  auto read = read_endpoints(config);
  ASSERT_TRUE(read) << read.status().to_string();
  ASSERT_EQ(read->size(), 2u);
  EXPECT_EQ((*read)[0].text(), "node8:41000");
  EXPECT_EQ((*read)[1].text(), "node7:40000");

  std::ofstream((folder / "13-0.endpoint").string()) << "node9\n";
  auto bad = read_endpoints(config);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.status().message().find("13-0.endpoint:1"), std::string::npos) << bad.status().message();

  // A folder not made yet: fine while something else gives an endpoint, an error when it is the only source.
  config.endpoints_dir = (dir.path / "later").string();
  EXPECT_TRUE(read_endpoints(config));
  config.endpoints.clear();
  auto missing = read_endpoints(config);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.status().message().find("the endpoints folder " + config.endpoints_dir), std::string::npos)
      << missing.status().message();
  // An empty folder gives none, without an error: its servers have not started yet.
  fs::create_directories(dir.path / "later");
  auto empty = read_endpoints(config);
  ASSERT_TRUE(empty) << empty.status().to_string();
  EXPECT_TRUE(empty->empty());
}

TEST(RemoteConfigTest, NeedsAnEndpointAndPositiveTimesAndResolvesFilesAgainstTheProject) {
  PluginContext context;
  context.project_root = "/project";
  context.config_json = "{}";
  auto none = read_config(context);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.status().location(), "/endpoints");
  context.config_json = R"({"endpoints": ["a:1"], "timeout_seconds": 0})";
  auto zero = read_config(context);
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.status().location(), "/timeout_seconds");
  context.config_json = R"({"endpoints": ["a:1"], "retry": {"max_attempts": 0}})";
  auto attempts = read_config(context);
  ASSERT_FALSE(attempts);
  EXPECT_EQ(attempts.status().location(), "/retry/max_attempts");
  context.config_json = R"({"endpoints": ["a:1", "b"]})";
  auto bad = read_config(context);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.status().location(), "/endpoints/1");
  context.config_json = R"({"endpoints_file": "run/hosts", "endpoints_dir": "servers/endpoints", "token_file": "/etc/token"})";
  auto files = read_config(context);
  ASSERT_TRUE(files) << files.status().to_string();
  EXPECT_EQ(files->endpoints_file, "/project/run/hosts");
  EXPECT_EQ(files->endpoints_dir, "/project/servers/endpoints");
  context.config_json = R"({"endpoints_dir": "servers/endpoints"})";
  EXPECT_TRUE(read_config(context)) << "an endpoints folder alone is enough";
  EXPECT_EQ(files->token_file, "/etc/token");
}

TEST(RemoteConfigTest, TheTokenComesFromTheVariableFirstThenTheFile) {
  TempDir dir;
  std::ofstream((dir.path / "token").string()) << "from-file\n";
  RemoteConfig config;
  config.token_env = "TRITONGYM_REMOTE_PARTS_TEST_TOKEN";
  config.token_file = (dir.path / "token").string();
  ::unsetenv(config.token_env.c_str());
  EXPECT_EQ(read_token(config).value(), "from-file");
  ::setenv(config.token_env.c_str(), "from-env", 1);
  EXPECT_EQ(read_token(config).value(), "from-env");
  ::unsetenv(config.token_env.c_str());
  config.token_file = (dir.path / "missing").string();
  EXPECT_FALSE(read_token(config));
  config.token_file.clear();
  EXPECT_EQ(read_token(config).value(), "");
}

TEST(RemoteRetry, RetryAfterInSecondsOrAsADateAndABackoffThatDoubles) {
  EXPECT_EQ(retry_after_seconds({{"retry-after", "3"}}), 3.0);
  EXPECT_EQ(retry_after_seconds({{"retry-after", "0.5"}}), 0.5);
  EXPECT_FALSE(retry_after_seconds({}).has_value());
  EXPECT_FALSE(retry_after_seconds({{"retry-after", "soon"}}).has_value());
  char date[64];
  std::time_t later = std::time(nullptr) + 120;
  std::strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", std::gmtime(&later));
  auto dated = retry_after_seconds({{"retry-after", date}});
  ASSERT_TRUE(dated.has_value()) << date;
  EXPECT_NEAR(*dated, 120.0, 3.0);
  std::mt19937 random(7);
  for (int attempt = 1; attempt <= 8; ++attempt) {
    double wait = backoff_seconds(attempt, 0.5, 4.0, random);
    double full = std::min(0.5 * (1 << (attempt - 1)), 4.0);
    EXPECT_GE(wait, full * 0.5);
    EXPECT_LE(wait, full);
  }
}

TEST(RemoteRequest, TheBodyNamesTheTaskStageSeedsAndTimeout) {
  EvaluationRequest request;
  request.task.id = "standard/softmax";
  request.source_code = "def softmax(x): ...";
  request.stage = EvaluationStage::final_score;
  request.seeds_per_shape = 5;
  request.timeout_s = 30.0;
  auto body = boost::json::parse(evaluation_body(request)).as_object();
  EXPECT_EQ(body.at("task"), "standard/softmax");
  EXPECT_EQ(body.at("code"), "def softmax(x): ...");
  EXPECT_EQ(body.at("stage"), "final");
  EXPECT_EQ(body.at("seeds"), 5);
  EXPECT_EQ(body.at("timeout").to_number<double>(), 30.0);
  EXPECT_EQ(body.at("wait"), true);
  request.stage = EvaluationStage::benchmark;
  EXPECT_EQ(boost::json::parse(evaluation_body(request)).at("stage"), "benchmark");
}

ExchangeOutcome answered(int status, const std::string& body) {
  ExchangeOutcome outcome;
  outcome.reply = HttpReply{status, {}, body};
  return outcome;
}

ExchangeOutcome refused_connection() {
  ExchangeOutcome outcome;
  outcome.failure = ExchangeFailure::not_connected;
  outcome.error = "Connection refused";
  return outcome;
}

TEST(RemoteHealth, ReadyWithItsQueueOrNotReadyOrRefusedOrDead) {
  auto ready = read_health(answered(
      200, R"({"status":"ready","workers":4,"queue_depth":3,"queue_capacity":64,"executor":"tritongym.executor.triton-cuda"})"));
  EXPECT_EQ(ready.state, EndpointState::ready);
  EXPECT_EQ(ready.workers, 4);
  EXPECT_EQ(ready.queue_depth, 3);
  EXPECT_EQ(ready.executor, "tritongym.executor.triton-cuda");
  auto draining = read_health(answered(503, R"({"status":"draining"})"));
  EXPECT_EQ(draining.state, EndpointState::not_ready);
  EXPECT_EQ(draining.detail, "draining");
  auto token = read_health(answered(401, R"({"error":{"status":401,"message":"a bearer token is required"}})"));
  EXPECT_EQ(token.state, EndpointState::refused);
  EXPECT_NE(token.detail.find("bearer token"), std::string::npos);
  EXPECT_EQ(read_health(refused_connection()).state, EndpointState::dead);
  EXPECT_EQ(read_health(answered(200, "not json")).state, EndpointState::not_ready);
}

// A pool over endpoints whose health answers are set by the test.
struct ScriptedEndpoints {
  std::mutex mutex;
  std::map<std::string, ExchangeOutcome> answers;
  void set(const std::string& endpoint, ExchangeOutcome outcome) {
    std::lock_guard lock(mutex);
    answers[endpoint] = std::move(outcome);
  }
  ExchangeOutcome health(const EndpointAddress& address) {
    std::lock_guard lock(mutex);
    return answers.at(address.text());
  }
};

std::string ready_with(int workers, int queue) {
  return R"({"status":"ready","workers":)" + std::to_string(workers) + R"(,"queue_depth":)" + std::to_string(queue) + "}";
}

std::unique_ptr<EndpointPool> pool_over(ScriptedEndpoints& scripted, std::vector<std::string> names) {
  return std::make_unique<EndpointPool>(
      [names] {
        std::vector<EndpointAddress> addresses;
        for (const auto& name : names) addresses.push_back(*parse_endpoint(name, "test"));
        return Result<std::vector<EndpointAddress>>(addresses);
      },
      [&scripted](const EndpointAddress& address) { return scripted.health(address); }, PoolTimings{3600.0, 2});
}

TEST(RemotePool, PicksTheLeastWaitingPerWorkerCountingWhatItSentSince) {
  ScriptedEndpoints scripted;
  scripted.set("a:1", answered(200, ready_with(1, 2)));  // 2 waiting for 1 worker
  scripted.set("b:1", answered(200, ready_with(4, 4)));  // 1 per worker
  scripted.set("c:1", refused_connection());
  auto pool = pool_over(scripted, {"a:1", "b:1", "c:1"});
  pool->refresh();
  std::vector<EndpointLease> leases;
  // b: 4/4 = 1.0 < a: 2/1; after four more sent to b it holds 8/4 = 2.0, and a ties: the one picked longer ago.
  for (int i = 0; i < 4; ++i) {
    leases.push_back(*pool->pick());
    EXPECT_EQ(leases.back().address().text(), "b:1") << i;
  }
  leases.push_back(*pool->pick());
  EXPECT_EQ(leases.back().address().text(), "a:1");
  for (const auto& lease : leases) EXPECT_NE(lease.address().text(), "c:1");
  EXPECT_NE(pool->describe().find("c:1 dead (Connection refused)"), std::string::npos) << pool->describe();
}

TEST(RemotePool, ABusyEndpointWaitsItsTurnAndALostOneComesBackWhenItsHealthSaysReady) {
  ScriptedEndpoints scripted;
  scripted.set("a:1", answered(200, ready_with(1, 0)));
  scripted.set("b:1", answered(200, ready_with(1, 5)));
  auto pool = pool_over(scripted, {"a:1", "b:1"});
  pool->refresh();
  {
    auto lease = pool->pick();
    ASSERT_EQ(lease->address().text(), "a:1");
    pool->busy(*lease, 0.3, "HTTP 429");
  }
  EXPECT_EQ(pool->pick()->address().text(), "b:1");  // a is busy for 0.3 s, b is free though loaded
  {
    auto lease = pool->pick();
    ASSERT_EQ(lease->address().text(), "b:1");
    pool->lost(*lease, "end of stream");
  }
  EXPECT_FALSE(pool->pick().has_value()) << pool->describe();  // a busy, b lost
  pool->wait_for_change(Clock::now() + std::chrono::seconds(5));  // wakes when a's busy time ends
  auto again = pool->pick();
  ASSERT_TRUE(again.has_value()) << pool->describe();
  EXPECT_EQ(again->address().text(), "a:1");
  pool->refresh();  // b's health: ready, so it is back in
  EXPECT_TRUE(pool->any_ready());
  EXPECT_NE(pool->describe().find("b:1 ready"), std::string::npos) << pool->describe();
}

TEST(RemotePool, TwoFailedProbesInARowTakeAReadyEndpointOutAndAbandonItsEvaluations) {
  ScriptedEndpoints scripted;
  scripted.set("a:1", answered(200, ready_with(1, 0)));
  auto pool = pool_over(scripted, {"a:1"});
  pool->refresh();
  auto lease = pool->pick();
  ASSERT_TRUE(lease.has_value());
  scripted.set("a:1", refused_connection());
  pool->refresh();  // one failed probe: a hiccup, still ready
  EXPECT_TRUE(pool->any_ready());
  EXPECT_FALSE(pool->taken_out_since(*lease));
  pool->refresh();  // the second: out, and the evaluation waiting there is lost
  EXPECT_FALSE(pool->any_ready());
  EXPECT_TRUE(pool->taken_out_since(*lease));
  scripted.set("a:1", answered(200, ready_with(1, 0)));
  pool->refresh();
  EXPECT_TRUE(pool->any_ready());
  auto next = pool->pick();
  ASSERT_TRUE(next.has_value());
  EXPECT_FALSE(pool->taken_out_since(*next));
}

TEST(RemotePool, EveryEndpointRefusingTheTokenIsSaid) {
  ScriptedEndpoints scripted;
  scripted.set("a:1", answered(401, R"({"error":{"status":401,"message":"wrong token"}})"));
  auto pool = pool_over(scripted, {"a:1"});
  pool->refresh();
  EXPECT_TRUE(pool->all_refused());
  EXPECT_FALSE(pool->pick().has_value());
  EXPECT_NE(pool->describe().find("wrong token"), std::string::npos) << pool->describe();
}

}  // namespace
}  // namespace tritongym::remote
