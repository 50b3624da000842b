/*===- sluice/gpu.h - libsluicert: loading and launching GPU code ----------===*
 *
 * A thin layer over the CUDA driver API for running PTX that `sluicec`
 * generates (`sluicec --emit=ptx`). libsluicert has no link-time dependency
 * on CUDA: the driver (libcuda.so.1) is opened with dlopen() when a device
 * is first opened, so the same library runs on machines without a GPU,
 * where every call here returns SLUICE_STATUS_UNSUPPORTED with a message
 * saying what is missing (no driver, no device, driver too old).
 *
 * Usage:
 *   sluice_gpu_device_t *gpu;
 *   if (sluice_gpu_open(NULL, &gpu, &err) != SLUICE_STATUS_OK) ...;
 *   sluice_gpu_module_t *mod;
 *   sluice_gpu_module_load_ptx(gpu, ptx_text, &mod, &err);
 *   uint64_t buf; sluice_gpu_alloc(gpu, bytes, &buf, &err);
 *   void *args[] = {&buf, &n};
 *   sluice_gpu_launch(mod, "kernel", grid, block, 0, args, &err);
 *   sluice_gpu_copy_from_device(gpu, host, buf, bytes, &err);
 *   sluice_gpu_free(gpu, buf); sluice_gpu_module_free(mod);
 *   sluice_gpu_close(gpu);
 *
 * Thread safety: one device handle belongs to one thread at a time (its
 * CUDA context is made current by each call on it).
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_GPU_H
#define SLUICE_GPU_H

#include "sluice/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An open device: a loaded driver and a context on one GPU. */
typedef struct sluice_gpu_device_t sluice_gpu_device_t;
/* A PTX module loaded (JIT-compiled by the driver) on a device. */
typedef struct sluice_gpu_module_t sluice_gpu_module_t;

typedef struct sluice_gpu_options_t {
  /* The driver library to dlopen(); NULL = "libcuda.so.1" (the environment
   * variable SLUICE_CUDA_DRIVER overrides the default). */
  const char *driver_path;
  /* Device ordinal (0 = first GPU). */
  int device;
} sluice_gpu_options_t;

/* Fills `options` with the defaults (default driver, device 0). */
SLUICE_API void sluice_gpu_options_init(sluice_gpu_options_t *options);

/* Non-zero when the default driver loads and reports at least one device.
 * Never fails; `reason` (may be NULL) receives why not when it returns 0. */
SLUICE_API int sluice_gpu_available(sluice_error_t *reason);

/* Loads the driver, initialises it and creates a context on the device.
 * `options` may be NULL (defaults). UNSUPPORTED when the driver library,
 * one of its entry points or the device is missing. */
SLUICE_API sluice_status_t sluice_gpu_open(const sluice_gpu_options_t *options,
                                           sluice_gpu_device_t **out,
                                           sluice_error_t *error);
/* Destroys the context and unloads the driver. NULL is allowed. Modules
 * and allocations must have been freed before. */
SLUICE_API void sluice_gpu_close(sluice_gpu_device_t *device);

/* The device's name ("NVIDIA H200") and compute capability (9.0 -> 90). */
SLUICE_API const char *sluice_gpu_device_name(const sluice_gpu_device_t *device);
SLUICE_API int sluice_gpu_compute_capability(const sluice_gpu_device_t *device);

/* JIT-compiles NUL-terminated PTX text for the device. On a PTX error the
 * message carries the driver's JIT log. */
SLUICE_API sluice_status_t sluice_gpu_module_load_ptx(sluice_gpu_device_t *device,
                                                      const char *ptx,
                                                      sluice_gpu_module_t **out,
                                                      sluice_error_t *error);
SLUICE_API void sluice_gpu_module_free(sluice_gpu_module_t *module);
/* Copies the first `bytes` of the module's global `name` to `dst`
 * (NOT_FOUND without such a global, INVALID_ARGUMENT when it is smaller);
 * `size` (may be NULL) receives its size. */
SLUICE_API sluice_status_t sluice_gpu_module_read_global(
    sluice_gpu_module_t *module, const char *name, void *dst, size_t bytes,
    size_t *size, sluice_error_t *error);

/* Device memory, addressed by its 64-bit device pointer. */
SLUICE_API sluice_status_t sluice_gpu_alloc(sluice_gpu_device_t *device,
                                            size_t bytes, uint64_t *out,
                                            sluice_error_t *error);
SLUICE_API void sluice_gpu_free(sluice_gpu_device_t *device, uint64_t ptr);
SLUICE_API sluice_status_t sluice_gpu_copy_to_device(sluice_gpu_device_t *device,
                                                     uint64_t dst,
                                                     const void *src,
                                                     size_t bytes,
                                                     sluice_error_t *error);
SLUICE_API sluice_status_t
sluice_gpu_copy_from_device(sluice_gpu_device_t *device, void *dst,
                            uint64_t src, size_t bytes, sluice_error_t *error);

/* Launches kernel `name` of `module` on grid[3] x block[3] threads with
 * `shared_bytes` of dynamic shared memory; `args` points at each kernel
 * argument (the CUDA convention), and waits for it to finish. */
SLUICE_API sluice_status_t sluice_gpu_launch(sluice_gpu_module_t *module,
                                             const char *name,
                                             const uint32_t grid[3],
                                             const uint32_t block[3],
                                             uint32_t shared_bytes, void **args,
                                             sluice_error_t *error);

/* sluice_gpu_launch, and *kernel_seconds (not NULL) receives the time
 * the kernel ran on the device: between two events recorded on the
 * stream around the launch (cuEventElapsedTime), so it excludes looking
 * the kernel up, the launch call's host overhead and the wait. */
SLUICE_API sluice_status_t sluice_gpu_launch_timed(
    sluice_gpu_module_t *module, const char *name, const uint32_t grid[3],
    const uint32_t block[3], uint32_t shared_bytes, void **args,
    double *kernel_seconds, sluice_error_t *error);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLUICE_GPU_H */
