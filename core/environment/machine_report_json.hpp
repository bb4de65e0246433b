// The machine report as JSON: what `tritongym doctor --json` prints and what every run stores as its
// environment (GPU, driver, CUDA, Python, torch, triton, host).
#pragma once

#include <boost/json/object.hpp>

#include "tritongym/support/machine_probe.hpp"

namespace tritongym::environment {

boost::json::object machine_report_json(const MachineReport& report);

}  // namespace tritongym::environment
