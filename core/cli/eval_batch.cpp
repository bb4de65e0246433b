#include "cli/eval_batch.hpp"

#include <poll.h>
#include <unistd.h>

#include <boost/json.hpp>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <regex>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "tritongym/sdk/result_json.hpp"

namespace tritongym::cli {
namespace {

// When this process started, near enough: set as the program is loaded.
const auto kProcessStart = std::chrono::steady_clock::now();

struct Item {
  int line = 0;
  std::string task_id, path, code;
  TaskSpec task;
  Status refused;  // why the line is not judged (stdin only: a file's bad line stops the batch)
  bool autotunes = false;  // its code has an autotuner: it benchmarks configs, and takes longest
  bool taken = false;      // a slot has started it; a refused line is never started
  bool expected = false;   // the executor was told it is coming (Executor::expect)
  std::optional<Result<EvaluationResult>> result;
  double host_seconds = 0.0;
  double started_s = 0.0;  // when it was started, in seconds since judging began
  bool ready() const { return !refused.is_ok() || result.has_value(); }
};

// "TASK_ID PATH"; nullopt for a blank line or a '#' comment.
std::optional<Item> parse_line(const std::string& text, int number, const std::string& where, TaskFinder& tasks) {
  std::istringstream fields(text);
  Item item;
  item.line = number;
  if (!(fields >> item.task_id) || item.task_id[0] == '#') return std::nullopt;
  const std::string location = where + ":" + std::to_string(number);
  if (!(fields >> item.path)) {
    item.refused = Status(StatusCode::invalid_argument, "expected 'TASK_ID PATH'", location);
    item.taken = true;
    return item;
  }
  auto task = tasks.find(item.task_id);
  auto code = task ? read_candidate(item.path) : Result<std::string>(task.status());
  if (!code) {
    item.refused = Status(code.status().code(), code.status().message(), location);
    item.taken = true;
    return item;
  }
  item.task = std::move(task.value());
  item.code = std::move(code.value());
  static const std::regex autotuner(R"(@\s*(triton\s*\.\s*)?autotune\b)");
  item.autotunes = std::regex_search(item.code, autotuner);
  return item;
}

// The next item a free slot starts: the first waiting one whose code autotunes, else the first waiting one
// (with BatchOrder::lines, the first waiting one). Longest first: an autotuner benchmarks every config at
// every key, taking several times as long as the rest, and one started last ends the batch long after the
// others. Results are printed in line order all the same. `first` is the first item not taken yet.
Item* pick(std::deque<Item>& items, size_t& first, BatchOrder order) {
  while (first < items.size() && items[first].taken) ++first;
  if (order == BatchOrder::autotuners_first)
    for (size_t i = first; i < items.size(); ++i)
      if (!items[i].taken && items[i].autotunes) return &items[i];
  for (size_t i = first; i < items.size(); ++i)
    if (!items[i].taken) return &items[i];
  return nullptr;
}

// The `count` items that free slots will start after the next `skip` (which idle slots take at once), in the
// order they will start them (pick's), that the executor has not been told of yet; each is marked told. The
// caller hands their requests to Executor::expect, so that the cases of what comes next are made while the
// slots judge what is running.
std::vector<Item*> upcoming(std::deque<Item>& items, size_t first, BatchOrder order, size_t skip, size_t count) {
  count += skip;
  std::vector<Item*> order_of_start;
  while (first < items.size() && items[first].taken) ++first;
  if (order == BatchOrder::autotuners_first)
    for (size_t i = first; i < items.size() && order_of_start.size() < count; ++i)
      if (!items[i].taken && items[i].autotunes) order_of_start.push_back(&items[i]);
  for (size_t i = first; i < items.size() && order_of_start.size() < count; ++i)
    if (!items[i].taken && (order != BatchOrder::autotuners_first || !items[i].autotunes))
      order_of_start.push_back(&items[i]);
  std::vector<Item*> untold;
  for (size_t i = skip; i < order_of_start.size(); ++i)
    if (Item* item = order_of_start[i]; !item->expected) {
      item->expected = true;
      untold.push_back(item);
    }
  return untold;
}

// Lines of stdin as they arrive; gives up waiting when `stop` is set (checked every 0.2 s).
class StdinLines {
 public:
  explicit StdinLines(const std::atomic<bool>& stop) : stop_(stop) {}
  // The next line, without its newline; nullopt at the end of the input or when stopped.
  std::optional<std::string> next() {
    for (;;) {
      if (auto newline = buffer_.find('\n'); newline != std::string::npos) {
        std::string line = buffer_.substr(0, newline);
        buffer_.erase(0, newline + 1);
        return line;
      }
      if (ended_) {
        if (buffer_.empty()) return std::nullopt;
        return std::exchange(buffer_, std::string());  // a last line without a newline
      }
      if (stop_) return std::nullopt;
      pollfd input{STDIN_FILENO, POLLIN, 0};
      int ready = ::poll(&input, 1, 200);
      if (ready < 0 && errno != EINTR) ended_ = true;
      if (ready <= 0) continue;
      char chunk[4096];
      ssize_t got = ::read(STDIN_FILENO, chunk, sizeof chunk);
      if (got > 0) buffer_.append(chunk, static_cast<size_t>(got));
      else if (got == 0 || (errno != EINTR && errno != EAGAIN)) ended_ = true;
    }
  }

