// Holding a candidate's timing report against the device (docs/anti-cheat.md, "The child's report").
//
// The report is written in the candidate's own process, so the host checks it two ways:
// - against itself: each shape's median is recomputed from the report's own items (every piece of GPU work of
//   the candidate's turn alone, each with its start and end), so a report whose figures were changed after the
//   harness made them no longer adds up;
// - against the device: a trusted sampler (tritongym-gpu-sampler) read the GPU's busy cycles over the same turn,
//   window opened and closed by the host. Millisecond by millisecond, the busy time the items account for must
//   match what the device counted, both ways: a report that shortens its calls leaves busy time unaccounted
//   for, and one that invents work claims busy time the device never saw.
// Pure functions: the executor gathers the inputs (device_sampler.hpp, the child's reply).
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace tritongym::triton_executor {

// One piece of the report's GPU work: [start_ns, end_ns, shape, call, kind] in the report's "window".
struct ReportItem {
  int64_t start_ns = 0, end_ns = 0;
  int64_t shape = 0;
  int64_t call = -1;  // >= 0: that timed call of the shape; -2: a scrub; -1: anything else
  int64_t kind = 0;   // 0 kernel, 1 a copy on the device, 2 a copy to or from the host, 3 memset
};

// A sample of the device's counters that saw work (tritongym-gpu-sampler's "busy").
struct DeviceSample {
  int64_t begin_ns = 0, end_ns = 0;
  double busy_ns = 0, dram_bytes = 0;
};

// What the sampler saw over the window.
struct DeviceWindow {
  int64_t first_ns = 0, last_ns = 0;  // the first sample's begin, the last one's end
  int64_t samples = 0;
  double dram_bytes = 0;
  std::vector<DeviceSample> busy;
  int64_t malformed = 0;
  bool overflow = false;    // the hardware buffer overflowed: samples were lost
  bool image_full = false;  // the window outlasted what the sampler keeps
};

struct ReportCheckLimits {
  int64_t bin_ns = 1000000;        // compared millisecond by millisecond
  double relative = 0.05;          // of the larger of the two busy totals
  int64_t absolute_ns = 500000;    // and this much besides
  int64_t max_shift_ns = 200000;   // the two clocks may differ by this much (searched in steps of 10 us)
  int64_t item_overhead_ns = 2400; // what the device counts per piece of work beyond CUPTI's start to end
};

struct ReportCheck {
  std::vector<std::string> flags;
  boost::json::object record;
};

// The report's items; `problem` says what is malformed (then nothing is returned).
std::vector<ReportItem> report_items(const boost::json::object& report, std::string& problem);
DeviceWindow device_window(const boost::json::object& sampler_reply);

// Flags for each shape whose reported median or call count is not what its timed calls' items add up to.
std::vector<std::string> check_report_against_itself(const boost::json::object& report,
                                                    const std::vector<ReportItem>& items);

// The report's busy time against the device's, bin by bin. Copies to or from the host are left out of the
// report's side (`host_copies` says whether the device counts them; measured: docs/anti-cheat.md).
ReportCheck check_report_against_device(const std::vector<ReportItem>& items, const DeviceWindow& device,
                                        const ReportCheckLimits& limits = {}, bool host_copies = false);

}  // namespace tritongym::triton_executor
