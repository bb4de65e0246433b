// tritongym-gpu-sampler: the executor's trusted witness of one GPU's busy time (docs/anti-cheat.md, "The
// child's report"). The Triton executor starts one per GPU it times on and opens a window around each
// candidate's turn alone on it; what the device's counters saw in the window is checked against what the
// candidate's report says ran.
//
//   tritongym-gpu-sampler --device N [--interval-ns 100000] [--max-samples 300000]
//
// It talks on the executor's worker pipes (core/process/child_process.hpp): requests on fd 3, replies on fd 4,
// one JSON line each. First it says whether it could open the device:
//   {"ok": true, "chip": "GH100", "interval_ns", "max_samples", "image_bytes"}   or   {"ok": false, "error": "..."}
//   (and exits)
// then answers
//   {"op": "start"}  ->  {"ok": true, "started_ns": CLOCK_REALTIME}
//   {"op": "stop"}   ->  {"ok": true, "samples": N, "first_ns", "last_ns", "busy_ns", "dram_bytes",
//                         "busy": [[begin_ns, end_ns, busy_ns, dram_bytes], ...]  (the samples that saw any work),
//                         "malformed", "overflow", "image_full", and what closing it cost: "stop_ms", "decode_ms",
//                         "read_ms", and "prepare_ms" (emptying the image after the window before, when it was)}
// and exits when fd 3 closes. While a window is open it decodes every 20 ms, so the hardware buffer never fills.
#include <poll.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "pm_sampler.hpp"

namespace {

constexpr int kRequestFd = 3;
constexpr int kReplyFd = 4;
constexpr double kFirstSampleMs = 500.0;  // how long a new window waits for its first sample

void reply(const boost::json::object& message) {
  std::string line = boost::json::serialize(message) + "\n";
  for (size_t written = 0; written < line.size();) {
    ssize_t n = ::write(kReplyFd, line.data() + written, line.size() - written);
    if (n <= 0) std::exit(0);  // the executor has gone
    written += static_cast<size_t>(n);
  }
}

int64_t realtime_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int usage(const std::string& problem) {
  std::fprintf(stderr, "tritongym-gpu-sampler: %s\nusage: tritongym-gpu-sampler --device N [--interval-ns NS] "
               "[--max-samples N]\n", problem.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  long device = -1;
  unsigned long long interval_ns = 100000, max_samples = 300000;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 >= argc) return usage("'" + arg + "' needs a value");
    char* end = nullptr;
    unsigned long long value = std::strtoull(argv[++i], &end, 10);
    if (!end || *end) return usage("'" + arg + "' needs a whole number, not '" + argv[i] + "'");
    if (arg == "--device") device = static_cast<long>(value);
    else if (arg == "--interval-ns") interval_ns = value;
    else if (arg == "--max-samples") max_samples = value;
    else return usage("unknown option '" + arg + "'");
  }
  if (device < 0) return usage("--device is required");
  if (interval_ns < 1000 || max_samples == 0 || max_samples > 4000000)
    return usage("--interval-ns must be at least 1000 and --max-samples between 1 and 4000000");

  tritongym::gpu_sampler::PmSampler sampler;
  if (std::string problem = sampler.open(static_cast<int>(device), interval_ns, static_cast<uint32_t>(max_samples));
      !problem.empty()) {
    reply({{"ok", false}, {"error", problem}});
    return 1;
  }
  reply({{"ok", true}, {"chip", sampler.chip()}, {"device", device}, {"interval_ns", interval_ns},
         {"max_samples", max_samples}, {"image_bytes", sampler.image_bytes()}});

  std::string buffer;
  double prepare_ms = 0;  // what emptying the image took after the previous window (0: it was not emptied)
  for (;;) {
    pollfd request{kRequestFd, POLLIN, 0};
    int ready = ::poll(&request, 1, sampler.running() ? 20 : -1);
    if (ready == 0) {  // a window is open and nothing was asked: keep the hardware buffer drained
      if (std::string problem = sampler.decode(); !problem.empty()) std::fprintf(stderr, "%s\n", problem.c_str());
      continue;
    }
    char chunk[4096];
    ssize_t n = ::read(kRequestFd, chunk, sizeof(chunk));
    if (n <= 0) return 0;  // the executor closed its end
    buffer.append(chunk, static_cast<size_t>(n));
    for (size_t newline; (newline = buffer.find('\n')) != std::string::npos;) {
      std::string line = buffer.substr(0, newline);
      buffer.erase(0, newline + 1);
      boost::system::error_code error;
      boost::json::value request_json = boost::json::parse(line, error);
      std::string op = !error && request_json.is_object() && request_json.as_object().contains("op") &&
                               request_json.at("op").is_string()
                           ? std::string(request_json.at("op").as_string())
                           : "";
      if (op == "start") {
        if (std::string problem = sampler.start(); !problem.empty()) {
          reply({{"ok", false}, {"error", problem}});
          continue;
        }
        // A window is open only once samples flow: otherwise the executor starts a new sampler (device_sampler.cpp).
        const auto began = std::chrono::steady_clock::now();
        if (std::string problem = sampler.wait_first_sample(kFirstSampleMs); !problem.empty()) {
          tritongym::gpu_sampler::Window discarded;
          sampler.stop(discarded);
          std::fprintf(stderr, "%s\n", problem.c_str());
          reply({{"ok", false}, {"error", problem}});
          continue;
        }
        reply({{"ok", true}, {"started_ns", realtime_ns()},
               {"first_sample_ms", std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count()}});
      } else if (op == "stop") {
        tritongym::gpu_sampler::Window window;
        std::string problem = sampler.stop(window);
        if (!problem.empty()) {
          reply({{"ok", false}, {"error", problem}});
          continue;
        }
        boost::json::array busy;
        double busy_ns = 0, dram_bytes = 0;
        for (const auto& s : window.samples) {
          busy_ns += s.busy_ns;
          dram_bytes += s.dram_bytes;
          if (s.busy_ns >= 1.0 || s.dram_bytes >= 1.0)
            busy.push_back(boost::json::array{s.begin_ns, s.end_ns, std::llround(s.busy_ns), std::llround(s.dram_bytes)});
        }
        reply({{"ok", true}, {"samples", window.samples.size()},
               {"first_ns", window.samples.empty() ? 0 : window.samples.front().begin_ns},
               {"last_ns", window.samples.empty() ? 0 : window.samples.back().end_ns},
               {"busy_ns", busy_ns}, {"dram_bytes", dram_bytes}, {"busy", std::move(busy)},
               {"malformed", window.malformed}, {"overflow", window.overflow}, {"image_full", window.image_full},
               {"stop_ms", window.stop_ms}, {"decode_ms", window.decode_ms}, {"read_ms", window.read_ms},
               {"prepare_ms", prepare_ms}});
        // Emptying the image writes all of it: done after the answer, off the executor's critical path (the next
        // "start" waits for it only if it comes sooner), and only once less than a window's room is left.
        prepare_ms = 0;
        if (sampler.needs_preparing())
          if (std::string problem = sampler.prepare(&prepare_ms); !problem.empty())
            std::fprintf(stderr, "%s\n", problem.c_str());
      } else {
        reply({{"ok", false}, {"error", "unknown request (expected {\"op\": \"start\"} or {\"op\": \"stop\"}): " +
                                            line.substr(0, 200)}});
      }
    }
  }
}
