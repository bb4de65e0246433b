#include "report_check.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

namespace tritongym::triton_executor {
namespace {

int64_t integer(const boost::json::value& value) {
  if (value.is_int64()) return value.as_int64();
  if (value.is_uint64()) return static_cast<int64_t>(value.as_uint64());
  if (value.is_double()) return static_cast<int64_t>(value.as_double());
  throw std::invalid_argument("not a number");
}

double number(const boost::json::object& object, const char* key) {
  const auto* value = object.if_contains(key);
  if (!value) return 0.0;
  if (value->is_double()) return value->as_double();
  if (value->is_int64()) return static_cast<double>(value->as_int64());
  if (value->is_uint64()) return static_cast<double>(value->as_uint64());
  return 0.0;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2.0;
}

std::string ms(double ns) {
  std::ostringstream out;
  out.precision(ns < 1e7 ? 3 : 1);
  out << std::fixed << ns / 1e6 << " ms";
  return out.str();
}

// The union of the items' intervals (concurrent work counts once, as the device's busy cycles do), each with the
// number of items in it.
struct Span {
  int64_t begin_ns, end_ns;
  int64_t items;
};
std::vector<Span> merged(const std::vector<ReportItem>& items, bool host_copies) {
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (const auto& item : items)
    if (item.end_ns > item.start_ns && (host_copies || item.kind != 2)) spans.emplace_back(item.start_ns, item.end_ns);
  std::sort(spans.begin(), spans.end());
  std::vector<Span> out;
  for (const auto& span : spans) {
    if (!out.empty() && span.first <= out.back().end_ns) {
      out.back().end_ns = std::max(out.back().end_ns, span.second);
      ++out.back().items;
    } else {
      out.push_back({span.first, span.second, 1});
    }
  }
  return out;
}

// Adds `weight` spread evenly over [begin, end) to the bins from `origin`; returns what fell outside them.
double spread(std::vector<double>& bins, int64_t origin, int64_t bin_ns, int64_t begin, int64_t end, double weight) {
  if (end <= begin) return 0.0;
  const double per_ns = weight / static_cast<double>(end - begin);
  const int64_t limit = origin + static_cast<int64_t>(bins.size()) * bin_ns;
  double outside = 0.0;
  if (begin < origin) outside += per_ns * static_cast<double>(std::min(end, origin) - begin), begin = origin;
  if (end > limit) outside += per_ns * static_cast<double>(end - std::max(begin, limit)), end = limit;
  for (int64_t at = begin; at < end;) {
    const int64_t bin = (at - origin) / bin_ns;
    const int64_t bin_end = std::min(end, origin + (bin + 1) * bin_ns);
    bins[static_cast<size_t>(bin)] += per_ns * static_cast<double>(bin_end - at);
    at = bin_end;
  }
  return outside;
}

}  // namespace

std::vector<ReportItem> report_items(const boost::json::object& report, std::string& problem) {
  std::vector<ReportItem> items;
  const auto* window = report.if_contains("window");
  const auto* list = window && window->is_object() ? window->as_object().if_contains("items") : nullptr;
  if (!list || !list->is_array()) {
    problem = "the report has no window of items";
    return {};
  }
  try {
    for (const auto& entry : list->as_array()) {
      const auto& fields = entry.as_array();
      if (fields.size() != 5) throw std::invalid_argument("an item is not [start_ns, end_ns, shape, call, kind]");
      items.push_back({integer(fields[0]), integer(fields[1]), integer(fields[2]), integer(fields[3]), integer(fields[4])});
    }
  } catch (const std::exception& error) {
    problem = std::string("the report's window is malformed: ") + error.what();
    return {};
  }
  return items;
}

DeviceWindow device_window(const boost::json::object& reply) {
  DeviceWindow window;
  window.first_ns = static_cast<int64_t>(number(reply, "first_ns"));
  window.last_ns = static_cast<int64_t>(number(reply, "last_ns"));
  window.samples = static_cast<int64_t>(number(reply, "samples"));
  window.dram_bytes = number(reply, "dram_bytes");
  window.malformed = static_cast<int64_t>(number(reply, "malformed"));
  if (const auto* flag = reply.if_contains("overflow"); flag && flag->is_bool()) window.overflow = flag->as_bool();
  if (const auto* flag = reply.if_contains("image_full"); flag && flag->is_bool()) window.image_full = flag->as_bool();
  if (const auto* busy = reply.if_contains("busy"); busy && busy->is_array())
    for (const auto& entry : busy->as_array()) {
      const auto& s = entry.as_array();
      window.busy.push_back({integer(s.at(0)), integer(s.at(1)), static_cast<double>(integer(s.at(2))),
                             static_cast<double>(integer(s.at(3)))});
    }
  return window;
}

std::vector<std::string> check_report_against_itself(const boost::json::object& report,
                                                    const std::vector<ReportItem>& items) {
  std::vector<std::string> flags;
  const auto* shapes = report.if_contains("shapes");
  if (!shapes || !shapes->is_array()) return flags;
  std::map<int64_t, std::map<int64_t, double>> call_ns;  // shape -> call -> summed duration
  for (const auto& item : items)
    if (item.call >= 0) call_ns[item.shape][item.call] += static_cast<double>(item.end_ns - item.start_ns);
  for (size_t s = 0; s < shapes->as_array().size(); ++s) {
    const auto& shape = shapes->as_array()[s].as_object();
    const auto* key = shape.if_contains("key");
    const std::string name = key && key->is_string() ? std::string(key->as_string()) : "shape " + std::to_string(s);
    const int64_t repetitions = static_cast<int64_t>(number(shape, "repetitions"));
    const auto& calls = call_ns[static_cast<int64_t>(s)];
    const int64_t last_call = calls.empty() ? -1 : calls.rbegin()->first;
    if (last_call >= repetitions) {
      flags.push_back(name + ": report: its items hold timed call " + std::to_string(last_call) + ", and it says " +
                      std::to_string(repetitions) + " calls were timed");
      continue;
    }
    std::vector<double> us(static_cast<size_t>(std::max<int64_t>(repetitions, 0)), 0.0);  // a call without items: 0
    for (const auto& [call, ns] : calls) us[static_cast<size_t>(call)] = ns / 1000.0;
    const double recomputed = median(us), reported = number(shape, "median_us");
    if (std::abs(recomputed - reported) > 0.005 * std::max(recomputed, reported) + 0.05) {
      std::ostringstream out;
      out.precision(2);
      out << std::fixed << name << ": report: its median is " << reported << " us, and its own timed calls' items "
          << "add up to a median of " << recomputed << " us; the report was changed after the harness made it";
      flags.push_back(out.str());
    }
  }
  return flags;
}

ReportCheck check_report_against_device(const std::vector<ReportItem>& items, const DeviceWindow& device,
                                        const ReportCheckLimits& limits, bool host_copies) {
  ReportCheck check;
  auto& record = check.record;
  record["samples"] = device.samples;
  record["malformed_samples"] = device.malformed;
  record["device_dram_gb"] = device.dram_bytes / 1e9;
  if (device.overflow) {
    record["checked"] = false;
    record["reason"] = "the sampler's hardware buffer overflowed: samples were lost";
    return check;
  }
  if (device.image_full) {
    record["checked"] = false;
    check.flags.push_back("report: the candidate's turn alone on the GPU outlasted what the device's counters are "
                          "kept for, so its timing report cannot be checked");
    return check;
  }
  if (device.last_ns <= device.first_ns) {
    record["checked"] = false;
    record["reason"] = "the sampler saw no samples in the window";
    return check;
  }
  const int64_t origin = device.first_ns;
  const size_t count = static_cast<size_t>((device.last_ns - origin + limits.bin_ns - 1) / limits.bin_ns);
  std::vector<double> device_bins(count, 0.0);
  for (const auto& sample : device.busy)
    spread(device_bins, origin, limits.bin_ns, sample.begin_ns, sample.end_ns, sample.busy_ns);
  double device_total = 0.0;
  for (double bin : device_bins) device_total += bin;

  // The device counts a little more than CUPTI's start to end for every piece of work (about 2.4 us on the H200:
  // docs/anti-cheat.md), so each item is taken as that much longer.
  const auto spans = merged(items, host_copies);
  double reported_total = 0.0;
  for (const auto& span : spans)
    reported_total += static_cast<double>(span.end_ns - span.begin_ns + span.items * limits.item_overhead_ns);
  // The clocks of CUPTI's activity records and of its samples agree to within tens of microseconds
  // (docs/anti-cheat.md); the best shift within the limit is taken.
  double best = -1.0, best_outside = 0.0;
  int64_t best_shift = 0;
  std::vector<double> reported_bins(count);
  for (int64_t shift = -limits.max_shift_ns; shift <= limits.max_shift_ns; shift += 10000) {
    std::fill(reported_bins.begin(), reported_bins.end(), 0.0);
    double outside = 0.0;
    for (const auto& span : spans) {
      const int64_t extra = span.items * limits.item_overhead_ns;
      outside += spread(reported_bins, origin, limits.bin_ns, span.begin_ns + shift, span.end_ns + extra + shift,
                        static_cast<double>(span.end_ns - span.begin_ns + extra));
    }
    double apart = outside;
    for (size_t b = 0; b < count; ++b) apart += std::abs(device_bins[b] - reported_bins[b]);
    if (best < 0 || apart < best || (apart == best && std::abs(shift) < std::abs(best_shift)))
      best = apart, best_outside = outside, best_shift = shift;
  }
  const double allowed = static_cast<double>(limits.absolute_ns) + limits.relative * std::max(device_total, reported_total);
  record["checked"] = true;
  record["window_ms"] = static_cast<double>(device.last_ns - device.first_ns) / 1e6;
  record["device_busy_ms"] = device_total / 1e6;
  record["reported_busy_ms"] = reported_total / 1e6;
  record["apart_ms"] = best / 1e6;
  record["allowed_ms"] = allowed / 1e6;
  record["outside_ms"] = best_outside / 1e6;
  record["shift_us"] = static_cast<double>(best_shift) / 1e3;
  record["items"] = static_cast<int64_t>(items.size());
  if (best > allowed)
    check.flags.push_back("report: in the candidate's turn alone on the GPU the device was busy " + ms(device_total) +
                          ", and its timing report accounts for " + ms(reported_total) + " (" + ms(best) +
                          " apart millisecond by millisecond, " + ms(allowed) +
                          " allowed); the report is not what ran on the GPU");
  return check;
}

}  // namespace tritongym::triton_executor
