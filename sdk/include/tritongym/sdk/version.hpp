// TritonGym SDK: version numbers and the build fingerprint every plugin carries.
//
// The host refuses a plugin whose ABI version, entry-record size or fingerprint differs from its own.
// Plugin authors never write these by hand: TRITONGYM_PLUGIN (plugin.hpp) fills them in at compile time.
#pragma once

#include <cstdint>

#define TRITONGYM_SDK_VERSION_MAJOR 0
#define TRITONGYM_SDK_VERSION_MINOR 1
#define TRITONGYM_SDK_VERSION_PATCH 0

#define TRITONGYM_DETAIL_STR2(x) #x
#define TRITONGYM_DETAIL_STR(x) TRITONGYM_DETAIL_STR2(x)

#define TRITONGYM_SDK_VERSION                          \
  TRITONGYM_DETAIL_STR(TRITONGYM_SDK_VERSION_MAJOR)    \
  "." TRITONGYM_DETAIL_STR(TRITONGYM_SDK_VERSION_MINOR) \
  "." TRITONGYM_DETAIL_STR(TRITONGYM_SDK_VERSION_PATCH)

// Bumped whenever a type that crosses the plugin boundary changes layout or meaning.
#define TRITONGYM_PLUGIN_ABI_VERSION 7u

// What the plugin was built with. Keys that must match the host: stdlib, cxx11abi, sdk (major.minor).
// compiler is informational (libstdc++'s ABI is stable across GCC majors).
#if defined(__clang__)
#define TRITONGYM_DETAIL_COMPILER \
  "clang-" TRITONGYM_DETAIL_STR(__clang_major__) "." TRITONGYM_DETAIL_STR(__clang_minor__)
#elif defined(__GNUC__)
#define TRITONGYM_DETAIL_COMPILER \
  "gcc-" TRITONGYM_DETAIL_STR(__GNUC__) "." TRITONGYM_DETAIL_STR(__GNUC_MINOR__)
#else
#define TRITONGYM_DETAIL_COMPILER "unknown"
#endif

#if defined(_LIBCPP_VERSION)
#define TRITONGYM_DETAIL_STDLIB "libc++"
#define TRITONGYM_DETAIL_CXX11ABI "n/a"
#else
#include <string>  // defines _GLIBCXX_USE_CXX11_ABI
#define TRITONGYM_DETAIL_STDLIB "libstdc++"
#define TRITONGYM_DETAIL_CXX11ABI TRITONGYM_DETAIL_STR(_GLIBCXX_USE_CXX11_ABI)
#endif

#define TRITONGYM_BUILD_FINGERPRINT                                                  \
  "compiler=" TRITONGYM_DETAIL_COMPILER ";stdlib=" TRITONGYM_DETAIL_STDLIB           \
  ";cxx11abi=" TRITONGYM_DETAIL_CXX11ABI ";sdk=" TRITONGYM_DETAIL_STR(               \
      TRITONGYM_SDK_VERSION_MAJOR) "." TRITONGYM_DETAIL_STR(TRITONGYM_SDK_VERSION_MINOR)
