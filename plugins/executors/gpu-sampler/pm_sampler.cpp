#include "pm_sampler.hpp"

#include <cuda.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <thread>

namespace tritongym::gpu_sampler {
namespace {

const char* kMetrics[] = {"gr__cycles_active.sum", "gr__cycles_elapsed.max", "dram__bytes_read.sum",
                          "dram__bytes_write.sum"};
constexpr size_t kMetricCount = sizeof(kMetrics) / sizeof(kMetrics[0]);

// A CUPTI parameter struct, zeroed, with its size set.
template <class Params>
Params params(size_t struct_size) {
  Params zeroed{};
  zeroed.structSize = struct_size;
  return zeroed;
}

std::string failed(const char* what, CUptiResult result) {
  const char* text = nullptr;
  cuptiGetResultString(result, &text);
  std::string out = std::string(what) + " failed: " + (text ? text : "CUPTI error " + std::to_string(result));
  if (result == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
    out += " (the GPU's performance counters are restricted to administrators on this machine: "
           "NVreg_RestrictProfilingToAdminUsers)";
  return out;
}

}  // namespace

struct PmSampler::State {
  std::string chip;
  uint64_t interval_ns = 0;
  CUpti_PmSampling_Object* sampler = nullptr;
  CUpti_Profiler_Host_Object* host = nullptr;
  std::vector<uint8_t> config;
  // The counter-data image: allocated, not zeroed, so pages the samples never reach cost no memory.
  std::unique_ptr<uint8_t[]> image;
  size_t image_size = 0;
  bool image_full = false;
  bool overflow = false;
  bool running = false;
  // The image holds one and a half windows of the longest kind: windows follow one another in it, and it is
  // emptied (prepare) only once fewer than a whole window's samples are left, since emptying writes all of it.
  size_t window_samples = 0;  // the most one window may take
  size_t capacity = 0;        // the image's samples
  size_t consumed = 0;        // samples of earlier windows in the image

