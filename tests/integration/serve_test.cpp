// `tritongym serve` end to end: the real executable on 127.0.0.1 with the interpreter executor, driven over HTTP
// with a Beast client: every route and status code, a flood against a small queue, SIGTERM's drain, the token.
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "support/test_support.hpp"
#include "tritongym/support/child_process.hpp"

namespace tritongym::testing {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;

constexpr const char* kInterpreter = "tritongym.executor.triton-interpreter";

std::string read_file(const std::filesystem::path& path) {
  std::ifstream file(path);
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

std::string candidate(const std::string& name) {
  return read_file(source_dir() + "/tests/fixtures/candidates/vector-add/" + name);
}

struct Reply {
  int status = 0;
  std::map<std::string, std::string> headers;
  std::string body;
  boost::json::value json() const {
    boost::system::error_code error;
    auto value = boost::json::parse(body, error);
    EXPECT_FALSE(error) << "not JSON: " << body.substr(0, 300);
    return value;
  }
  std::string error_message() const {
    auto value = json();
    if (!value.is_object() || !value.as_object().contains("error")) return "(no error object) " + body;
    const auto& error = value.at("error").as_object();
    EXPECT_EQ(error.at("status").as_int64(), status) << body;
    return std::string(error.at("message").as_string());
  }
};

// One request on a fresh connection. `raw`: sent as it is instead (a request that is not HTTP).
Reply request(int port, http::verb method, const std::string& target, const std::string& body = "",
              const std::map<std::string, std::string>& headers = {}) {
  net::io_context context;
  net::ip::tcp::socket socket(context);
  socket.connect({net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)});
  timeval limit{300, 0};  // a server that never answers fails the test instead of hanging it
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  http::request<http::string_body> out{method, target, 11};
  out.set(http::field::host, "127.0.0.1");
  for (const auto& [name, value] : headers) out.set(name, value);
  out.body() = body;
  if (!body.empty() || method == http::verb::post) out.prepare_payload();
  http::write(socket, out);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64 << 20);
  http::read(socket, buffer, parser);
  Reply reply;
  reply.status = static_cast<int>(parser.get().result_int());
  for (const auto& field : parser.get()) reply.headers[std::string(field.name_string())] = std::string(field.value());
  reply.body = parser.get().body();
  return reply;
}

std::string evaluation(const std::string& task, const std::string& code, boost::json::object extra = {}) {
  boost::json::object body{{"task", task}, {"code", code}, {"seeds", 1}};
  for (auto& [key, value] : extra) body[key] = value;
  return boost::json::serialize(body);
}

// A `tritongym serve` on 127.0.0.1 with a port the system picked, killed (its whole group) when the object dies.
class Server {
 public:
  explicit Server(std::vector<std::string> arguments, std::map<std::string, std::string> environment = {}) {
    process::ChildOptions options;
    options.argv = {cli_path(), "--log-level", "debug", "serve", "--listen", "127.0.0.1:0", "--executor", kInterpreter};
    options.argv.insert(options.argv.end(), arguments.begin(), arguments.end());
    if (!environment.empty()) {
      std::map<std::string, std::string> inherited;
      for (char** variable = environ; *variable; ++variable) {
        std::string text = *variable;
        inherited[text.substr(0, text.find('='))] = text.substr(text.find('=') + 1);
      }
      for (auto& [name, value] : environment) inherited[name] = value;
      options.environment = inherited;
    }
    options.working_directory = source_dir();
    options.stdout_path = (folder_.path() / "stdout.txt").string();
    options.stderr_path = (folder_.path() / "stderr.txt").string();
    auto started = process::ChildProcess::start(options);
    if (!started) {
      ADD_FAILURE() << started.status().message();
      return;
    }
    process_.emplace(std::move(started.value()));
    for (int i = 0; i < 2000 && port_ == 0 && process_->running(); ++i) {
      std::string first = read_file(options.stdout_path);
      if (auto at = first.find("listening on 127.0.0.1:"); at == 0 && first.find('\n') != std::string::npos)
        port_ = std::stoi(first.substr(std::string("listening on 127.0.0.1:").size()));
      else ::usleep(10000);
    }
    if (port_ == 0) ADD_FAILURE() << "serve did not say where it listens; stderr: " << stderr_text();
  }
  int port() const { return port_; }
  pid_t pid() const { return process_->pid(); }
  std::string stderr_text() const { return read_file(folder_.path() / "stderr.txt"); }
  std::string stdout_text() const { return read_file(folder_.path() / "stdout.txt"); }
  // Waits for GET /v1/health to say ready; false after `seconds`.
  bool wait_ready(double seconds = 240) {
    for (auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
         std::chrono::steady_clock::now() < end && process_->running();) {
      if (request(port_, http::verb::get, "/v1/health").status == 200) return true;
      ::usleep(100000);
    }
    return false;
  }
  // How the process ended, once it has (after `seconds`, "" when it still runs).
  std::string end(double seconds) {
    for (int i = 0; i < seconds * 50 && process_->running(); ++i) ::usleep(20000);
    return process_->running() ? "" : process_->describe_end();
  }

