// tritongym_native: the worker's window on the CUDA driver (device properties, memory, synchronise)
// and on CUPTI (kernel tracing for the timing loop, cupti_tracer.hpp). Both are opened with dlopen, so
// the module imports on machines without a GPU and says so.
#include <dlfcn.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "cupti_tracer.hpp"
#include "device_blocks.hpp"

namespace py = pybind11;
namespace native = tritongym::native;

namespace {

using CUresult = int;
using CUdevice = int;
using CUcontext = void*;

// Attribute numbers from cuda.h (stable across CUDA versions).
constexpr int kMultiprocessorCount = 16, kComputeCapabilityMajor = 75, kComputeCapabilityMinor = 76,
              kL2CacheSize = 38, kMemoryBusWidth = 37, kMemoryClockRate = 36, kMaxSharedMemoryPerBlockOptin = 97;

struct Driver {
  void* handle = nullptr;
  std::string error;
  CUresult (*init)(unsigned) = nullptr;
  CUresult (*driver_version)(int*) = nullptr;
  CUresult (*device_count)(int*) = nullptr;
  CUresult (*device_get)(CUdevice*, int) = nullptr;
  CUresult (*device_name)(char*, int, CUdevice) = nullptr;
  CUresult (*device_memory)(size_t*, CUdevice) = nullptr;
  CUresult (*device_attribute)(int*, int, CUdevice) = nullptr;
  CUresult (*context_current)(CUcontext*) = nullptr;
  CUresult (*context_synchronize)() = nullptr;
  CUresult (*memory_info)(size_t*, size_t*) = nullptr;

  Driver() {
    handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      error = "libcuda.so.1 cannot be loaded (no NVIDIA driver)";
      return;
    }
    bind(init, "cuInit");
    bind(driver_version, "cuDriverGetVersion");
    bind(device_count, "cuDeviceGetCount");
    bind(device_get, "cuDeviceGet");
    bind(device_name, "cuDeviceGetName");
    bind(device_memory, "cuDeviceTotalMem_v2");
    bind(device_attribute, "cuDeviceGetAttribute");
    bind(context_current, "cuCtxGetCurrent");
    bind(context_synchronize, "cuCtxSynchronize");
    bind(memory_info, "cuMemGetInfo_v2");
    if (error.empty() && init(0) != 0) error = "cuInit failed (no usable GPU)";
  }
  template <class F>
  void bind(F& slot, const char* name) {
    slot = reinterpret_cast<F>(dlsym(handle, name));
    if (!slot && error.empty()) error = std::string("libcuda lacks ") + name;
  }
  bool usable() const { return error.empty(); }
};

const Driver& driver() {
  static const Driver instance;  // never closed: unloading libcuda after cuInit is unsafe
  return instance;
}

py::dict device_properties(int index) {
  const Driver& d = driver();
  if (!d.usable()) throw std::runtime_error(d.error);
  CUdevice device = 0;
  if (d.device_get(&device, index) != 0) throw std::runtime_error("no CUDA device " + std::to_string(index));
  char name[256] = {};
  d.device_name(name, sizeof name, device);
  size_t memory = 0;
  d.device_memory(&memory, device);
  auto attribute = [&](int which) {
    int value = 0;
    d.device_attribute(&value, which, device);
    return value;
  };
  py::dict out;
  out["index"] = index;
  out["name"] = std::string(name);
  out["compute_capability"] = py::make_tuple(attribute(kComputeCapabilityMajor), attribute(kComputeCapabilityMinor));
  out["total_memory_bytes"] = memory;
  out["multiprocessors"] = attribute(kMultiprocessorCount);
  out["l2_cache_bytes"] = attribute(kL2CacheSize);
  out["memory_bus_width_bits"] = attribute(kMemoryBusWidth);
  out["memory_clock_khz"] = attribute(kMemoryClockRate);
  out["max_shared_memory_per_block_optin_bytes"] = attribute(kMaxSharedMemoryPerBlockOptin);
  return out;
}

py::dict describe() {
  const Driver& d = driver();
  py::dict out;
  out["available"] = d.usable();
  if (!d.usable()) {
    out["reason"] = d.error;
    return out;
  }
  int version = 0, count = 0;
  d.driver_version(&version);
  d.device_count(&count);
  out["cuda_driver_api_version"] = version;
  py::list devices;
  for (int i = 0; i < count; ++i) devices.append(device_properties(i));
  out["devices"] = devices;
  return out;
}

// Free and total bytes on the current context's device; None when no context is current.
py::object memory_info() {
  const Driver& d = driver();
  if (!d.usable()) return py::none();
  CUcontext context = nullptr;
  if (d.context_current(&context) != 0 || !context) return py::none();
  size_t free_bytes = 0, total_bytes = 0;
  if (d.memory_info(&free_bytes, &total_bytes) != 0) return py::none();
  return py::make_tuple(free_bytes, total_bytes);
}

// Waits for all work of the current context; returns the CUresult (0 = success).
int synchronize() {
  const Driver& d = driver();
  if (!d.usable()) return -1;
  CUcontext context = nullptr;
  if (d.context_current(&context) != 0 || !context) return 0;
  py::gil_scoped_release release;
  return d.context_synchronize();
}

// ---------------------------------------------------------------- CUPTI tracing

native::KernelTracer& tracer() { return native::KernelTracer::instance(); }

std::string cupti_load(const std::vector<std::string>& paths) { return tracer().load(paths); }

