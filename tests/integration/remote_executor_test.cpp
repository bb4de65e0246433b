// tritongym.executor.remote end to end: real `tritongym serve` processes on loopback (interpreter executor), the
// real `tritongym` CLI as their client. `eval` through one server; a whole run spread over two servers, one of
// them killed while it holds evaluations, with every planned episode recorded exactly once and every evaluation's
// record naming the endpoint that judged it.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <thread>

#include "http_exchange.hpp"
#include "store/run_store.hpp"
#include "support/test_support.hpp"

namespace tritongym::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// One `tritongym serve` on 127.0.0.1 with a free port, one interpreter worker; killed when the object dies.
class ServeProcess {
 public:
  ServeProcess(const TemporaryDirectory& folder, const std::string& name) {
    process::ChildOptions options;
    options.argv = {cli_path(), "serve", "--listen", "127.0.0.1:0", "--executor", "tritongym.executor.triton-interpreter",
                    "--executor-config", R"({"workers": 1})", "--queue", "16"};
    options.working_directory = source_dir();
    options.stdout_path = (folder.path() / (name + ".stdout")).string();
    options.stderr_path = (folder.path() / (name + ".stderr")).string();
    stderr_path_ = options.stderr_path;
    auto started = process::ChildProcess::start(options);
    if (!started) {
      ADD_FAILURE() << started.status().to_string();
      return;
    }
    process_.emplace(std::move(started.value()));
    const std::regex listening("^listening on 127\\.0\\.0\\.1:([0-9]+)");
    for (auto deadline = std::chrono::steady_clock::now() + 120s; std::chrono::steady_clock::now() < deadline;) {
      std::ifstream out(options.stdout_path);
      std::string first;
      std::smatch match;
      if (std::getline(out, first) && std::regex_search(first, match, listening)) {
        port_ = match[1];
        return;
      }
      if (!process_->running()) break;
      std::this_thread::sleep_for(50ms);
    }
    ADD_FAILURE() << name << " did not say where it listens: " << process_->describe_end() << "\n" << stderr_text();
  }
  std::string endpoint() const { return "127.0.0.1:" + port_; }
  bool started() const { return !port_.empty(); }
  pid_t pid() { return process_->pid(); }
  void kill() { process_->kill_group(); }
  std::string stderr_text() const {
    std::ifstream in(stderr_path_);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  // GET /v1/health: its JSON, or null when it does not answer 200.
  boost::json::value health() const {
    remote::HttpCall call;
    call.endpoint = {"127.0.0.1", port_};
    call.target = "/v1/health";
    call.timeout_s = 5;
    auto outcome = remote::exchange(call);
    if (!outcome.reply || outcome.reply->status != 200) return nullptr;
    boost::system::error_code error;
    auto body = boost::json::parse(outcome.reply->body, error);
    return error ? boost::json::value(nullptr) : body;
  }
  bool wait_ready(std::chrono::seconds limit) const {
    for (auto deadline = std::chrono::steady_clock::now() + limit; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(200ms))
      if (health().is_object()) return true;
    return false;
  }

 private:
  std::optional<process::ChildProcess> process_;
  std::string port_;
  std::string stderr_path_;
};

std::string remote_config(const std::vector<std::string>& endpoints) {
  boost::json::array list;
  for (const auto& endpoint : endpoints) list.emplace_back(endpoint);
  return boost::json::serialize(boost::json::object{{"endpoints", list},
                                                    {"ready_timeout_seconds", 300},
                                                    {"health_interval_seconds", 0.5},
                                                    {"retry", {{"initial_delay_seconds", 0.2}}}});
}

TEST(RemoteExecutor, EvalJudgesThroughAServerAndSaysWhichEndpoint) {
  TemporaryDirectory folder;
  ServeProcess server(folder, "server");
  ASSERT_TRUE(server.started());
  const std::string task = "standard/vector-add";
  auto passed = run_cli({"--log-level", "warn", "eval", "--task", task, "--code",
                         source_dir() + "/tasks/standard/vector-add/oracle.py", "--executor", "tritongym.executor.remote",
                         "--executor-config", remote_config({"127.0.0.1:1", server.endpoint()}), "--json"},
                        "", 400);
  ASSERT_EQ(passed.exit_code, 0) << passed.stdout_text << passed.stderr_text << server.stderr_text();
  auto result = boost::json::parse(passed.stdout_text).as_object();
  EXPECT_EQ(result.at("verdict"), "passed");
  EXPECT_EQ(result.at("executor"), "tritongym.executor.remote");
  const auto& remote = result.at("record").at("remote").as_object();
  EXPECT_EQ(std::string(remote.at("endpoint").as_string()), server.endpoint());
  EXPECT_EQ(remote.at("server_executor"), "tritongym.executor.triton-interpreter");
  EXPECT_FALSE(remote.at("evaluation_id").as_string().empty());

  const std::string wrong = folder.write("wrong.py", "def vector_add(x, y):\n    return x - y\n");
  auto failed = run_cli({"--log-level", "warn", "eval", "--task", task, "--code", wrong, "--executor",
                         "tritongym.executor.remote", "--executor-config", remote_config({server.endpoint()}), "--json"},
                        "", 400);
  EXPECT_EQ(failed.exit_code, 1) << failed.stderr_text;
  EXPECT_EQ(boost::json::parse(failed.stdout_text).at("verdict"), "wrong_answer") << failed.stdout_text;

  // A task the server does not know (the fixture suite's, which the client has and the server has not) is refused
  // (404) with the server's sentence, not retried.
  fs::create_directories(folder.path() / "suites" / "tiny");
  fs::copy(source_dir() + "/tests/fixtures/suites/tiny/add-one", folder.path() / "suites" / "tiny" / "add-one",
           fs::copy_options::recursive);
  auto unknown = run_cli({"--log-level", "warn", "eval", "--task", "tiny/add-one", "--root",
                          (folder.path() / "suites").string(), "--code",
                          source_dir() + "/tests/fixtures/suites/tiny/add-one/oracle.py", "--executor",
                          "tritongym.executor.remote", "--executor-config", remote_config({server.endpoint()})},
                         "", 400);
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_NE(unknown.stderr_text.find("HTTP 404"), std::string::npos) << unknown.stderr_text;
}

TEST(RemoteExecutor, NoServerIsUnavailableWithWhatEachEndpointSaid) {
  auto result = run_cli({"--log-level", "warn", "eval", "--task", "standard/vector-add", "--code",
                         source_dir() + "/tasks/standard/vector-add/oracle.py", "--executor", "tritongym.executor.remote",
                         "--executor-config", R"({"endpoints": ["127.0.0.1:1"], "ready_timeout_seconds": 1})"},
                        "", 60);
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.stderr_text.find("no `tritongym serve` endpoint is ready"), std::string::npos) << result.stderr_text;
  EXPECT_NE(result.stderr_text.find("127.0.0.1:1 dead"), std::string::npos) << result.stderr_text;
}

