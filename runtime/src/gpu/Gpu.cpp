//===- Gpu.cpp - sluice/gpu.h over the dlopen'ed CUDA driver --------------===//
//
// Devices, PTX modules, memory and launches. Every driver error becomes a
// status with the driver's own description; no call aborts.
//
//===----------------------------------------------------------------------===//
#include "sluice/gpu.h"

#include "runtime/src/Error.h"
#include "runtime/src/gpu/CudaDriver.h"

#include <memory>
#include <new>
#include <string>
#include <vector>

using namespace sluice::rt;
using namespace sluice::rt::cuda;

struct sluice_gpu_device_t {
  CudaDriver driver;
  CUdevice device = 0;
  CUcontext context = nullptr;
  std::string name;
  int computeCapability = 0;

  ~sluice_gpu_device_t() {
    if (context && driver.cuCtxDestroy)
      driver.cuCtxDestroy(context);
  }
};

struct sluice_gpu_module_t {
  sluice_gpu_device_t *device = nullptr;
  CUmodule module = nullptr;
};

namespace {

/// Fails with the driver's description of `result` when it is not success.
sluice_status_t check(const CudaDriver &driver, CUresult result,
                      sluice_error_t *error, const char *what,
                      sluice_status_t status = SLUICE_STATUS_INTERNAL) {
  if (result == CUDA_SUCCESS)
    return SLUICE_STATUS_OK;
  return fail(error, status, {},
              std::string(what) + ": " + driver.describe(result));
}

sluice_status_t makeCurrent(sluice_gpu_device_t *device,
                            sluice_error_t *error) {
  return check(device->driver, device->driver.cuCtxSetCurrent(device->context),
               error, "cannot make the CUDA context current");
}

} // namespace

extern "C" void sluice_gpu_options_init(sluice_gpu_options_t *options) {
  if (!options)
    return;
  options->driver_path = nullptr;
  options->device = 0;
}

extern "C" sluice_status_t sluice_gpu_open(const sluice_gpu_options_t *options,
                                           sluice_gpu_device_t **out,
                                           sluice_error_t *error) {
  return guarded(error, {}, [&]() -> sluice_status_t {
    if (!out)
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                  "sluice_gpu_open: `out` is NULL");
    sluice_gpu_options_t defaults;
    sluice_gpu_options_init(&defaults);
    if (!options)
      options = &defaults;
    if (options->device < 0)
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                  "negative GPU device ordinal " +
                      std::to_string(options->device));
    auto device = std::make_unique<sluice_gpu_device_t>();
    CudaDriver &driver = device->driver;
    std::string path =
        options->driver_path ? options->driver_path : defaultDriverPath();
    if (sluice_status_t s = driver.load(path, error))
      return s;
    CUresult r = driver.cuInit(0);
    if (r != CUDA_SUCCESS)
      return fail(error, SLUICE_STATUS_UNSUPPORTED, {path},
                  "the CUDA driver failed to initialise: " +
                      driver.describe(r));
    int count = 0;
    if (sluice_status_t s =
            check(driver, driver.cuDeviceGetCount(&count), error,
                  "cannot count CUDA devices", SLUICE_STATUS_UNSUPPORTED))
      return s;
    if (options->device >= count)
      return fail(error, SLUICE_STATUS_UNSUPPORTED, {},
                  "no CUDA device " + std::to_string(options->device) +
                      " (the driver reports " + std::to_string(count) +
                      " device" + (count == 1 ? "" : "s") + ")");
    if (sluice_status_t s =
            check(driver, driver.cuDeviceGet(&device->device, options->device),
                  error, "cannot open the CUDA device"))
      return s;
    char name[256] = {0};
    if (driver.cuDeviceGetName(name, sizeof(name) - 1, device->device) ==
        CUDA_SUCCESS)
      device->name = name;
    int major = 0, minor = 0;
    driver.cuDeviceGetAttribute(
        &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device->device);
    driver.cuDeviceGetAttribute(
        &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device->device);
    device->computeCapability = major * 10 + minor;
    if (sluice_status_t s = check(
            driver, driver.cuCtxCreate(&device->context, 0, device->device),
            error, "cannot create a CUDA context"))
      return s;
    *out = device.release();
    sluice_error_clear(error);
    return SLUICE_STATUS_OK;
  });
}

extern "C" void sluice_gpu_close(sluice_gpu_device_t *device) {
  delete device;
}

