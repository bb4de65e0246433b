// The executor's side of tritongym-gpu-sampler (plugins/executors/gpu-sampler): one sampler process per GPU,
// started the first time a candidate is timed on that GPU, and a window on its counters around each candidate's
// turn alone there. What it saw is held against the candidate's timing report (report_check.hpp).
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "tritongym/support/child_process.hpp"
#include "tritongym/sdk/status.hpp"

namespace tritongym::triton_executor {

struct DeviceSamplerOptions {
  std::string program;                             // tritongym-gpu-sampler; "" -> found beside this program
  std::map<std::string, std::string> environment;  // its environment (the executor's minimal one)
  std::vector<std::string> library_dirs;           // put first on LD_LIBRARY_PATH: where libcupti and libnvperf_* are
  int64_t interval_ns = 100000;
  int64_t max_samples = 300000;  // the longest window; the image holds one and a half of them
  int64_t max_restarts = 3;      // per GPU, after a sampler failed (each start costs seconds in a turn alone)
  std::string log_dir;                              // its stderr goes to sampler-<gpu>.stderr here
};

class DeviceSamplers {
 public:
  explicit DeviceSamplers(DeviceSamplerOptions options);
  ~DeviceSamplers();

  // Starts the sampler of `gpu`, whose driver id for CUDA_VISIBLE_DEVICES is `visible_id`, if it has not
  // started (loading CUPTI takes seconds: the executor does it ahead, beside its workers' start). "" when it
  // runs; else why the device cannot be sampled (the sampler missing, no permission for the counters, ...),
  // which stays the answer for that GPU.
  std::string start(int64_t gpu, const std::string& visible_id);
  // Opens a window on `gpu` (starting its sampler first if need be). A sampler that failed (it died, did not
  // answer, or could not open or close a window) is let go, and started again here, up to `max_restarts` times
  // per GPU; the window then says why in `restarted_after`.
  struct Opening {
    std::string problem;          // "" once the window is open, else why not
    std::string restarted_after;  // the failure the sampler was started again after ("" when it was not)
    // The window could not be opened although this GPU's sampler has run: a failure, not a GPU that cannot be
    // sampled. The candidate's processes could have caused it (a thread of its own can kill the sampler), so the
    // executor flags the turn rather than leave its report unchecked.
    bool failed = false;
  };
  Opening open_window(int64_t gpu, const std::string& visible_id);
  // Closes the window open on `gpu`: the sampler's reply (tritongym-gpu-sampler's "stop"), or why not (always a
  // failure of a sampler that was running).
  Result<boost::json::object> close_window(int64_t gpu);

  // Where the sampler program is: `configured` when set, else tritongym-gpu-sampler beside the running program.
  static std::string locate(const std::string& configured);

 private:
  struct Sampler {
    std::mutex mutex;  // one request at a time, and its start before any
    bool started = false;
    std::optional<process::ChildProcess> process;
    std::string problem;  // why this GPU cannot be sampled; "" when it can
    std::string failure;  // why the last sampler was let go (it is started again at the next window)
    int64_t restarts = 0;
    bool has_run = false;  // a sampler of this GPU said hello once: every later problem is a failure
    std::string stderr_path;
  };
  Sampler& slot(int64_t gpu);
  void launch(Sampler& sampler, int64_t gpu, const std::string& visible_id);  // sampler.mutex held
  std::string stderr_tail(const Sampler& sampler) const;
  void let_go(Sampler& sampler, int64_t gpu, const std::string& why);  // sampler.mutex held

  DeviceSamplerOptions options_;
  std::mutex mutex_;  // guards the map; each sampler has its own
  std::map<int64_t, std::unique_ptr<Sampler>> samplers_;
};

}  // namespace tritongym::triton_executor