 private:
  TemporaryDirectory folder_;
  std::optional<process::ChildProcess> process_;
  int port_ = 0;
};

// Polls GET /v1/evaluations/{id} until it is done; its last answer.
boost::json::object wait_done(int port, const std::string& location, const std::map<std::string, std::string>& headers) {
  for (int i = 0; i < 3000; ++i) {
    auto reply = request(port, http::verb::get, location, "", headers);
    EXPECT_EQ(reply.status, 200) << reply.body;
    if (reply.status != 200) return {};
    auto body = reply.json().as_object();
    if (body.at("status") == "done") return body;
    ::usleep(100000);
  }
  ADD_FAILURE() << location << " never finished";
  return {};
}

TEST(Serve, AnswersEveryRouteWithItsStatus) {
  TemporaryDirectory dir;
  const std::string token = "s3cret-token-for-the-test";
  std::string token_file = dir.write("token", token + "\n");
  std::filesystem::permissions(token_file, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  Server server({"--token-file", token_file, "--queue", "1", "--executor-config", R"({"workers": 1})",
                 "--max-body-bytes", "65536", "--max-code-bytes", "8192"});
  ASSERT_GT(server.port(), 0);
  const int port = server.port();
  const std::map<std::string, std::string> auth{{"Authorization", "Bearer " + token}};

  // Before the executor is warm: 503 starting (the interpreter's workers import torch for seconds).
  auto starting = request(port, http::verb::get, "/v1/health");
  EXPECT_EQ(starting.status, 503) << starting.body;
  EXPECT_EQ(starting.json().at("status"), "starting");
  auto early = request(port, http::verb::post, "/v1/evaluations", evaluation("standard/vector-add", "x"), auth);
  EXPECT_EQ(early.status, 503) << early.body;
  EXPECT_NE(early.error_message().find("starting"), std::string::npos);
  EXPECT_EQ(early.headers["Retry-After"], "5");

  ASSERT_TRUE(server.wait_ready()) << server.stderr_text();
  auto health = request(port, http::verb::get, "/v1/health").json().as_object();
  EXPECT_EQ(health.at("status"), "ready");
  EXPECT_EQ(health.at("workers").as_int64(), 1);
  EXPECT_EQ(health.at("queue_depth").to_number<int64_t>(), 0);
  EXPECT_EQ(health.at("queue_capacity").to_number<int64_t>(), 1);
  EXPECT_EQ(health.at("executor"), kInterpreter);

  // The token: every route but health wants it.
  auto no_token = request(port, http::verb::get, "/v1/tasks");
  EXPECT_EQ(no_token.status, 401);
  EXPECT_NE(no_token.error_message().find("Authorization: Bearer"), std::string::npos);
  EXPECT_EQ(no_token.headers["WWW-Authenticate"], "Bearer");
  auto bad_token = request(port, http::verb::post, "/v1/evaluations", evaluation("standard/vector-add", "x"),
                           {{"Authorization", "Bearer s3cret-token-for-the-tesT"}});
  EXPECT_EQ(bad_token.status, 401);
  EXPECT_EQ(bad_token.body.find(token), std::string::npos);

  // Routes and methods.
  auto tasks = request(port, http::verb::get, "/v1/tasks", "", auth);
  ASSERT_EQ(tasks.status, 200) << tasks.body;
  bool found = false;
  const boost::json::value listed = tasks.json();
  for (const auto& task : listed.at("tasks").as_array())
    if (task.at("id") == "standard/vector-add") {
      found = true;
      EXPECT_EQ(task.at("split"), "standard");
      EXPECT_TRUE(task.as_object().contains("category"));
      EXPECT_EQ(task.at("dsl"), "triton");
    }
  EXPECT_TRUE(found) << tasks.body.substr(0, 300);
  auto no_route = request(port, http::verb::get, "/v1/nothing", "", auth);
  EXPECT_EQ(no_route.status, 404);
  EXPECT_NE(no_route.error_message().find("no route GET /v1/nothing"), std::string::npos);
  auto wrong_method = request(port, http::verb::delete_, "/v1/tasks", "", auth);
  EXPECT_EQ(wrong_method.status, 405);
  EXPECT_EQ(wrong_method.headers["Allow"], "GET");
  EXPECT_EQ(request(port, http::verb::get, "/v1/evaluations", "", auth).status, 405);

  // Bodies that are refused, each with a sentence naming the field.
  auto post = [&](const std::string& body) { return request(port, http::verb::post, "/v1/evaluations", body, auth); };
  std::vector<std::pair<std::string, std::string>> refusals = {
      {"{\"task\": ", "is not JSON"},
      {"[1, 2]", "must be a JSON object, not an array"},
      {R"({"code": "x"})", "field 'task' is missing"},
      {R"({"task": 3, "code": "x"})", "field 'task' in the body of POST /v1/evaluations must be a string, not a number"},
      {evaluation("standard/vector-add", "x", {{"seed", 2}}), "unknown field 'seed'"},
      {evaluation("standard/vector-add", "x", {{"stage", "tset"}}), "did you mean 'test'"},
      {evaluation("standard/vector-add", "x", {{"seeds", 0}}), "field 'seeds'"},
      {evaluation("standard/vector-add", "x", {{"timeout", "long"}}), "field 'timeout'"},
      {evaluation("standard/vector-add", "x", {{"wait", 1}}), "field 'wait'"},
  };
  for (const auto& [body, said] : refusals) {
    auto reply = post(body);
    EXPECT_EQ(reply.status, 400) << body << " -> " << reply.body;
    EXPECT_NE(reply.error_message().find(said), std::string::npos) << body << " -> " << reply.body;
  }
  auto unknown_task = post(evaluation("standard/vector-ad", "x"));
  EXPECT_EQ(unknown_task.status, 404);
  EXPECT_NE(unknown_task.error_message().find("did you mean 'standard/vector-add'"), std::string::npos);
  auto big_code = post(evaluation("standard/vector-add", std::string(9000, '#')));
  EXPECT_EQ(big_code.status, 413);
  EXPECT_NE(big_code.error_message().find("--max-code-bytes"), std::string::npos);
  auto big_body = post(evaluation("standard/vector-add", std::string(70000, '#')));
  EXPECT_EQ(big_body.status, 413);
  EXPECT_NE(big_body.error_message().find("over the limit of 65536 bytes"), std::string::npos);

  // A candidate, waited for: what `tritongym eval --json` prints for it, with its id and the server's endpoint.
  auto judged = post(evaluation("standard/vector-add", candidate("correct.py")));
  ASSERT_EQ(judged.status, 200) << judged.body;
  auto result = judged.json().as_object();
  EXPECT_EQ(result.at("verdict"), "passed");
  EXPECT_EQ(result.at("executor"), kInterpreter);
  EXPECT_EQ(result.at("endpoint").as_string(), "127.0.0.1:" + std::to_string(port));
  EXPECT_EQ(result.at("id").as_string().size(), 32u);
  auto eval = run_cli({"eval", "--task", "standard/vector-add", "--code",
                       source_dir() + "/tests/fixtures/candidates/vector-add/correct.py", "--seeds", "1", "--executor",
                       kInterpreter, "--json"},
                      "", 300);
  ASSERT_EQ(eval.exit_code, 0) << eval.stderr_text;
  std::set<std::string> eval_keys, served_keys;
  const boost::json::value printed = boost::json::parse(eval.stdout_text);
  for (const auto& [key, value] : printed.as_object()) eval_keys.insert(key);
  for (const auto& [key, value] : result) served_keys.insert(key);
  eval_keys.insert({"id", "endpoint"});
  EXPECT_EQ(served_keys, eval_keys);

  // A candidate that crashes is a verdict, and the server goes on.
  auto crashed = post(evaluation("standard/vector-add", candidate("crash.py")));
  ASSERT_EQ(crashed.status, 200) << crashed.body;
  EXPECT_EQ(crashed.json().at("verdict"), "crash") << crashed.body.substr(0, 500);

  // Not waited for: 202 and where to ask; then its result. An unknown id is a 404.
  auto queued = post(evaluation("standard/vector-add", candidate("wrong.py"), {{"wait", false}}));
  ASSERT_EQ(queued.status, 202) << queued.body;
  auto id = std::string(queued.json().at("id").as_string());
  EXPECT_EQ(queued.json().at("status"), "queued");
  EXPECT_EQ(queued.headers["Location"], "/v1/evaluations/" + id);
  auto done = wait_done(port, queued.headers["Location"], auth);
  EXPECT_EQ(done.at("result").at("verdict"), "wrong_answer") << boost::json::serialize(done).substr(0, 500);
  EXPECT_EQ(done.at("result").at("id").as_string(), id);
  auto unknown_id = request(port, http::verb::get, "/v1/evaluations/0123", "", auth);
  EXPECT_EQ(unknown_id.status, 404);
  EXPECT_NE(unknown_id.error_message().find("no evaluation '0123'"), std::string::npos);

  // A flood against one worker and a queue of one: one runs, one waits, the rest are told to come back later.
  std::vector<std::string> accepted;
  int refused = 0;
  for (int i = 0; i < 6; ++i) {
    auto reply = post(evaluation("standard/vector-add", candidate("hang_python.py"), {{"wait", false}, {"timeout", 2}}));
    if (reply.status == 202) accepted.push_back(reply.headers["Location"]);
    if (reply.status == 429) {
      ++refused;
      EXPECT_NE(reply.error_message().find("the queue is full"), std::string::npos);
      EXPECT_GE(std::stoi(reply.headers["Retry-After"]), 1);
    }
  }
  // Two are taken, unless the worker had not yet taken the first from the queue when the second came.
  EXPECT_TRUE(accepted.size() == 2 || accepted.size() == 1) << accepted.size();
  EXPECT_EQ(refused, 6 - static_cast<int>(accepted.size()));
  for (const auto& location : accepted)
    EXPECT_EQ(wait_done(port, location, auth).at("result").at("verdict"), "timeout");

  // The counters saw all of it.
  auto metrics = request(port, http::verb::get, "/metrics", "", auth);
  ASSERT_EQ(metrics.status, 200);
  EXPECT_NE(metrics.headers["Content-Type"].find("text/plain; version=0.0.4"), std::string::npos);
  const std::string timeouts = std::to_string(accepted.size());
  for (const std::string& line :
       {std::string("tritongym_queue_depth 0"), std::string("tritongym_queue_capacity 1"), std::string("tritongym_workers 1"),
        std::string("tritongym_evaluations_total{verdict=\"passed\"} 1"),
        std::string("tritongym_evaluations_total{verdict=\"crash\"} 1"),
        "tritongym_evaluations_total{verdict=\"timeout\"} " + timeouts,
        "tritongym_evaluation_seconds_count " + std::to_string(3 + accepted.size()),
        std::string("tritongym_evaluation_seconds{quantile=\"0.99\"}"), std::string("tritongym_gpu_seconds_total 0"),
        "tritongym_requests_total{code=\"429\"} " + std::to_string(refused),
        std::string("tritongym_requests_total{code=\"413\"} 2"), std::string("tritongym_requests_total{code=\"401\"} 2")})
    EXPECT_NE(metrics.body.find(line), std::string::npos) << line << "\n" << metrics.body;
  EXPECT_EQ(server.stderr_text().find(token), std::string::npos) << "the token is in the log";
}

TEST(Serve, SigtermFinishesWhatItAcceptedThenExits) {
  // With --endpoint-file, as `tritongym slurm serve` starts it: the address is there while it takes evaluations.
  TemporaryDirectory folder;
  std::filesystem::path endpoint_file = folder.path() / "endpoints" / "7-0.endpoint";
  // No token: loopback needs none.
  Server server({"--executor-config", R"({"workers": 1})", "--endpoint-file", endpoint_file.string()});
  ASSERT_GT(server.port(), 0);
  ASSERT_TRUE(server.wait_ready()) << server.stderr_text();
  const int port = server.port();
  std::string published = read_file(endpoint_file);
  EXPECT_NE(published.find("\n127.0.0.1:" + std::to_string(port) + "\n"), std::string::npos) << published;
  EXPECT_NE(published.find("no token file"), std::string::npos) << published;
  // One evaluation running (it hangs until its 8 s timeout: long enough to outlast a loaded machine's delays
  // below) and one waiting behind it, whose client waits.
  auto running = request(port, http::verb::post, "/v1/evaluations",
                         evaluation("standard/vector-add", candidate("hang_python.py"), {{"wait", false}, {"timeout", 8}}));
  ASSERT_EQ(running.status, 202) << running.body;
  // The first is taken by the worker before the second comes (on a loaded machine the worker can take a while).
  bool started = false;
  for (int i = 0; i < 300 && !started; ++i) {
    started = request(port, http::verb::get, running.headers["Location"]).json().at("status") == "running";
    if (!started) ::usleep(50000);
  }
  ASSERT_TRUE(started) << "the first evaluation never started";
  auto waiting = std::async(std::launch::async, [&] {
    return request(port, http::verb::post, "/v1/evaluations", evaluation("standard/vector-add", candidate("correct.py")));
  });
  bool queued = false;
  for (int i = 0; i < 300 && !queued; ++i) {
    queued = request(port, http::verb::get, "/v1/health").json().at("queue_depth").to_number<int64_t>() == 1;
    if (!queued) ::usleep(50000);
  }
  ASSERT_TRUE(queued) << "the second evaluation never waited behind the first";
  ASSERT_EQ(::kill(server.pid(), SIGTERM), 0);
  auto health = request(port, http::verb::get, "/v1/health");
  for (int i = 0; i < 100 && health.status != 503; ++i) {  // the signal is handled on the server's own time
    ::usleep(50000);
    health = request(port, http::verb::get, "/v1/health");
  }
  EXPECT_EQ(health.status, 503);
  EXPECT_EQ(health.json().at("status"), "draining");
  EXPECT_FALSE(std::filesystem::exists(endpoint_file)) << "a draining server still names itself in its endpoint file";
  auto refused = request(port, http::verb::post, "/v1/evaluations", evaluation("standard/vector-add", "x"));
  EXPECT_EQ(refused.status, 503);
  EXPECT_NE(refused.error_message().find("draining"), std::string::npos);
  // The one that waited is judged and answered; then the server exits 0.
  auto answered = waiting.get();
  EXPECT_EQ(answered.status, 200) << answered.body;
  EXPECT_EQ(answered.json().at("verdict"), "passed");
  EXPECT_EQ(server.end(120), "exit code 0") << server.stderr_text();
  EXPECT_NE(server.stderr_text().find("draining (1 waiting, 1 running)"), std::string::npos) << server.stderr_text();
}

TEST(Serve, RefusesToListenBeyondLoopbackWithoutAToken) {
  auto refused = run_cli({"serve", "--listen", "0.0.0.0:0", "--executor", kInterpreter}, "", 60);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.stderr_text.find("is not a loopback address, and serve has no token"), std::string::npos)
      << refused.stderr_text;
  EXPECT_EQ(refused.stdout_text.find("listening"), std::string::npos);
  TemporaryDirectory dir;
  auto empty_token = run_cli({"serve", "--token-file", dir.write("token", "\n"), "--executor", kInterpreter}, "", 60);
  EXPECT_EQ(empty_token.exit_code, 2);
  EXPECT_NE(empty_token.stderr_text.find("holds no token"), std::string::npos) << empty_token.stderr_text;
  auto bad_address = run_cli({"serve", "--listen", "example.org:80"}, "", 60);
  EXPECT_EQ(bad_address.exit_code, 2);
  EXPECT_NE(bad_address.stderr_text.find("is not an IP address"), std::string::npos) << bad_address.stderr_text;
}

}  // namespace
}  // namespace tritongym::testing
