// Device memory one worker process hands to another through CUDA IPC (the GPU data plane between the
// reference worker and a candidate's child, docs/worker-protocol.md). Each block is its own cuMemAlloc,
// never a piece of an allocator's pool, so that exporting it shows the other process nothing else.
#pragma once

#include <cstdint>
#include <string>

namespace tritongym::native {

// A block this process allocated and exports: anyone holding `handle` may map it until it is freed.
class ExportedBlock {
 public:
  // Allocates `bytes` on device `ordinal` (its primary context, the one torch uses), fills every byte
  // with `fill` when it is 0..255, and takes its IPC handle. Throws std::runtime_error with the driver's
  // reason.
  ExportedBlock(int ordinal, uint64_t bytes, int fill);
  ~ExportedBlock();
  ExportedBlock(const ExportedBlock&) = delete;
  ExportedBlock& operator=(const ExportedBlock&) = delete;

  uint64_t pointer() const { return pointer_; }
  uint64_t bytes() const { return bytes_; }
  int device() const { return ordinal_; }
  const std::string& handle() const { return handle_; }  // the 64 bytes of CUipcMemHandle
  void free();  // idempotent; afterwards pointer() is 0

 private:
  int ordinal_;
  uint64_t pointer_ = 0;
  uint64_t bytes_;
  std::string handle_;
};

// Another process's block, mapped here. `bytes()` is the size of the allocation as the driver reports it,
// not as the other process claims it: views are checked against it.
class MappedBlock {
 public:
  MappedBlock(int ordinal, const std::string& handle);
  ~MappedBlock();
  MappedBlock(const MappedBlock&) = delete;
  MappedBlock& operator=(const MappedBlock&) = delete;

  uint64_t pointer() const { return pointer_; }
  uint64_t bytes() const { return bytes_; }
  int device() const { return ordinal_; }
  void close();  // idempotent; afterwards pointer() is 0

 private:
  int ordinal_;
  uint64_t pointer_ = 0;
  uint64_t bytes_ = 0;
};

}  // namespace tritongym::native
