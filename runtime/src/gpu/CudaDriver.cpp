//===- CudaDriver.cpp - The CUDA driver API, loaded with dlopen -----------===//
//
// Resolves the driver entry points listed in CudaDriver.h. A missing
// library or symbol is "unsupported" (the machine has no usable driver),
// never a crash.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/gpu/CudaDriver.h"

#include "runtime/src/Error.h"

#include <cstdlib>
#include <dlfcn.h>

using namespace sluice::rt;
using namespace sluice::rt::cuda;

std::string sluice::rt::cuda::defaultDriverPath() {
  if (const char *env = std::getenv("SLUICE_CUDA_DRIVER"); env && *env)
    return env;
  return "libcuda.so.1";
}

namespace {
template <typename Fn>
bool resolve(void *handle, const char *symbol, Fn &fn, std::string &missing) {
  void *address = dlsym(handle, symbol);
  if (!address) {
    if (!missing.empty())
      missing += ", ";
    missing += symbol;
    return false;
  }
  fn = reinterpret_cast<Fn>(address);
  return true;
}
} // namespace

sluice_status_t CudaDriver::load(const std::string &path,
                                 sluice_error_t *error) {
  unload();
  dlerror();
  handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    return fail(error, SLUICE_STATUS_UNSUPPORTED, {path},
                std::string("no CUDA driver: cannot load ") + quote(path) +
                    " (" + (why ? why : "unknown reason") +
                    "); GPU code needs an NVIDIA driver");
  }
  std::string missing;
  resolve(handle, "cuInit", cuInit, missing);
  resolve(handle, "cuDriverGetVersion", cuDriverGetVersion, missing);
  resolve(handle, "cuDeviceGetCount", cuDeviceGetCount, missing);
  resolve(handle, "cuDeviceGet", cuDeviceGet, missing);
  resolve(handle, "cuDeviceGetName", cuDeviceGetName, missing);
  resolve(handle, "cuDeviceGetAttribute", cuDeviceGetAttribute, missing);
  resolve(handle, "cuCtxCreate_v2", cuCtxCreate, missing);
  resolve(handle, "cuCtxDestroy_v2", cuCtxDestroy, missing);
  resolve(handle, "cuCtxSetCurrent", cuCtxSetCurrent, missing);
  resolve(handle, "cuCtxSynchronize", cuCtxSynchronize, missing);
  resolve(handle, "cuModuleLoadDataEx", cuModuleLoadDataEx, missing);
  resolve(handle, "cuModuleUnload", cuModuleUnload, missing);
  resolve(handle, "cuModuleGetFunction", cuModuleGetFunction, missing);
  resolve(handle, "cuModuleGetGlobal_v2", cuModuleGetGlobal, missing);
  resolve(handle, "cuMemAlloc_v2", cuMemAlloc, missing);
  resolve(handle, "cuMemFree_v2", cuMemFree, missing);
  resolve(handle, "cuMemcpyHtoD_v2", cuMemcpyHtoD, missing);
  resolve(handle, "cuMemcpyDtoH_v2", cuMemcpyDtoH, missing);
  resolve(handle, "cuLaunchKernel", cuLaunchKernel, missing);
  resolve(handle, "cuGetErrorString", cuGetErrorString, missing);
  resolve(handle, "cuEventCreate", cuEventCreate, missing);
  resolve(handle, "cuEventRecord", cuEventRecord, missing);
  resolve(handle, "cuEventSynchronize", cuEventSynchronize, missing);
  // The first version (every driver has it; cuda.h 12.8 maps to _v2).
  resolve(handle, "cuEventElapsedTime", cuEventElapsedTime, missing);
  resolve(handle, "cuEventDestroy_v2", cuEventDestroy, missing);
  if (!missing.empty()) {
    unload();
    return fail(error, SLUICE_STATUS_UNSUPPORTED, {path},
                "the CUDA driver " + quote(path) +
                    " lacks entry points: " + missing +
                    " (driver too old or not a CUDA driver)");
  }
  return SLUICE_STATUS_OK;
}

void CudaDriver::unload() {
  if (handle)
    dlclose(handle);
  handle = nullptr;
  static_cast<CudaDriverApi &>(*this) = CudaDriverApi();
}

std::string CudaDriver::describe(CUresult result) const {
  const char *text = nullptr;
  if (cuGetErrorString && cuGetErrorString(result, &text) == CUDA_SUCCESS &&
      text)
    return std::string(text) + " (CUDA error " + std::to_string(result) + ")";
  return "CUDA error " + std::to_string(result);
}
