//===- DeviceMemory.h - GPU memory for the tier manager's device tier -*- C++ -*-===//
//
// The real device tier of sluice/tier.h (options.cuda_device >= 0): tensors
// homed on the device live in GPU memory allocated with cuMemAlloc, and move
// between it and host memory with cuMemcpyHtoDAsync / cuMemcpyDtoHAsync on
// two streams (one per direction) through pinned staging buffers from
// cuMemHostAlloc, double-buffered in 1 MiB chunks. The CUDA driver is
// loaded with dlopen (runtime/src/gpu/CudaDriver.h's defaultDriverPath():
// $SLUICE_CUDA_DRIVER, else libcuda.so.1); nothing links against CUDA.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_IO_DEVICEMEMORY_H
#define SLUICE_RUNTIME_SRC_IO_DEVICEMEMORY_H

#include "sluice/runtime.h"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

namespace sluice::rt {

class DeviceMemory {
public:
  ~DeviceMemory();
  /// Loads the driver and sets up GPU `ordinal` (its primary context, two
  /// streams, the pinned staging buffers). UNSUPPORTED with the reason when
  /// there is no driver or no such GPU.
  static sluice_status_t open(int ordinal, std::unique_ptr<DeviceMemory> &out,
                              sluice_error_t *error);

  /// cuMemAlloc; OUT_OF_MEMORY when the GPU has no room.
  sluice_status_t allocate(uint64_t bytes, uint64_t &ptr, const std::string &what,
                           sluice_error_t *error);
  void release(uint64_t ptr);
  /// Host -> device and device -> host through the pinned staging buffers;
  /// complete when they return.
  sluice_status_t upload(uint64_t dst, const void *src, uint64_t bytes,
                         const std::string &what, sluice_error_t *error);
  sluice_status_t download(void *dst, uint64_t src, uint64_t bytes,
                           const std::string &what, sluice_error_t *error);

  /// The GPU's free and total memory (cuMemGetInfo); false when the driver
  /// does not say.
  bool memoryInfo(uint64_t &free, uint64_t &total);

  uint64_t allocated() const { return live; }
  uint64_t peak() const { return high; }
  uint64_t uploaded() const { return h2d; }
  uint64_t downloaded() const { return d2h; }
  const std::string &name() const { return deviceName; }

  struct Driver;

private:
  DeviceMemory() = default;
  sluice_status_t check(int result, const char *call, const std::string &what,
                        sluice_error_t *error);

  std::unique_ptr<Driver> driver;
  void *context = nullptr;
  int device = 0;
  bool retained = false;
  void *streams[2] = {nullptr, nullptr}; // h2d, d2h
  void *staging[2] = {nullptr, nullptr};
  std::unordered_map<uint64_t, uint64_t> sizes; // live allocations
  uint64_t live = 0, high = 0, h2d = 0, d2h = 0;
  std::string deviceName;
};

} // namespace sluice::rt

#endif // SLUICE_RUNTIME_SRC_IO_DEVICEMEMORY_H
