//===- DeviceMemory.cpp - GPU memory for the tier manager's device tier ---===//
#include "runtime/src/io/DeviceMemory.h"

#include "runtime/src/Error.h"
#include "runtime/src/gpu/CudaDriver.h"

#include <algorithm>
#include <cstring>
#include <dlfcn.h>

using namespace sluice::rt;

namespace {
using CUresult = int;
using CUdeviceptr = unsigned long long;
using CUstream = void *;
using CUcontext = void *;
constexpr CUresult kSuccess = 0;
constexpr CUresult kOutOfMemory = 2;
constexpr uint64_t kChunk = 1 << 20; // staging chunk
} // namespace

struct DeviceMemory::Driver {
  void *handle = nullptr;
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char **) = nullptr;
  CUresult (*cuDeviceGetCount)(int *) = nullptr;
  CUresult (*cuDeviceGet)(int *, int) = nullptr;
  CUresult (*cuDeviceGetName)(char *, int, int) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, int) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(int) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemHostAlloc)(void **, size_t, unsigned) = nullptr;
  CUresult (*cuMemFreeHost)(void *) = nullptr;
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t,
                                CUstream) = nullptr;
  CUresult (*cuMemcpyDtoHAsync)(void *, CUdeviceptr, size_t,
                                CUstream) = nullptr;
  CUresult (*cuStreamCreate)(CUstream *, unsigned) = nullptr;
  CUresult (*cuStreamDestroy)(CUstream) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream) = nullptr;
  CUresult (*cuMemGetInfo)(size_t *, size_t *) = nullptr; // optional
  ~Driver() {
    if (handle)
      dlclose(handle);
  }
};

DeviceMemory::~DeviceMemory() {
  if (!driver)
    return;
  if (context)
    driver->cuCtxSetCurrent(context);
  for (auto &a : sizes)
    driver->cuMemFree(a.first);
  for (void *s : streams)
    if (s) {
      driver->cuStreamSynchronize(s);
      driver->cuStreamDestroy(s);
    }
  for (void *b : staging)
    if (b)
      driver->cuMemFreeHost(b);
  if (retained)
    driver->cuDevicePrimaryCtxRelease(device);
}

sluice_status_t DeviceMemory::check(int result, const char *call,
                                    const std::string &what,
                                    sluice_error_t *error) {
  if (result == kSuccess)
    return SLUICE_STATUS_OK;
  const char *text = nullptr;
  std::string why = "CUDA error " + std::to_string(result);
  if (driver->cuGetErrorString &&
      driver->cuGetErrorString(result, &text) == kSuccess && text)
    why = std::string(text) + " (" + why + ")";
  return fail(error,
              result == kOutOfMemory ? SLUICE_STATUS_OUT_OF_MEMORY
                                     : SLUICE_STATUS_IO_ERROR,
              {}, std::string(call) + " failed for " + what + " on GPU " +
                      std::to_string(device) + ": " + why);
}