TEST(RemoteExecutor, ARunOverTwoServersRecordsEveryEpisodeOnceWhenOneIsKilledMidRun) {
  TemporaryDirectory folder;
  ServeProcess first(folder, "first"), second(folder, "second");
  ASSERT_TRUE(first.started() && second.started());
  ASSERT_TRUE(first.wait_ready(300s)) << first.stderr_text();
  ASSERT_TRUE(second.wait_ready(300s)) << second.stderr_text();

  const std::vector<std::string> tasks = {"standard/vector-add", "standard/gelu", "standard/leaky-relu-scale",
                                          "standard/softmax"};
  const int samples = 2;
  std::string task_list;
  for (const auto& task : tasks) task_list += (task_list.empty() ? "" : ", ") + task;
  const std::string run_dir = (folder.path() / "run").string();
  const std::string run_file = folder.write(
      "run.yaml", "name: remote-test\n"
                  "suites:\n"
                  "  - plugin: tritongym.suite.directory\n"
                  "    config: {root: tasks, suites: [standard]}\n"
                  "    tasks: [" + task_list + "]\n"
                  "models:\n"
                  "  - name: oracle\n"
                  "    backend: tritongym.backend.oracle\n"
                  "workflows:\n"
                  "  - workflows/one-shot.yaml\n"
                  "executor:\n"
                  "  plugin: tritongym.executor.remote\n"
                  "  config: " + remote_config({first.endpoint(), second.endpoint()}) + "\n"
                  "budget: {max_turns: 2, max_wall_seconds: 900}\n"
                  "samples: " + std::to_string(samples) + "\n"
                  "max_concurrent_episodes: 4\n"
                  "output: {dir: " + run_dir + "}\n");
  process::ChildOptions options;
  options.argv = {cli_path(), "run", run_file};
  options.working_directory = source_dir();
  options.stdout_path = (folder.path() / "run.stdout").string();
  options.stderr_path = (folder.path() / "run.stderr").string();
  auto run = process::ChildProcess::start(options);
  ASSERT_TRUE(run) << run.status().to_string();

  // Killed while it holds evaluations: one running on its worker and at least one waiting in its queue.
  bool killed = false;
  for (auto deadline = std::chrono::steady_clock::now() + 400s; std::chrono::steady_clock::now() < deadline && run->running();
       std::this_thread::sleep_for(20ms)) {
    auto health = second.health();
    if (health.is_object() && health.at("queue_depth").to_number<int64_t>() >= 1) {
      second.kill();
      killed = true;
      break;
    }
  }
  ASSERT_TRUE(killed) << "the second server never held a waiting evaluation; the test proves nothing";
  for (auto deadline = std::chrono::steady_clock::now() + 600s; std::chrono::steady_clock::now() < deadline && run->running();)
    std::this_thread::sleep_for(100ms);
  ASSERT_FALSE(run->running()) << "the run did not end";
  std::ifstream out_file(options.stdout_path), err_file(options.stderr_path);
  std::string out(std::istreambuf_iterator<char>(out_file), {}), err(std::istreambuf_iterator<char>(err_file), {});
  const int planned = static_cast<int>(tasks.size()) * samples;
  EXPECT_EQ(run->describe_end(), "exit code 0") << out << err;
  EXPECT_NE(out.find(std::to_string(planned) + " of " + std::to_string(planned) + " episodes recorded, " +
                     std::to_string(planned) + " passed"),
            std::string::npos)
      << out << err;

  auto store = store::open_run_dir(run_dir);
  ASSERT_TRUE(store) << store.status().to_string();
  EXPECT_EQ(store->load_run()->executor, "tritongym.executor.remote");
  EXPECT_EQ(store->load_run()->status, "finished");
  auto episodes = store->load_episodes();
  ASSERT_TRUE(episodes);
  std::set<std::string> keys;
  for (const auto& episode : *episodes) EXPECT_TRUE(keys.insert(episode.key.key()).second) << "twice: " << episode.key.key();
  std::set<std::string> expected;
  for (const auto& task : tasks)
    for (int sample = 0; sample < samples; ++sample) expected.insert(task + "|oracle|one-shot|" + std::to_string(sample));
  EXPECT_EQ(keys, expected);

  // Every final score names its endpoint; the evaluations the killed server held were judged again by the other.
  std::map<std::string, int> judged_by;
  int moved = 0;
  for (const auto& episode : *episodes) {
    EXPECT_EQ(episode.verdict, "passed") << episode.key.key() << ": " << episode.message;
    auto evaluations = store->load_evaluations(episode.key.key());
    ASSERT_TRUE(evaluations);
    ASSERT_EQ(evaluations->size(), 1u) << episode.key.key();
    auto record = boost::json::parse((*evaluations)[0].record_json);
    const auto& remote = record.at("remote").as_object();
    const std::string endpoint(remote.at("endpoint").as_string());
    ++judged_by[endpoint];
    for (const auto& retried : remote.at("retried").as_array())
      if (std::string(retried.as_string()).rfind(second.endpoint() + ": ", 0) == 0 && endpoint == first.endpoint()) {
        ++moved;
        break;
      }
  }
  for (const auto& [endpoint, count] : judged_by)
    EXPECT_TRUE(endpoint == first.endpoint() || endpoint == second.endpoint()) << endpoint;
  EXPECT_GE(judged_by[first.endpoint()], 1);
  EXPECT_GE(moved, 1) << "no evaluation lost with the killed server was judged again by the other";
  EXPECT_NE(err.find(second.endpoint()), std::string::npos) << "the log does not say the endpoint was lost:\n" << err;
}

}  // namespace
}  // namespace tritongym::testing