 private:
  const std::atomic<bool>& stop_;
  std::string buffer_;
  bool ended_ = false;
};

// The line printed for a judged candidate: its result, with the part of the executor's record a throughput
// measurement reads (where the time went, its GPU turns, its autotuner, its report check).
boost::json::object judged_json(const Item& item) {
  boost::json::object out = evaluation_json(item.result->value());
  // Moved out of the record first: inserting into `out` may move its values, the record among them.
  boost::json::value record = out.contains("record") ? std::move(out["record"]) : boost::json::value();
  out.erase("record");
  if (record.is_object())
    for (const char* key : {"phase_seconds", "candidate_phases", "compiles_off_gpu", "autotune_compiled",
                            "autotune_choices", "autotune_benchmarks", "turns", "report_check", "cases_prepared",
                            "timing_skipped", "outlived"})
      if (auto* value = record.as_object().if_contains(key)) out[key] = std::move(*value);
  out.erase("stdout");
  out.erase("stderr");
  out["task"] = item.task_id;
  out["code"] = item.path;
  out["host_seconds"] = item.host_seconds;
  out["started_s"] = item.started_s;
  return out;
}

}  // namespace

int evaluate_batch(const CliContext& context, plugins::Registry& registry, Executor& executor, TaskFinder& tasks,
                   const std::string& source, const JudgeOptions& options, BatchOrder order) {
  const bool streaming = source == "-";
  std::deque<Item> items;  // a deque: the workers hold references to items while the reader appends
  if (!streaming) {
    std::ifstream batch(source);
    if (!batch) {
      print_error(Status(StatusCode::not_found, "cannot read batch file '" + source + "'"));
      return kExitUsage;
    }
    int number = 0;
    for (std::string line; std::getline(batch, line);)
      if (auto item = parse_line(line, ++number, source, tasks)) {
        if (!item->refused.is_ok()) {
          print_error(item->refused);
          return kExitUsage;
        }
        items.push_back(std::move(*item));
      }
  }
  (void)executor.availability();  // starts the executor (if choosing it did not), which then knows its slots
  const size_t slots = static_cast<size_t>(std::max<int64_t>(executor.info().parallel_slots, 1));
  const size_t at_once = streaming ? slots : std::min(slots, items.size());
  // On stderr, beside the results on stdout: what a throughput measurement needs to tell start-up (loading
  // plugins, starting the workers) from judging, and a caller of a stream that the executor is ready.
  const double start_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - kProcessStart).count();
  std::cerr << "batch: " << (streaming ? std::string("candidates from stdin") : std::to_string(items.size()) + " candidates")
            << ", " << at_once << " at once; the executor started in "
            << std::fixed << std::setprecision(2) << start_seconds << " s (since the process did)" << std::endl;
  const auto judging_started = std::chrono::steady_clock::now();

