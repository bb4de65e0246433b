// Can a process that launches no kernel of its own see another process's GPU busy time, finely enough to check a
// candidate's timing report? CUPTI's PM sampling reads the device's performance counters every INTERVAL_NS
// (hardware-triggered); this program samples device 0 for SECONDS while another process works, then prints each
// stretch of samples in which the GPU was busy: when it began (ms since sampling started), how long it lasted, and
// the busy time the counters add up to over it. docs/anti-cheat.md, "The child's report", says why.
//
//   build/bench/pm_sampling_window [SECONDS] [INTERVAL_NS] [REUSE_SAMPLES]   (built where CUPTI is found)
//
// on the GPU machine, while another process works, with libcupti and its libnvperf_host/libnvperf_target on the
// library path (torch's nvidia/cu13/lib has all three).
//
// Busy per sample is gr__cycles_active.sum over gr__cycles_elapsed.max (cycles the graphics engine had work, out
// of the cycles of the sample), times the sample's length; the DRAM bytes read and written are printed beside.
#include <cuda.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

[[noreturn]] void fail(const char* what, int code) {
  const char* text = "";
  if (code) cuptiGetResultString(static_cast<CUptiResult>(code), &text);
  std::fprintf(stderr, "pm_sampling_window: %s failed: %d %s\n", what, code, text);
  std::exit(1);
}

// A CUPTI parameter struct, zeroed, with its size set (every field a call does not name stays zero).
template <class Params>
Params params(size_t struct_size) {
  Params zeroed{};
  zeroed.structSize = struct_size;
  return zeroed;
}

void check(CUptiResult result, const char* what) {
  if (result != CUPTI_SUCCESS) fail(what, result);
}

const char* kMetrics[] = {"gr__cycles_active.sum", "gr__cycles_elapsed.max", "dram__bytes_read.sum",
                          "dram__bytes_write.sum"};
constexpr size_t kMetricCount = sizeof(kMetrics) / sizeof(kMetrics[0]);