extern "C" int sluice_gpu_available(sluice_error_t *reason) {
  sluice_gpu_device_t *device = nullptr;
  if (sluice_gpu_open(nullptr, &device, reason) != SLUICE_STATUS_OK)
    return 0;
  sluice_gpu_close(device);
  return 1;
}

extern "C" const char *
sluice_gpu_device_name(const sluice_gpu_device_t *device) {
  return device ? device->name.c_str() : "";
}

extern "C" int
sluice_gpu_compute_capability(const sluice_gpu_device_t *device) {
  return device ? device->computeCapability : 0;
}

extern "C" sluice_status_t
sluice_gpu_module_load_ptx(sluice_gpu_device_t *device, const char *ptx,
                           sluice_gpu_module_t **out, sluice_error_t *error) {
  return guarded(error, {}, [&]() -> sluice_status_t {
    if (!device || !ptx || !out)
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                  "sluice_gpu_module_load_ptx: NULL argument");
    if (sluice_status_t s = makeCurrent(device, error))
      return s;
    std::vector<char> log(8192, '\0');
    CUjit_option keys[] = {CU_JIT_ERROR_LOG_BUFFER,
                           CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log.data(), reinterpret_cast<void *>(log.size() - 1)};
    auto module = std::make_unique<sluice_gpu_module_t>();
    module->device = device;
    CUresult r = device->driver.cuModuleLoadDataEx(&module->module, ptx, 2,
                                                   keys, values);
    if (r != CUDA_SUCCESS)
      return fail(error, SLUICE_STATUS_PARSE_ERROR, {},
                  "the CUDA driver rejected the PTX: " +
                      device->driver.describe(r) +
                      (log[0] ? std::string(": ") + log.data() : ""));
    *out = module.release();
    sluice_error_clear(error);
    return SLUICE_STATUS_OK;
  });
}

extern "C" void sluice_gpu_module_free(sluice_gpu_module_t *module) {
  if (!module)
    return;
  if (module->module && makeCurrent(module->device, nullptr) ==
                            SLUICE_STATUS_OK)
    module->device->driver.cuModuleUnload(module->module);
  delete module;
}

extern "C" sluice_status_t
sluice_gpu_module_read_global(sluice_gpu_module_t *module, const char *name,
                              void *dst, size_t bytes, size_t *size,
                              sluice_error_t *error) {
  if (!module || !name || (!dst && bytes))
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_gpu_module_read_global: NULL argument");
  sluice_gpu_device_t *device = module->device;
  const CudaDriver &driver = device->driver;
  if (sluice_status_t s = makeCurrent(device, error))
    return s;
  CUdeviceptr ptr = 0;
  size_t have = 0;
  CUresult r = driver.cuModuleGetGlobal(&ptr, &have, module->module, name);
  if (r != CUDA_SUCCESS)
    return fail(error, SLUICE_STATUS_NOT_FOUND, {},
                "no global " + quote(name) +
                    " in the module: " + driver.describe(r));
  if (size)
    *size = have;
  if (bytes > have)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "the global " + quote(name) + " has " + std::to_string(have) +
                    " bytes, " + std::to_string(bytes) + " were asked for");
  return sluice_gpu_copy_from_device(device, dst, ptr, bytes, error);
}

extern "C" sluice_status_t sluice_gpu_alloc(sluice_gpu_device_t *device,
                                            size_t bytes, uint64_t *out,
                                            sluice_error_t *error) {
  if (!device || !out)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_gpu_alloc: NULL argument");
  if (sluice_status_t s = makeCurrent(device, error))
    return s;
  CUdeviceptr ptr = 0;
  if (sluice_status_t s =
          check(device->driver, device->driver.cuMemAlloc(&ptr, bytes ? bytes : 1),
                error, "cannot allocate device memory",
                SLUICE_STATUS_OUT_OF_MEMORY))
    return s;
  *out = ptr;
  sluice_error_clear(error);
  return SLUICE_STATUS_OK;
}

extern "C" void sluice_gpu_free(sluice_gpu_device_t *device, uint64_t ptr) {
  if (!device || !ptr || makeCurrent(device, nullptr) != SLUICE_STATUS_OK)
    return;
  device->driver.cuMemFree(ptr);
}

extern "C" sluice_status_t
sluice_gpu_copy_to_device(sluice_gpu_device_t *device, uint64_t dst,
                          const void *src, size_t bytes,
                          sluice_error_t *error) {
  if (!device || (!src && bytes))
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_gpu_copy_to_device: NULL argument");
  if (sluice_status_t s = makeCurrent(device, error))
    return s;
  if (bytes)
    if (sluice_status_t s =
            check(device->driver, device->driver.cuMemcpyHtoD(dst, src, bytes),
                  error, "cannot copy to the device"))
      return s;
  sluice_error_clear(error);
  return SLUICE_STATUS_OK;
}

