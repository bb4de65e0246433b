// CUPTI's PM sampling of one GPU, from a process that launches no work of its own: the device's own
// performance counters, read by the hardware every `interval_ns`, whoever's work they count. The executor's
// sampler process (gpu_sampler_main.cpp) uses it to check a candidate's timing report against the device
// (docs/anti-cheat.md, "The child's report"); bench/pm_sampling_window.cpp measured what it sees.
//
// A session is opened once and then sampled in windows: start(), stop(), prepare(). Each window decodes into the
// same counter-data image, made empty again by prepare() (CUPTI writes all of it: the caller answers first). One image for the whole of a window loses nothing (H200,
// 2026-12-01); reusing a small one while sampling lost samples, so a window longer than the image holds ends
// the window's samples there, and says so (Window::image_full).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tritongym::gpu_sampler {

struct Sample {
  uint64_t begin_ns = 0;  // CLOCK_REALTIME, as CUPTI stamps it
  uint64_t end_ns = 0;
  double busy_ns = 0;     // gr__cycles_active.sum / gr__cycles_elapsed.max of the sample, times its length
  double dram_bytes = 0;  // dram__bytes_read.sum + dram__bytes_write.sum
};

struct Window {
  std::vector<Sample> samples;  // in order; malformed ones (an end not after the start, or 100 intervals long) left out
  size_t malformed = 0;
  bool overflow = false;        // the hardware buffer overflowed: samples were lost
  bool image_full = false;      // the window outlasted the image: its later samples were not kept
  double stop_ms = 0, decode_ms = 0, read_ms = 0;  // what closing it cost: CUPTI's stop, the last decode, reading out
};

class PmSampler {
 public:
  PmSampler();
  ~PmSampler();
  PmSampler(const PmSampler&) = delete;
  PmSampler& operator=(const PmSampler&) = delete;

  // Initialises CUDA and CUPTI's profiler for `device` (an index as the driver counts them), with the counters
  // above, sampling every `interval_ns`, into an image of `max_samples`. "" on success, else what failed and
  // CUPTI's reason (no GPU, a chip without PM sampling, counters not permitted to this user).
  std::string open(int device, uint64_t interval_ns, uint32_t max_samples);
  std::string chip() const;

  std::string start();
  // After start(): waits until the window has its first sample decoded, for up to `timeout_ms`. A window can
  // close without error and without a sample (on the H200, in the gpu tests' binary, 2026-12-01); the caller
  // learns it here, before the candidate is let go, instead of from an empty window.
  std::string wait_first_sample(double timeout_ms);
  bool running() const;  // a window is open
  // Decodes what the hardware has buffered so far into the image (call every few tens of milliseconds
  // while a window is open, so the hardware buffer never fills).
  std::string decode();
  // Ends the window and returns its samples.
  std::string stop(Window& window);
  // Whether the image has less than a window's room left: then prepare() empties it (start() does, if it was
  // not done); `ms` gets what it took.
  bool needs_preparing() const;
  std::string prepare(double* ms = nullptr);
  size_t image_bytes() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace tritongym::gpu_sampler
