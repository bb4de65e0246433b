// Can a process that launches no kernel of its own see another process's GPU busy time, finely enough to check a
// candidate's timing report? This samples device 0 through the executor's own sampler (PmSampler,
// plugins/executors/gpu-sampler) in one window of SECONDS, every INTERVAL_NS, while another process works, then
// prints each stretch of samples in which the GPU was busy: when it began (ms since the first sample), how long it
// lasted, and the busy time the counters add up to over it. docs/anti-cheat.md, "The child's report", has what
// it measured.
//
//   build/bench/pm_sampling_window [SECONDS] [INTERVAL_NS]   (built where CUPTI's profiler headers are found)
//
// on the GPU machine, while another process works, with libcupti and its libnvperf_host/libnvperf_target on the
// library path (torch's nvidia/cu13/lib has all three). bench/pm_sampling_window.sh drives it against known work.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "pm_sampler.hpp"

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 3.0;
  const uint64_t interval_ns = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 100000;
  if (!(seconds > 0) || interval_ns == 0 || seconds * 1e9 / double(interval_ns) > 2e6) {
    std::fprintf(stderr, "usage: pm_sampling_window [SECONDS > 0] [INTERVAL_NS > 0], at most 2 million samples\n");
    return 2;
  }
  tritongym::gpu_sampler::PmSampler sampler;
  const auto samples = static_cast<uint32_t>(seconds * 1e9 / double(interval_ns)) + 1000;
  if (auto problem = sampler.open(0, interval_ns, samples); !problem.empty()) {
    std::fprintf(stderr, "pm_sampling_window: %s\n", problem.c_str());
    return 1;
  }
  if (auto problem = sampler.start(); !problem.empty()) {
    std::fprintf(stderr, "pm_sampling_window: %s\n", problem.c_str());
    return 1;
  }
  std::printf("sampling device 0 (%s) every %llu ns for %.1f s, into a %zu-byte counter-data image\n",
              sampler.chip().c_str(), static_cast<unsigned long long>(interval_ns), seconds, sampler.image_bytes());
  std::fflush(stdout);
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {  // decode as it goes, so the hardware buffer never fills
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (auto problem = sampler.decode(); !problem.empty()) std::fprintf(stderr, "pm_sampling_window: %s\n", problem.c_str());
  }
  tritongym::gpu_sampler::Window window;
  if (auto problem = sampler.stop(window); !problem.empty()) {
    std::fprintf(stderr, "pm_sampling_window: %s\n", problem.c_str());
    return 1;
  }
  std::printf("samples: %zu, read out in %.3f s of this process's time; hardware buffer overflow: %s; image full: %s; "
              "samples set aside as malformed: %zu\n", window.samples.size(), window.read_ms / 1e3,
              window.overflow ? "yes" : "no", window.image_full ? "yes" : "no", window.malformed);
  if (window.samples.empty()) return 0;

  // Busy stretches: runs of samples busy for more than 1% of their length, joined across gaps of under 1 ms; a
  // stretch of under 50 us of busy time is counted in the total but not printed (the driver's own periodic work).
  struct Stretch {
    double begin_ms = 0, end_ms = 0, busy_ms = 0, dram_gb = 0;
  };
  std::vector<Stretch> stretches;
  double total_busy_ms = 0;
  const uint64_t first_ns = window.samples.front().begin_ns;
  for (const auto& sample : window.samples) {
    const double begin_ms = (sample.begin_ns - first_ns) / 1e6, end_ms = (sample.end_ns - first_ns) / 1e6;
    const double busy_ms = sample.busy_ns / 1e6;
    total_busy_ms += busy_ms;
    if (busy_ms < 0.01 * (end_ms - begin_ms)) continue;
    if (stretches.empty() || begin_ms - stretches.back().end_ms > 1.0) stretches.push_back({begin_ms, end_ms, 0, 0});
    stretches.back().end_ms = end_ms;
    stretches.back().busy_ms += busy_ms;
    stretches.back().dram_gb += sample.dram_bytes / 1e9;
  }
  std::printf("the first sample began at CLOCK_REALTIME %llu ns\n", static_cast<unsigned long long>(first_ns));
  std::printf("busy over the whole sampling: %.3f ms\n", total_busy_ms);
  for (const auto& s : stretches)
    if (s.busy_ms >= 0.05)
      std::printf("busy stretch at %.3f ms: %.3f ms long, %.3f ms busy, %.3f GB to and from DRAM\n", s.begin_ms,
                  s.end_ms - s.begin_ms, s.busy_ms, s.dram_gb);
  return 0;
}