void list_base_metrics(CUpti_Profiler_Host_Object* host) {
  auto base = params<CUpti_Profiler_Host_GetBaseMetrics_Params>(CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE);
  base.pHostObject = host;
  base.metricType = CUPTI_METRIC_TYPE_COUNTER;
  if (cuptiProfilerHostGetBaseMetrics(&base) != CUPTI_SUCCESS) return;
  std::fprintf(stderr, "counters this chip has for PM sampling (those with cycles or dram in the name):\n");
  for (size_t i = 0; i < base.numMetrics; ++i) {
    std::string name = base.ppMetricNames[i];
    if (name.find("cycles") != std::string::npos || name.find("dram") != std::string::npos)
      std::fprintf(stderr, "  %s\n", name.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 3.0;
  const uint64_t interval_ns = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 100000;
  const uint32_t reuse_samples = argc > 3 ? static_cast<uint32_t>(std::strtoul(argv[3], nullptr, 10)) : 0;
  if (!(seconds > 0) || interval_ns == 0) {
    std::fprintf(stderr, "usage: pm_sampling_window [SECONDS > 0] [INTERVAL_NS > 0] [REUSE_SAMPLES]\n");
    return 2;
  }
  if (!reuse_samples && seconds * 1e9 / double(interval_ns) > 2e6) {
    std::fprintf(stderr, "pm_sampling_window: %.0f samples in one image, at most 2 million: sample for less time, "
                 "less often, or reuse a smaller image\n", seconds * 1e9 / double(interval_ns));
    return 2;
  }
  if (CUresult r = cuInit(0); r != CUDA_SUCCESS) {
    const char* text = "";
    cuGetErrorString(r, &text);
    std::fprintf(stderr, "pm_sampling_window: cuInit failed: %d %s (no GPU or no driver here)\n", r, text ? text : "");
    return 1;
  }
  auto init = params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
  check(cuptiProfilerInitialize(&init), "cuptiProfilerInitialize");

  auto chip = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  chip.deviceIndex = 0;
  check(cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName");

  auto enable = params<CUpti_PmSampling_Enable_Params>(CUpti_PmSampling_Enable_Params_STRUCT_SIZE);
  enable.deviceIndex = 0;
  check(cuptiPmSamplingEnable(&enable), "cuptiPmSamplingEnable");
  CUpti_PmSampling_Object* sampler = enable.pPmSamplingObject;

  auto available = params<CUpti_PmSampling_GetCounterAvailability_Params>(CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE);
  available.deviceIndex = 0;
  check(cuptiPmSamplingGetCounterAvailability(&available), "counter availability size");
  std::vector<uint8_t> availability(available.counterAvailabilityImageSize);
  available.pCounterAvailabilityImage = availability.data();
  check(cuptiPmSamplingGetCounterAvailability(&available), "counter availability");

  auto host_init = params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  host_init.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
  host_init.pChipName = chip.pChipName;
  host_init.pCounterAvailabilityImage = availability.data();
  check(cuptiProfilerHostInitialize(&host_init), "cuptiProfilerHostInitialize");
  CUpti_Profiler_Host_Object* host = host_init.pHostObject;

  auto add = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  add.pHostObject = host;
  add.ppMetricNames = kMetrics;
  add.numMetrics = kMetricCount;
  if (CUptiResult r = cuptiProfilerHostConfigAddMetrics(&add); r != CUPTI_SUCCESS) {
    list_base_metrics(host);
    fail("adding the metrics", r);
  }
  auto config_size = params<CUpti_Profiler_Host_GetConfigImageSize_Params>(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  config_size.pHostObject = host;
  check(cuptiProfilerHostGetConfigImageSize(&config_size), "config image size");
  std::vector<uint8_t> config(config_size.configImageSize);
  auto config_image = params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  config_image.pHostObject = host;
  config_image.configImageSize = config.size();
  config_image.pConfigImage = config.data();
  check(cuptiProfilerHostGetConfigImage(&config_image), "config image");

  auto set = params<CUpti_PmSampling_SetConfig_Params>(CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE);
  set.pPmSamplingObject = sampler;
  set.configSize = config.size();
  set.pConfig = config.data();
  set.hardwareBufferSize = size_t(512) << 20;
  set.samplingInterval = interval_ns;
  set.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
  set.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
  check(cuptiPmSamplingSetConfig(&set), "cuptiPmSamplingSetConfig");

  // The counter-data image (about 3.7 KB a sample on an H200): by default one that holds the whole run. With
  // REUSE_SAMPLES, one of that many samples, emptied into `samples` whenever it fills and initialised again, the
  // way a sampler that runs as long as an executor must work; on the H200 that lost samples (docs/anti-cheat.md).
  const uint32_t image_samples =
      reuse_samples ? reuse_samples : static_cast<uint32_t>(seconds * 1e9 / double(interval_ns)) + 1000;
  auto data_size = params<CUpti_PmSampling_GetCounterDataSize_Params>(CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE);
  data_size.pPmSamplingObject = sampler;
  data_size.pMetricNames = kMetrics;
  data_size.numMetrics = kMetricCount;
  data_size.maxSamples = image_samples;
  check(cuptiPmSamplingGetCounterDataSize(&data_size), "counter data size");
  std::vector<uint8_t> data(data_size.counterDataSize);
  auto initialise = [&] {
    auto data_init = params<CUpti_PmSampling_CounterDataImage_Initialize_Params>(CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    data_init.pPmSamplingObject = sampler;
    data_init.counterDataSize = data.size();
    data_init.pCounterData = data.data();
    check(cuptiPmSamplingCounterDataImageInitialize(&data_init), "counter data image");
  };
  initialise();

  struct Sample {
    uint64_t begin_ns = 0, end_ns = 0;
    double values[kMetricCount] = {};
  };
  std::vector<Sample> samples;
  size_t images = 0;
  double harvest_s = 0;  // what reading the samples out costs this process's CPU
  auto harvest = [&] {  // every completed sample of the image, evaluated, then the image made empty again
    const auto began = std::chrono::steady_clock::now();
    auto info = params<CUpti_PmSampling_GetCounterDataInfo_Params>(CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE);
    info.pCounterDataImage = data.data();
    info.counterDataImageSize = data.size();
    check(cuptiPmSamplingGetCounterDataInfo(&info), "counter data info");
    for (size_t i = 0; i < info.numCompletedSamples; ++i) {
      auto sample = params<CUpti_PmSampling_CounterData_GetSampleInfo_Params>(CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE);
      sample.pPmSamplingObject = sampler;
      sample.pCounterDataImage = data.data();
      sample.counterDataImageSize = data.size();
      sample.sampleIndex = i;
      check(cuptiPmSamplingCounterDataGetSampleInfo(&sample), "sample info");
      Sample kept{sample.startTimestamp, sample.endTimestamp};
      auto evaluate = params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
      evaluate.pHostObject = host;
      evaluate.pCounterDataImage = data.data();
      evaluate.counterDataImageSize = data.size();
      evaluate.rangeIndex = i;
      evaluate.ppMetricNames = kMetrics;
      evaluate.numMetrics = kMetricCount;
      evaluate.pMetricValues = kept.values;
      check(cuptiProfilerHostEvaluateToGpuValues(&evaluate), "evaluating a sample");
      samples.push_back(kept);
    }
    ++images;
    initialise();
    harvest_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  };

  auto start = params<CUpti_PmSampling_Start_Params>(CUpti_PmSampling_Start_Params_STRUCT_SIZE);
  start.pPmSamplingObject = sampler;
  check(cuptiPmSamplingStart(&start), "cuptiPmSamplingStart");
  const uint64_t started_realtime_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
  std::printf("sampling device 0 (%s) every %llu ns for %.1f s, into a %zu-byte counter-data image\n", chip.pChipName,
              static_cast<unsigned long long>(interval_ns), seconds, data.size());
  std::fflush(stdout);
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  bool overflow = false;
  auto decode = [&] {  // everything the hardware buffer holds, into as many images as it takes
    for (;;) {
      auto decoded = params<CUpti_PmSampling_DecodeData_Params>(CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE);
      decoded.pPmSamplingObject = sampler;
      decoded.pCounterDataImage = data.data();
      decoded.counterDataImageSize = data.size();
      check(cuptiPmSamplingDecodeData(&decoded), "cuptiPmSamplingDecodeData");
      overflow = overflow || decoded.overflow;
      if (decoded.decodeStopReason != CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL) return;
      harvest();
    }
  };
  while (std::chrono::steady_clock::now() < until) {  // decode as it goes, so the hardware buffer never fills
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    decode();
  }
  auto stop = params<CUpti_PmSampling_Stop_Params>(CUpti_PmSampling_Stop_Params_STRUCT_SIZE);
  stop.pPmSamplingObject = sampler;
  check(cuptiPmSamplingStop(&stop), "cuptiPmSamplingStop");
  decode();
  harvest();
  std::printf("samples: %zu, through %zu fillings of a %u-sample image, read out in %.3f s of this process's time; "
              "hardware buffer overflow: %s\n", samples.size(), images, image_samples, harvest_s,
              overflow ? "yes" : "no");

  // Busy stretches: runs of samples busy for more than 1% of their length, joined across gaps of under 1 ms; a
  // stretch of under 50 us of busy time is counted in the total but not printed (the driver's own periodic work).
  size_t odd = 0;  // samples whose end is not after their start, or longer than 100 intervals
  uint64_t first_ns = UINT64_MAX;
  for (const auto& sample : samples)
    if (sample.end_ns > sample.begin_ns && sample.end_ns - sample.begin_ns < 100 * interval_ns)
      first_ns = std::min(first_ns, sample.begin_ns);
  struct Stretch {
    double begin_ms = 0, end_ms = 0, busy_ms = 0, dram_gb = 0;
  };
  std::vector<Stretch> stretches;
  double total_busy_ms = 0;
  for (const auto& sample : samples) {
    if (sample.end_ns <= sample.begin_ns || sample.end_ns - sample.begin_ns >= 100 * interval_ns) {
      ++odd;
      continue;
    }
    const double begin_ms = (sample.begin_ns - first_ns) / 1e6, end_ms = (sample.end_ns - first_ns) / 1e6;
    const double fraction = sample.values[1] > 0 ? sample.values[0] / sample.values[1] : 0.0;
    const double busy_ms = fraction * (end_ms - begin_ms);
    total_busy_ms += busy_ms;
    if (fraction < 0.01) continue;
    if (stretches.empty() || begin_ms - stretches.back().end_ms > 1.0) stretches.push_back({begin_ms, end_ms, 0, 0});
    stretches.back().end_ms = end_ms;
    stretches.back().busy_ms += busy_ms;
    stretches.back().dram_gb += (sample.values[2] + sample.values[3]) / 1e9;
  }
  std::printf("samples set aside as malformed: %zu; the first sample began at GPU time %llu ns, this process started "
              "sampling at CLOCK_REALTIME %llu ns\n", odd, static_cast<unsigned long long>(first_ns),
              static_cast<unsigned long long>(started_realtime_ns));
  std::printf("busy over the whole sampling: %.3f ms\n", total_busy_ms);
  for (const auto& s : stretches)
    if (s.busy_ms >= 0.05)
      std::printf("busy stretch at %.3f ms: %.3f ms long, %.3f ms busy, %.3f GB to and from DRAM\n", s.begin_ms,
                s.end_ms - s.begin_ms, s.busy_ms, s.dram_gb);

  auto disable = params<CUpti_PmSampling_Disable_Params>(CUpti_PmSampling_Disable_Params_STRUCT_SIZE);
  disable.pPmSamplingObject = sampler;
  cuptiPmSamplingDisable(&disable);
  auto host_done = params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
  host_done.pHostObject = host;
  cuptiProfilerHostDeinitialize(&host_done);
  return 0;
}
