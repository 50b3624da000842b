//===- CudaDriver.h - The CUDA driver API, loaded with dlopen -*- C++ -*-===//
//
// libsluicert must run on machines without CUDA, so it never links against
// libcuda: CudaDriver opens the driver library at run time and resolves the
// few entry points the GPU layer (sluice/gpu.h) uses. The types mirror
// cuda.h's (CUresult, CUdevice, ...) without including it, so building the
// runtime needs no CUDA toolkit either.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_GPU_CUDADRIVER_H
#define SLUICE_RUNTIME_SRC_GPU_CUDADRIVER_H

#include "sluice/runtime.h"

#include <cstdint>
#include <string>

namespace sluice::rt::cuda {

// The subset of cuda.h we need, ABI-compatible with it.
using CUresult = int;
using CUdevice = int;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUdeviceptr = unsigned long long;
using CUjit_option = int;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

/// The driver's entry points. Names are the versioned symbols that cuda.h's
/// macros select (cuMemAlloc -> cuMemAlloc_v2, ...).
struct CudaDriverApi {
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDriverGetVersion)(int *) = nullptr;
  CUresult (*cuDeviceGetCount)(int *) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *, int) = nullptr;
  CUresult (*cuDeviceGetName)(char *, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice) = nullptr;
  CUresult (*cuCtxCreate)(CUcontext *, unsigned, CUdevice) = nullptr;
  CUresult (*cuCtxDestroy)(CUcontext) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned,
                                 CUjit_option *, void **) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule,
                                  const char *) = nullptr;
  CUresult (*cuModuleGetGlobal)(CUdeviceptr *, size_t *, CUmodule,
                                const char *) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t) = nullptr;
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char **) = nullptr;
  // Events: the device-side time of a launch (sluice_gpu_launch_timed).
  CUresult (*cuEventCreate)(CUevent *, unsigned) = nullptr;
  CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent) = nullptr;
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent) = nullptr;
  CUresult (*cuEventDestroy)(CUevent) = nullptr;
};

/// The loaded driver library and its entry points.
struct CudaDriver : CudaDriverApi {
  void *handle = nullptr;

  CudaDriver() = default;
  CudaDriver(const CudaDriver &) = delete;
  CudaDriver &operator=(const CudaDriver &) = delete;

  /// Opens `path` and resolves every entry point. On failure returns
  /// SLUICE_STATUS_UNSUPPORTED with the reason in `error` and leaves the
  /// driver closed.
  sluice_status_t load(const std::string &path, sluice_error_t *error);
  /// dlclose()s the library (entry points become null).
  void unload();
  ~CudaDriver() { unload(); }

  /// "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)"-style text
  /// for a result code.
  std::string describe(CUresult result) const;
};

/// The default driver library: $SLUICE_CUDA_DRIVER, else "libcuda.so.1".
std::string defaultDriverPath();

} // namespace sluice::rt::cuda

#endif // SLUICE_RUNTIME_SRC_GPU_CUDADRIVER_H