extern "C" sluice_status_t
sluice_gpu_copy_from_device(sluice_gpu_device_t *device, void *dst,
                            uint64_t src, size_t bytes, sluice_error_t *error) {
  if (!device || (!dst && bytes))
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_gpu_copy_from_device: NULL argument");
  if (sluice_status_t s = makeCurrent(device, error))
    return s;
  if (bytes)
    if (sluice_status_t s =
            check(device->driver, device->driver.cuMemcpyDtoH(dst, src, bytes),
                  error, "cannot copy from the device"))
      return s;
  sluice_error_clear(error);
  return SLUICE_STATUS_OK;
}

namespace {

/// Launches `name` and waits for it; with `kernel_seconds`, between two
/// events around the launch (the function is looked up first, so that its
/// loading is not timed).
sluice_status_t launch(sluice_gpu_module_t *module, const char *name,
                       const uint32_t grid[3], const uint32_t block[3],
                       uint32_t shared_bytes, void **args,
                       double *kernel_seconds, sluice_error_t *error) {
  sluice_gpu_device_t *device = module->device;
  const CudaDriver &driver = device->driver;
  if (sluice_status_t s = makeCurrent(device, error))
    return s;
  CUfunction function = nullptr;
  CUresult r = driver.cuModuleGetFunction(&function, module->module, name);
  if (r != CUDA_SUCCESS)
    return fail(error, SLUICE_STATUS_NOT_FOUND, {},
                "no kernel " + quote(name) +
                    " in the module: " + driver.describe(r));
  CUevent start = nullptr, end = nullptr;
  struct Events {
    const CudaDriver &driver;
    CUevent &start, &end;
    ~Events() {
      if (start)
        driver.cuEventDestroy(start);
      if (end)
        driver.cuEventDestroy(end);
    }
  } events{driver, start, end};
  if (kernel_seconds) {
    if (sluice_status_t s = check(driver, driver.cuEventCreate(&start, 0),
                                  error, "cannot create an event"))
      return s;
    if (sluice_status_t s = check(driver, driver.cuEventCreate(&end, 0), error,
                                  "cannot create an event"))
      return s;
    if (sluice_status_t s = check(driver, driver.cuEventRecord(start, nullptr),
                                  error, "cannot record an event"))
      return s;
  }
  if (sluice_status_t s = check(
          driver,
          driver.cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0],
                                block[1], block[2], shared_bytes, nullptr, args,
                                nullptr),
          error, "cannot launch the kernel", SLUICE_STATUS_INVALID_ARGUMENT))
    return s;
  if (kernel_seconds) {
    if (sluice_status_t s = check(driver, driver.cuEventRecord(end, nullptr),
                                  error, "cannot record an event"))
      return s;
    if (sluice_status_t s = check(driver, driver.cuEventSynchronize(end), error,
                                  "the kernel failed"))
      return s;
  }
  if (sluice_status_t s =
          check(driver, driver.cuCtxSynchronize(), error, "the kernel failed"))
    return s;
  if (kernel_seconds) {
    float ms = 0;
    if (sluice_status_t s =
            check(driver, driver.cuEventElapsedTime(&ms, start, end), error,
                  "cannot read the kernel's time"))
      return s;
    *kernel_seconds = double(ms) / 1000.0;
  }
  sluice_error_clear(error);
  return SLUICE_STATUS_OK;
}

} // namespace

extern "C" sluice_status_t
sluice_gpu_launch_timed(sluice_gpu_module_t *module, const char *name,
                        const uint32_t grid[3], const uint32_t block[3],
                        uint32_t shared_bytes, void **args,
                        double *kernel_seconds, sluice_error_t *error) {
  if (!module || !name || !grid || !block || !kernel_seconds)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_gpu_launch_timed: NULL argument");
  *kernel_seconds = 0;
  return launch(module, name, grid, block, shared_bytes, args, kernel_seconds,
                error);
}

extern "C" sluice_status_t sluice_gpu_launch(sluice_gpu_module_t *module,
                                             const char *name,
                                             const uint32_t grid[3],
                                             const uint32_t block[3],
                                             uint32_t shared_bytes, void **args,
                                             sluice_error_t *error) {
  if (!module || !name || !grid || !block)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_gpu_launch: NULL argument");
  return launch(module, name, grid, block, shared_bytes, args, nullptr, error);
}