sluice_status_t DeviceMemory::open(int ordinal,
                                   std::unique_ptr<DeviceMemory> &out,
                                   sluice_error_t *error) {
  std::unique_ptr<DeviceMemory> m(new DeviceMemory);
  m->driver = std::make_unique<Driver>();
  Driver &d = *m->driver;
  const std::string path = cuda::defaultDriverPath();
  dlerror();
  d.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!d.handle) {
    const char *why = dlerror();
    return fail(error, SLUICE_STATUS_UNSUPPORTED, {path},
                "no CUDA driver for the device tier: cannot load " +
                    quote(path) + " (" + (why ? why : "unknown reason") + ")");
  }
  std::string missing;
  auto sym = [&](auto &fn, const char *name) {
    void *p = dlsym(d.handle, name);
    if (!p)
      missing += std::string(missing.empty() ? "" : ", ") + name;
    static_assert(sizeof(p) == sizeof(fn));
    std::memcpy(&fn, &p, sizeof(p));
  };
  sym(d.cuInit, "cuInit");
  sym(d.cuGetErrorString, "cuGetErrorString");
  sym(d.cuDeviceGetCount, "cuDeviceGetCount");
  sym(d.cuDeviceGet, "cuDeviceGet");
  sym(d.cuDeviceGetName, "cuDeviceGetName");
  sym(d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  sym(d.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  sym(d.cuCtxSetCurrent, "cuCtxSetCurrent");
  sym(d.cuMemAlloc, "cuMemAlloc_v2");
  sym(d.cuMemFree, "cuMemFree_v2");
  sym(d.cuMemHostAlloc, "cuMemHostAlloc");
  sym(d.cuMemFreeHost, "cuMemFreeHost");
  sym(d.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
  sym(d.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
  sym(d.cuStreamCreate, "cuStreamCreate");
  sym(d.cuStreamDestroy, "cuStreamDestroy_v2");
  sym(d.cuStreamSynchronize, "cuStreamSynchronize");
  // Optional: only memoryInfo() needs it.
  void *getInfo = dlsym(d.handle, "cuMemGetInfo_v2");
  std::memcpy(&d.cuMemGetInfo, &getInfo, sizeof(getInfo));
  if (!missing.empty())
    return fail(error, SLUICE_STATUS_UNSUPPORTED, {path},
                "the CUDA driver " + quote(path) + " lacks " + missing);
  m->device = ordinal;
  const std::string what = "the device tier";
  CUresult r = d.cuInit(0);
  if (r != kSuccess) {
    const char *text = nullptr;
    if (d.cuGetErrorString(r, &text) != kSuccess || !text)
      text = "unknown error";
    return fail(error, SLUICE_STATUS_UNSUPPORTED, {},
                "no GPU for the device tier: cuInit failed: " +
                    std::string(text) + " (CUDA error " + std::to_string(r) +
                    ")");
  }
  int count = 0;
  if (d.cuDeviceGetCount(&count) != kSuccess || ordinal < 0 ||
      ordinal >= count)
    return fail(error, SLUICE_STATUS_UNSUPPORTED, {},
                "no GPU " + std::to_string(ordinal) + " for the device tier (" +
                    std::to_string(count) + " visible)");
  int dev = 0;
  sluice_status_t s = m->check(d.cuDeviceGet(&dev, ordinal), "cuDeviceGet",
                               what, error);
  if (s == SLUICE_STATUS_OK) {
    char name[256] = {0};
    if (d.cuDeviceGetName(name, sizeof(name) - 1, dev) == kSuccess)
      m->deviceName = name;
    s = m->check(d.cuDevicePrimaryCtxRetain(&m->context, dev),
                 "cuDevicePrimaryCtxRetain", what, error);
  }
  if (s == SLUICE_STATUS_OK) {
    m->device = dev;
    m->retained = true;
    s = m->check(d.cuCtxSetCurrent(m->context), "cuCtxSetCurrent", what,
                 error);
  }
  for (int k = 0; k < 2 && s == SLUICE_STATUS_OK; ++k)
    s = m->check(d.cuStreamCreate(&m->streams[k], 1 /* non-blocking */),
                 "cuStreamCreate", what, error);
  for (int k = 0; k < 2 && s == SLUICE_STATUS_OK; ++k)
    s = m->check(d.cuMemHostAlloc(&m->staging[k], kChunk, 0),
                 "cuMemHostAlloc", what, error);
  if (s != SLUICE_STATUS_OK)
    return s;
  out = std::move(m);
  return SLUICE_STATUS_OK;
}

sluice_status_t DeviceMemory::allocate(uint64_t bytes, uint64_t &ptr,
                                       const std::string &what,
                                       sluice_error_t *error) {
  driver->cuCtxSetCurrent(context);
  CUdeviceptr p = 0;
  sluice_status_t s =
      check(driver->cuMemAlloc(&p, std::max<uint64_t>(bytes, 1)), "cuMemAlloc",
            what, error);
  if (s != SLUICE_STATUS_OK)
    return s;
  ptr = p;
  sizes[p] = bytes;
  live += bytes;
  high = std::max(high, live);
  return SLUICE_STATUS_OK;
}

bool DeviceMemory::memoryInfo(uint64_t &free, uint64_t &total) {
  if (!driver->cuMemGetInfo)
    return false;
  driver->cuCtxSetCurrent(context);
  size_t f = 0, t = 0;
  if (driver->cuMemGetInfo(&f, &t) != kSuccess)
    return false;
  free = f;
  total = t;
  return true;
}

void DeviceMemory::release(uint64_t ptr) {
  auto it = sizes.find(ptr);
  if (it == sizes.end())
    return;
  driver->cuCtxSetCurrent(context);
  driver->cuMemFree(ptr);
  live -= it->second;
  sizes.erase(it);
}

sluice_status_t DeviceMemory::upload(uint64_t dst, const void *src,
                                     uint64_t bytes, const std::string &what,
                                     sluice_error_t *error) {
  driver->cuCtxSetCurrent(context);
  CUstream stream = streams[0];
  const char *from = static_cast<const char *>(src);
  // Double-buffered: fill one staging chunk while the other is copied.
  for (uint64_t off = 0, k = 0; off < bytes; off += kChunk, ++k) {
    uint64_t n = std::min(kChunk, bytes - off);
    if (k >= 2) {
      sluice_status_t s = check(driver->cuStreamSynchronize(stream),
                                "cuStreamSynchronize", what, error);
      if (s != SLUICE_STATUS_OK)
        return s;
    }
    void *chunk = staging[k % 2];
    std::memcpy(chunk, from + off, n);
    sluice_status_t s = check(
        driver->cuMemcpyHtoDAsync(dst + off, chunk, n, stream),
        "cuMemcpyHtoDAsync", what, error);
    if (s != SLUICE_STATUS_OK)
      return s;
  }
  sluice_status_t s = check(driver->cuStreamSynchronize(stream),
                            "cuStreamSynchronize", what, error);
  if (s == SLUICE_STATUS_OK)
    h2d += bytes;
  return s;
}

sluice_status_t DeviceMemory::download(void *dst, uint64_t src, uint64_t bytes,
                                       const std::string &what,
                                       sluice_error_t *error) {
  driver->cuCtxSetCurrent(context);
  CUstream stream = streams[1];
  char *to = static_cast<char *>(dst);
  // The copy of chunk k+1 runs while chunk k leaves the staging buffer.
  auto issue = [&](uint64_t k) -> sluice_status_t {
    uint64_t off = k * kChunk;
    if (off >= bytes)
      return SLUICE_STATUS_OK;
    return check(driver->cuMemcpyDtoHAsync(staging[k % 2], src + off,
                                           std::min(kChunk, bytes - off),
                                           stream),
                 "cuMemcpyDtoHAsync", what, error);
  };
  sluice_status_t s = issue(0);
  for (uint64_t off = 0, k = 0; s == SLUICE_STATUS_OK && off < bytes;
       off += kChunk, ++k) {
    s = check(driver->cuStreamSynchronize(stream), "cuStreamSynchronize", what,
              error);
    if (s == SLUICE_STATUS_OK)
      s = issue(k + 1);
    if (s == SLUICE_STATUS_OK)
      std::memcpy(to + off, staging[k % 2], std::min(kChunk, bytes - off));
  }
  if (s == SLUICE_STATUS_OK)
    s = check(driver->cuStreamSynchronize(stream), "cuStreamSynchronize", what,
              error);
  if (s == SLUICE_STATUS_OK)
    d2h += bytes;
  return s;
}