  std::mutex mutex;
  std::condition_variable changed;
  bool closed = !streaming;  // no more items will come
  bool failed = false;       // a judging failed: nothing more is started
  size_t first_waiting = 0, printed = 0;
  size_t idle_slots = 0;  // slots waiting for an item: they take the next ones at once
  // Tells the executor of the next `slots` items to start after those the idle slots take (their requests
  // built under `mutex`, handed over outside it). Called with `mutex` held; returns the requests to hand over.
  auto coming = [&](size_t lookahead) {
    std::vector<EvaluationRequest> requests;
    for (Item* item : upcoming(items, first_waiting, order, idle_slots, lookahead))
      requests.push_back(judging_request(item->task, item->code, options));
    return requests;
  };
  auto tell = [&](const std::vector<EvaluationRequest>& requests) {
    for (const auto& request : requests) executor.expect(request);
  };
  bool refused_any = false;
  std::atomic<bool> stop_reading{false};
  std::thread reader;
  if (streaming)
    reader = std::thread([&] {
      StdinLines lines(stop_reading);
      int number = 0;
      while (auto line = lines.next()) {
        auto item = parse_line(*line, ++number, "stdin", tasks);
        if (!item) continue;
        std::vector<EvaluationRequest> next;
        {
          std::lock_guard lock(mutex);
          items.push_back(std::move(*item));
          next = coming(slots);
        }
        changed.notify_all();
        tell(next);
      }
      std::lock_guard lock(mutex);
      closed = true;
      changed.notify_all();
    });

  auto work = [&] {
    for (;;) {
      Item* item = nullptr;
      std::vector<EvaluationRequest> next;  // what comes after it
      std::chrono::steady_clock::time_point started;
      {
        std::unique_lock lock(mutex);
        ++idle_slots;
        changed.wait(lock, [&] { return failed || closed || pick(items, first_waiting, order) != nullptr; });
        --idle_slots;
        item = failed ? nullptr : pick(items, first_waiting, order);
        if (!item) return;  // a failure, or closed with every item taken
        item->taken = true;
        // Started when taken, under the lock: the items' started_s keep the order in which they were taken
        // (telling the executor of the next ones, below, takes longer for some than for others).
        started = std::chrono::steady_clock::now();
        item->started_s = std::chrono::duration<double>(started - judging_started).count();
        next = coming(slots);
      }
      tell(next);
      Result<EvaluationResult> result = Status(StatusCode::internal, "not judged");
      try {
        result = judge(context, registry, executor, item->task, item->code, options);
      } catch (const std::exception& error) {
        result = Status(StatusCode::internal, item->path + ": judging it failed: " + error.what());
      }
      {
        std::lock_guard lock(mutex);
        item->host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        failed = failed || !result;
        item->result = std::move(result);
      }
      changed.notify_all();
    }
  };
  std::vector<std::thread> threads;
  for (size_t i = 0; i < at_once; ++i) threads.emplace_back(work);

  int exit_code = kExitOk;
  try {
    std::unique_lock lock(mutex);
    for (;;) {
      changed.wait(lock, [&] {
        return (printed < items.size() && items[printed].ready()) || (closed && printed == items.size()) ||
               (failed && (printed == items.size() || !items[printed].taken));
      });
      if (printed == items.size() || !items[printed].ready()) break;  // the end, or a failure stopped it first
      Item& item = items[printed++];
      if (!item.refused.is_ok()) {
        refused_any = true;
        boost::json::object out{{"line", item.line}, {"error", item.refused.message()}};
        if (!item.task_id.empty()) out["task"] = item.task_id;
        if (!item.path.empty()) out["code"] = item.path;
        std::cout << boost::json::serialize(out) << std::endl;
        continue;
      }
      if (!*item.result) {
        print_error(item.result->status());
        exit_code = kExitFailure;
        continue;
      }
      std::cout << boost::json::serialize(judged_json(item)) << std::endl;
    }
  } catch (const std::exception& error) {  // said, and the running evaluations finish before the batch ends
    print_error(Status(StatusCode::internal, std::string("the batch stopped: ") + error.what()));
    std::lock_guard lock(mutex);
    failed = true;
  }
  changed.notify_all();  // a judging that failed set `failed` already: the slots stop
  stop_reading = true;
  if (reader.joinable()) reader.join();
  for (auto& thread : threads) thread.join();
  if (failed) return kExitFailure;
  return refused_any ? kExitUsage : exit_code;
}

}  // namespace tritongym::cli
