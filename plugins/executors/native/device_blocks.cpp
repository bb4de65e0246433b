#include "device_blocks.hpp"

#include <dlfcn.h>

#include <cstring>
#include <stdexcept>

namespace tritongym::native {
namespace {

using CUresult = int;
using CUdevice = int;
using CUcontext = void*;
using CUdeviceptr = unsigned long long;
struct IpcHandle {  // CUipcMemHandle: 64 opaque bytes, passed by value
  char reserved[64];
};
constexpr unsigned kLazyEnablePeerAccess = 1;  // CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS

struct Driver {
  std::string error;
  CUresult (*init)(unsigned) = nullptr;
  CUresult (*device_get)(CUdevice*, int) = nullptr;
  CUresult (*retain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*release)(CUdevice) = nullptr;
  CUresult (*push)(CUcontext) = nullptr;
  CUresult (*pop)(CUcontext*) = nullptr;
  CUresult (*alloc)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*free)(CUdeviceptr) = nullptr;
  CUresult (*memset)(CUdeviceptr, unsigned char, size_t) = nullptr;
  CUresult (*synchronize)() = nullptr;
  CUresult (*get_handle)(IpcHandle*, CUdeviceptr) = nullptr;
  CUresult (*open_handle)(CUdeviceptr*, IpcHandle, unsigned) = nullptr;
  CUresult (*close_handle)(CUdeviceptr) = nullptr;
  CUresult (*address_range)(CUdeviceptr*, size_t*, CUdeviceptr) = nullptr;
  CUresult (*error_name)(CUresult, const char**) = nullptr;

  Driver() {
    void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);  // never closed
    if (!handle) {
      error = "libcuda.so.1 cannot be loaded (no NVIDIA driver)";
      return;
    }
    auto bind = [&](auto& slot, const char* name) {
      slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(dlsym(handle, name));
      if (!slot && error.empty()) error = std::string("libcuda lacks ") + name;
    };
    bind(init, "cuInit");
    bind(device_get, "cuDeviceGet");
    bind(retain, "cuDevicePrimaryCtxRetain");
    bind(release, "cuDevicePrimaryCtxRelease_v2");
    bind(push, "cuCtxPushCurrent_v2");
    bind(pop, "cuCtxPopCurrent_v2");
    bind(alloc, "cuMemAlloc_v2");
    bind(free, "cuMemFree_v2");
    bind(memset, "cuMemsetD8_v2");
    bind(synchronize, "cuCtxSynchronize");
    bind(get_handle, "cuIpcGetMemHandle");
    bind(open_handle, "cuIpcOpenMemHandle_v2");
    bind(close_handle, "cuIpcCloseMemHandle");
    bind(address_range, "cuMemGetAddressRange_v2");
    bind(error_name, "cuGetErrorName");
    if (error.empty() && init(0) != 0) error = "cuInit failed (no usable GPU)";
  }
};

const Driver& driver() {
  static const Driver instance;
  if (!instance.error.empty()) throw std::runtime_error(instance.error);
  return instance;
}

void check(CUresult result, const char* what) {
  if (result == 0) return;
  const char* name = nullptr;
  if (driver().error_name(result, &name) != 0 || !name) name = "unknown error";
  throw std::runtime_error(std::string(what) + " failed: " + name + " (CUresult " + std::to_string(result) + ")");
}

// The device's primary context made current for one scope (torch works in the same context).
class InDevice {
 public:
  explicit InDevice(int ordinal) {
    const Driver& d = driver();
    check(d.device_get(&device_, ordinal), "cuDeviceGet");
    check(d.retain(&context_, device_), "cuDevicePrimaryCtxRetain");
    if (CUresult pushed = d.push(context_); pushed != 0) {
      d.release(device_);
      check(pushed, "cuCtxPushCurrent");
    }
  }
  ~InDevice() {
    CUcontext popped = nullptr;
    driver().pop(&popped);
    driver().release(device_);
  }
  InDevice(const InDevice&) = delete;
  InDevice& operator=(const InDevice&) = delete;

 private:
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
};

}  // namespace

ExportedBlock::ExportedBlock(int ordinal, uint64_t bytes, int fill) : ordinal_(ordinal), bytes_(bytes) {
  if (bytes == 0) throw std::runtime_error("an exported block needs at least one byte");
  const Driver& d = driver();
  InDevice in(ordinal);
  CUdeviceptr pointer = 0;
  check(d.alloc(&pointer, bytes), "cuMemAlloc");
  try {
    if (fill >= 0 && fill <= 255) {
      check(d.memset(pointer, static_cast<unsigned char>(fill), bytes), "cuMemsetD8");
      check(d.synchronize(), "cuCtxSynchronize");  // the block is filled before anyone maps it
    }
    IpcHandle handle{};
    check(d.get_handle(&handle, pointer), "cuIpcGetMemHandle");
    handle_.assign(handle.reserved, sizeof handle.reserved);
  } catch (...) {
    d.free(pointer);
    throw;
  }
  pointer_ = pointer;
}

ExportedBlock::~ExportedBlock() {
  try {
    free();
  } catch (...) {  // a destructor never throws; the driver's state is reported by the next call
  }
}

void ExportedBlock::free() {
  if (!pointer_) return;
  InDevice in(ordinal_);
  CUdeviceptr pointer = pointer_;
  pointer_ = 0;
  check(driver().free(pointer), "cuMemFree");
}

MappedBlock::MappedBlock(int ordinal, const std::string& handle) : ordinal_(ordinal) {
  if (handle.size() != sizeof(IpcHandle))
    throw std::runtime_error("an IPC handle has 64 bytes, this one " + std::to_string(handle.size()));
  const Driver& d = driver();
  InDevice in(ordinal);
  IpcHandle raw{};
  std::memcpy(raw.reserved, handle.data(), sizeof raw.reserved);
  CUdeviceptr pointer = 0;
  check(d.open_handle(&pointer, raw, kLazyEnablePeerAccess), "cuIpcOpenMemHandle");
  CUdeviceptr base = 0;
  size_t size = 0;
  if (CUresult ranged = d.address_range(&base, &size, pointer); ranged != 0 || base != pointer) {
    d.close_handle(pointer);
    check(ranged ? ranged : 1, "cuMemGetAddressRange");
  }
  pointer_ = pointer;
  bytes_ = size;
}

MappedBlock::~MappedBlock() {
  try {
    close();
  } catch (...) {
  }
}

void MappedBlock::close() {
  if (!pointer_) return;
  InDevice in(ordinal_);
  CUdeviceptr pointer = pointer_;
  pointer_ = 0;
  check(driver().close_handle(pointer), "cuIpcCloseMemHandle");
}

}  // namespace tritongym::native
