// The shipped plugins the host picks when a run file or a command names none: each id written once, here.
#pragma once

#include <string>

namespace tritongym::plugins {

inline constexpr const char* kDirectorySuite = "tritongym.suite.directory";  // tasks/<suite>/<task>/
inline constexpr const char* kCudaExecutor = "tritongym.executor.triton-cuda";
inline constexpr const char* kInterpreterExecutor = "tritongym.executor.triton-interpreter";

// The DSL plugin of a task's `dsl` ("triton", "gluon"): tritongym.dsl.<dsl>.
inline std::string dsl_plugin_id(const std::string& dsl) { return "tritongym.dsl." + dsl; }

}  // namespace tritongym::plugins
