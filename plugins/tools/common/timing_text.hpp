// What the benchmark and profile tools tell the model about speed: one block per shape, from the
// executor's ShapeTiming and KernelRecords. Identical for every workflow.
#pragma once

#include <cstdio>
#include <sstream>
#include <string>

#include "tritongym/sdk/types.hpp"

namespace tritongym::tools {

inline std::string fixed(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

inline std::string microseconds(double us) { return fixed(us, us < 10 ? 2 : (us < 1000 ? 1 : 0)) + " us"; }

inline std::string dims_of(const TaskSpec& task, const std::string& shape) {
  for (const auto* shapes : {&task.visible_shapes, &task.held_out_shapes, &task.small_shapes})
    for (const auto& spec : *shapes)
      if (shape.rfind(spec.name, 0) == 0) {
        std::string text;
        for (const auto& [name, size] : spec.dims) text += (text.empty() ? "" : ", ") + name + "=" + std::to_string(size);
        return text;
      }
  return "";
}

// "visible-0 (M=4096): 41.2 us (spread 0.8%, 240 calls) | 1.93x vs eager (79.5 us) | ..."
inline std::string timing_line(const TaskSpec& task, const ShapeOutcome& shape, bool reveal_oracle) {
  std::ostringstream line;
  line << shape.shape << " (" << dims_of(task, shape.shape) << "): ";
  if (!shape.timing) return line.str() + "not timed";
  const ShapeTiming& t = *shape.timing;
  line << microseconds(t.median_us) << " (spread " << fixed(t.spread_pct, 1) << "%, " << t.repetitions << " calls"
       << (t.cold_l2 ? "" : ", warm L2") << ")";
  if (t.eager_us && t.median_us > 0)
    line << " | " << fixed(*t.eager_us / t.median_us, 2) << "x vs eager (" << microseconds(*t.eager_us) << ")";
  if (t.compile_us && t.median_us > 0)
    line << " | " << fixed(*t.compile_us / t.median_us, 2) << "x vs torch.compile (" << microseconds(*t.compile_us) << ")";
  if (t.triton_us && t.median_us > 0)
    line << " | " << fixed(*t.triton_us / t.median_us, 2) << "x vs plain Triton (" << microseconds(*t.triton_us) << ")";
  if (t.speed_of_light_us && t.median_us > 0)
    line << " | " << fixed(100.0 * *t.speed_of_light_us / t.median_us, 0) << "% of speed-of-light";
  if (reveal_oracle && t.oracle_us) line << " | oracle " << microseconds(*t.oracle_us);
  return line.str();
}

// The kernels of one shape: launches, time, grid, block, registers, shared memory, achieved rates.
inline std::string profile_block(const TaskSpec& task, const ShapeOutcome& shape) {
  std::ostringstream text;
  text << timing_line(task, shape, false) << "\n";
  if (shape.timing && shape.timing->median_us > 0) {
    const ShapeTiming& t = *shape.timing;
    double seconds = t.median_us * 1e-6;
    if (t.byte_count) text << "  achieved bandwidth " << fixed(*t.byte_count / seconds / 1e12, 2) << " TB/s";
    if (t.flop_count && *t.flop_count > 0)
      text << (t.byte_count ? ", " : "  ") << "compute " << fixed(*t.flop_count / seconds / 1e12, 1) << " TFLOP/s";
    if (t.byte_count || t.flop_count) text << "\n";
    if (t.library_fraction > 0) text << "  " << fixed(100 * t.library_fraction, 0) << "% of the time in library kernels\n";
  }
  for (const auto& k : shape.kernels) {
    text << "  " << (k.name.size() > 70 ? k.name.substr(0, 67) + "..." : k.name) << (k.library ? " [library]" : "")
         << ": " << k.calls << " launch(es), " << microseconds(k.total_us) << ", grid (" << k.grid << "), block ("
         << k.block << "), " << k.registers << " registers/thread, " << k.shared_memory_bytes << " B shared memory\n";
  }
  return text.str();
}

}  // namespace tritongym::tools