  std::string initialise_image() {
    auto init = params<CUpti_PmSampling_CounterDataImage_Initialize_Params>(
        CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    init.pPmSamplingObject = sampler;
    init.counterDataSize = image_size;
    init.pCounterData = image.get();
    if (CUptiResult r = cuptiPmSamplingCounterDataImageInitialize(&init); r != CUPTI_SUCCESS)
      return failed("initialising the counter-data image", r);
    image_full = overflow = false;
    consumed = 0;
    return "";
  }

  // How many samples the image holds so far (those of earlier windows included).
  std::string completed_samples(size_t& count) const {
    auto info = params<CUpti_PmSampling_GetCounterDataInfo_Params>(CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE);
    info.pCounterDataImage = image.get();
    info.counterDataImageSize = image_size;
    if (CUptiResult r = cuptiPmSamplingGetCounterDataInfo(&info); r != CUPTI_SUCCESS)
      return failed("the counter-data image's sample count", r);
    count = info.numCompletedSamples;
    return "";
  }
};

PmSampler::PmSampler() : state_(std::make_unique<State>()) {}

PmSampler::~PmSampler() {
  if (!state_->sampler) return;
  if (state_->running) {
    auto stop = params<CUpti_PmSampling_Stop_Params>(CUpti_PmSampling_Stop_Params_STRUCT_SIZE);
    stop.pPmSamplingObject = state_->sampler;
    cuptiPmSamplingStop(&stop);
  }
  auto disable = params<CUpti_PmSampling_Disable_Params>(CUpti_PmSampling_Disable_Params_STRUCT_SIZE);
  disable.pPmSamplingObject = state_->sampler;
  cuptiPmSamplingDisable(&disable);
  if (state_->host) {
    auto done = params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
    done.pHostObject = state_->host;
    cuptiProfilerHostDeinitialize(&done);
  }
}

std::string PmSampler::chip() const { return state_->chip; }

std::string PmSampler::open(int device, uint64_t interval_ns, uint32_t max_samples) {
  State& s = *state_;
  if (CUresult r = cuInit(0); r != CUDA_SUCCESS) {
    const char* text = nullptr;
    cuGetErrorString(r, &text);
    return "cuInit failed: " + std::string(text ? text : "CUDA error " + std::to_string(r)) +
           " (no GPU or no driver here)";
  }
  auto init = params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
  if (CUptiResult r = cuptiProfilerInitialize(&init); r != CUPTI_SUCCESS) return failed("cuptiProfilerInitialize", r);
  auto chip = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  chip.deviceIndex = static_cast<size_t>(device);
  if (CUptiResult r = cuptiDeviceGetChipName(&chip); r != CUPTI_SUCCESS)
    return failed(("the chip name of device " + std::to_string(device)).c_str(), r);
  s.chip = chip.pChipName;

  auto enable = params<CUpti_PmSampling_Enable_Params>(CUpti_PmSampling_Enable_Params_STRUCT_SIZE);
  enable.deviceIndex = static_cast<size_t>(device);
  if (CUptiResult r = cuptiPmSamplingEnable(&enable); r != CUPTI_SUCCESS)
    return failed(("PM sampling on device " + std::to_string(device) + " (" + s.chip + ")").c_str(), r);
  s.sampler = enable.pPmSamplingObject;

  auto available = params<CUpti_PmSampling_GetCounterAvailability_Params>(
      CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE);
  available.deviceIndex = static_cast<size_t>(device);
  if (CUptiResult r = cuptiPmSamplingGetCounterAvailability(&available); r != CUPTI_SUCCESS)
    return failed("the counter availability's size", r);
  std::vector<uint8_t> availability(available.counterAvailabilityImageSize);
  available.pCounterAvailabilityImage = availability.data();
  if (CUptiResult r = cuptiPmSamplingGetCounterAvailability(&available); r != CUPTI_SUCCESS)
    return failed("the counter availability", r);

  auto host = params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  host.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
  host.pChipName = chip.pChipName;
  host.pCounterAvailabilityImage = availability.data();
  if (CUptiResult r = cuptiProfilerHostInitialize(&host); r != CUPTI_SUCCESS)
    return failed("cuptiProfilerHostInitialize", r);
  s.host = host.pHostObject;
  auto add = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  add.pHostObject = s.host;
  add.ppMetricNames = kMetrics;
  add.numMetrics = kMetricCount;
  if (CUptiResult r = cuptiProfilerHostConfigAddMetrics(&add); r != CUPTI_SUCCESS)
    return failed(("adding the busy-cycle and DRAM counters on " + s.chip).c_str(), r);
  auto size = params<CUpti_Profiler_Host_GetConfigImageSize_Params>(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  size.pHostObject = s.host;
  if (CUptiResult r = cuptiProfilerHostGetConfigImageSize(&size); r != CUPTI_SUCCESS)
    return failed("the config image's size", r);
  s.config.resize(size.configImageSize);
  auto config = params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  config.pHostObject = s.host;
  config.configImageSize = s.config.size();
  config.pConfigImage = s.config.data();
  if (CUptiResult r = cuptiProfilerHostGetConfigImage(&config); r != CUPTI_SUCCESS) return failed("the config image", r);

  auto set = params<CUpti_PmSampling_SetConfig_Params>(CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE);
  set.pPmSamplingObject = s.sampler;
  set.configSize = s.config.size();
  set.pConfig = s.config.data();
  set.hardwareBufferSize = size_t(512) << 20;
  set.samplingInterval = interval_ns;
  set.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
  set.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
  if (CUptiResult r = cuptiPmSamplingSetConfig(&set); r != CUPTI_SUCCESS) return failed("cuptiPmSamplingSetConfig", r);
  s.interval_ns = interval_ns;

  auto data = params<CUpti_PmSampling_GetCounterDataSize_Params>(CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE);
  data.pPmSamplingObject = s.sampler;
  data.pMetricNames = kMetrics;
  data.numMetrics = kMetricCount;
  s.window_samples = max_samples;
  s.capacity = static_cast<size_t>(max_samples) + static_cast<size_t>(max_samples) / 2;
  data.maxSamples = s.capacity;
  if (CUptiResult r = cuptiPmSamplingGetCounterDataSize(&data); r != CUPTI_SUCCESS)
    return failed("the counter-data image's size", r);
  s.image_size = data.counterDataSize;
  s.image.reset(new uint8_t[s.image_size]);
  return s.initialise_image();
}

std::string PmSampler::start() {
  State& s = *state_;
  if (!s.sampler) return "the sampler is not open";
  if (s.running) return "a window is already open";
  if (needs_preparing())
    if (std::string problem = s.initialise_image(); !problem.empty()) return problem;
  s.overflow = s.image_full = false;
  auto start = params<CUpti_PmSampling_Start_Params>(CUpti_PmSampling_Start_Params_STRUCT_SIZE);
  start.pPmSamplingObject = s.sampler;
  if (CUptiResult r = cuptiPmSamplingStart(&start); r != CUPTI_SUCCESS) return failed("cuptiPmSamplingStart", r);
  s.running = true;
  return "";
}

std::string PmSampler::decode() {
  State& s = *state_;
  if (!s.sampler || s.image_full) return "";
  auto decoded = params<CUpti_PmSampling_DecodeData_Params>(CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE);
  decoded.pPmSamplingObject = s.sampler;
  decoded.pCounterDataImage = s.image.get();
  decoded.counterDataImageSize = s.image_size;
  if (CUptiResult r = cuptiPmSamplingDecodeData(&decoded); r != CUPTI_SUCCESS)
    return failed("cuptiPmSamplingDecodeData", r);
  s.overflow = s.overflow || decoded.overflow;
  s.image_full = decoded.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL;
  return "";
}

std::string PmSampler::stop(Window& window) {
  State& s = *state_;
  window = Window{};
  if (!s.running) return "no window is open";
  const auto began = std::chrono::steady_clock::now();
  auto stop = params<CUpti_PmSampling_Stop_Params>(CUpti_PmSampling_Stop_Params_STRUCT_SIZE);
  stop.pPmSamplingObject = s.sampler;
  CUptiResult stopped = cuptiPmSamplingStop(&stop);
  s.running = false;
  if (stopped != CUPTI_SUCCESS) return failed("cuptiPmSamplingStop", stopped);
  using Clock = std::chrono::steady_clock;
  auto since = [](Clock::time_point from) { return std::chrono::duration<double, std::milli>(Clock::now() - from).count(); };
  auto clock = Clock::now();
  window.stop_ms = since(began);
  if (std::string problem = decode(); !problem.empty()) return problem;
  window.decode_ms = since(clock);
  clock = Clock::now();
  window.overflow = s.overflow;
  window.image_full = s.image_full;

  size_t completed = 0;
  if (std::string problem = s.completed_samples(completed); !problem.empty()) return problem;
  const size_t first = s.consumed;
  s.consumed = completed;
  window.samples.reserve(completed - std::min(first, completed));
  for (size_t i = first; i < completed; ++i) {
    auto sample = params<CUpti_PmSampling_CounterData_GetSampleInfo_Params>(
        CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE);
    sample.pPmSamplingObject = s.sampler;
    sample.pCounterDataImage = s.image.get();
    sample.counterDataImageSize = s.image_size;
    sample.sampleIndex = i;
    if (CUptiResult r = cuptiPmSamplingCounterDataGetSampleInfo(&sample); r != CUPTI_SUCCESS)
      return failed("a sample's timestamps", r);
    // Each run on the H200 had one sample whose end came before its start, or hours after it.
    if (sample.endTimestamp <= sample.startTimestamp || sample.endTimestamp - sample.startTimestamp >= 100 * s.interval_ns) {
      ++window.malformed;
      continue;
    }
    double values[kMetricCount] = {};
    auto evaluate = params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
    evaluate.pHostObject = s.host;
    evaluate.pCounterDataImage = s.image.get();
    evaluate.counterDataImageSize = s.image_size;
    evaluate.rangeIndex = i;
    evaluate.ppMetricNames = kMetrics;
    evaluate.numMetrics = kMetricCount;
    evaluate.pMetricValues = values;
    if (CUptiResult r = cuptiProfilerHostEvaluateToGpuValues(&evaluate); r != CUPTI_SUCCESS)
      return failed("evaluating a sample", r);
    const double length = static_cast<double>(sample.endTimestamp - sample.startTimestamp);
    const double fraction = values[1] > 0 ? values[0] / values[1] : 0.0;
    window.samples.push_back({sample.startTimestamp, sample.endTimestamp, fraction * length, values[2] + values[3]});
  }
  window.read_ms = since(clock);
  return "";
}

std::string PmSampler::wait_first_sample(double timeout_ms) {
  State& s = *state_;
  if (!s.running) return "no window is open";
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(static_cast<int64_t>(timeout_ms * 1000));
  for (;;) {
    if (std::string problem = decode(); !problem.empty()) return problem;
    if (s.image_full) return "";  // the window's samples end there; stop() says so
    size_t completed = 0;
    if (std::string problem = s.completed_samples(completed); !problem.empty()) return problem;
    if (completed > s.consumed) return "";
    if (std::chrono::steady_clock::now() >= until) {
      std::ostringstream out;
      out << "no sample came within " << timeout_ms << " ms of the window's start";
      return out.str();
    }
    std::this_thread::sleep_for(std::chrono::microseconds(std::max<uint64_t>(s.interval_ns / 2000, 50)));
  }
}

bool PmSampler::running() const { return state_->running; }

bool PmSampler::needs_preparing() const {
  return state_->capacity - std::min(state_->consumed, state_->capacity) < state_->window_samples;
}

size_t PmSampler::image_bytes() const { return state_->image_size; }

std::string PmSampler::prepare(double* ms) {
  const auto began = std::chrono::steady_clock::now();
  std::string problem = state_->sampler ? state_->initialise_image() : "the sampler is not open";
  if (ms) *ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
  return problem;
}

}  // namespace tritongym::gpu_sampler