// Starts tracing; raises with CUPTI's reason when it cannot.
void cupti_start() {
  if (std::string error = tracer().start(); !error.empty()) throw std::runtime_error(error);
}

void cupti_set_call(int64_t call) { tracer().set_call(call); }

// The activities as dicts, for Python.
py::list activity_dicts(const std::vector<native::GpuActivity>& activities) {
  py::list out;
  for (const auto& activity : activities) {
    py::dict item;
    item["kind"] = activity.kind == native::GpuActivity::Kind::kernel   ? "kernel"
                   : activity.kind == native::GpuActivity::Kind::memcpy ? "memcpy"
                                                                        : "memset";
    item["name"] = activity.name;
    item["start_ns"] = activity.start_ns;
    item["end_ns"] = activity.end_ns;
    item["stream"] = activity.stream_id;
    item["call"] = activity.call;
    item["grid"] = py::make_tuple(activity.grid[0], activity.grid[1], activity.grid[2]);
    item["block"] = py::make_tuple(activity.block[0], activity.block[1], activity.block[2]);
    item["registers"] = activity.registers_per_thread;
    item["shared_memory_bytes"] = activity.shared_memory_bytes;
    item["bytes"] = activity.bytes;
    out.append(std::move(item));
  }
  return out;
}

// Stops tracing and returns every activity as a dict, after synchronising the current context.
py::list cupti_stop() {
  synchronize();
  std::vector<native::GpuActivity> activities;
  {
    py::gil_scoped_release release;  // CUPTI's buffer thread may need the GIL-free world to finish
    activities = tracer().stop();
  }
  return activity_dicts(activities);
}

// What ran since the start or the last drain, after synchronising; tracing goes on.
py::list cupti_drain() {
  synchronize();
  std::vector<native::GpuActivity> activities;
  {
    py::gil_scoped_release release;
    activities = tracer().drain();
  }
  return activity_dicts(activities);
}

int64_t cupti_stream_id(uintptr_t stream_handle) {
  const Driver& d = driver();
  CUcontext context = nullptr;
  if (!d.usable() || d.context_current(&context) != 0) return -1;
  return tracer().stream_id_of(context, stream_handle);
}

// The block as a one-dimensional uint8 array for torch.as_tensor (which keeps the block alive).
template <class Block>
py::dict array_interface(const Block& block) {
  if (!block.pointer()) throw std::runtime_error("the block was freed or closed");
  py::dict out;
  out["shape"] = py::make_tuple(block.bytes());
  out["typestr"] = "|u1";
  out["data"] = py::make_tuple(block.pointer(), false);
  out["version"] = 3;
  return out;
}

}  // namespace

PYBIND11_MODULE(tritongym_native, module) {
  module.doc() = "TritonGym's native helpers for the worker (CUDA driver through dlopen).";
  module.def("describe", &describe, "driver version and every device's properties, or why there are none");
  module.def("device_properties", &device_properties, py::arg("index"));
  module.def("memory_info", &memory_info, "(free, total) bytes of the current context's device, or None");
  module.def("synchronize", &synchronize, "cuCtxSynchronize on the current context; returns the CUresult");
  module.def("cupti_load", &cupti_load, py::arg("paths"),
             "opens libcupti (an already loaded one first, then each path); returns '' or why it could not");
  module.def("cupti_library", [] { return tracer().library_path(); }, "the libcupti in use, '' when none");
  module.def("cupti_start", &cupti_start, "subscribes and enables kernel/memcpy/memset tracing; raises on failure");
  module.def("cupti_set_call", &cupti_set_call, py::arg("call"),
             "attributes launches from now on to timed call `call` (-1: none)");
  module.def("cupti_stop", &cupti_stop, "synchronises, flushes, stops tracing; returns the activities as dicts");
  module.def("cupti_drain", &cupti_drain,
             "synchronises and flushes; returns the activities since the start or the last drain; tracing goes on");
  py::class_<native::ExportedBlock>(module, "ExportedBlock",
                                    "device memory of its own cuMemAlloc, exported through CUDA IPC")
      .def(py::init<int, uint64_t, int>(), py::arg("device"), py::arg("bytes"), py::arg("fill") = -1)
      .def_property_readonly("pointer", &native::ExportedBlock::pointer)
      .def_property_readonly("bytes", &native::ExportedBlock::bytes)
      .def_property_readonly("device", &native::ExportedBlock::device)
      .def_property_readonly("handle", [](const native::ExportedBlock& block) { return py::bytes(block.handle()); })
      .def_property_readonly("__cuda_array_interface__", &array_interface<native::ExportedBlock>)
      .def("free", &native::ExportedBlock::free, "frees it now (views of it must be gone)");
  py::class_<native::MappedBlock>(module, "MappedBlock", "another process's exported block, mapped here")
      .def(py::init<int, const std::string&>(), py::arg("device"), py::arg("handle"))
      .def_property_readonly("pointer", &native::MappedBlock::pointer)
      .def_property_readonly("bytes", &native::MappedBlock::bytes, "the allocation's size as the driver reports it")
      .def_property_readonly("device", &native::MappedBlock::device)
      .def_property_readonly("__cuda_array_interface__", &array_interface<native::MappedBlock>)
      .def("close", &native::MappedBlock::close, "unmaps it now (views of it must be gone)");
  module.def("cupti_stream_id", &cupti_stream_id, py::arg("stream_handle"),
             "CUPTI's id of a CUDA stream handle in the current context, -1 when unknown");
}
