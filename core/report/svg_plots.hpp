// The report's plots as inline SVG (no script, no network). One series per model x workflow of the
// overall split, coloured by series_colour(index); every label from the run is escaped.
#pragma once

#include <string>

#include "report/report.hpp"

namespace tritongym::report {

// A fixed palette, cycled: the same series has the same colour in every plot and legend.
const char* series_colour(size_t series_index);

// Each passing episode's speedup over the oracle, one row of dots per series, log scale 1/8x..8x.
std::string speedup_distribution_svg(const Report& report);
// Pass rate by attempt: one line per series, attempts on x, the fraction passed by then on y.
std::string pass_rate_by_attempt_svg(const Report& report);
// Perf@1 (or Pass@1 when the run has no performance numbers) against dollars per episode.
std::string perf_versus_dollars_svg(const Report& report);

}  // namespace tritongym::report
