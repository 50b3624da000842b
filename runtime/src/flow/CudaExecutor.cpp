//===- CudaExecutor.cpp - Flow schedules through CUDA peer copies ---------===//
//
// The CUDA backend of sluice_flow_execute. The CUDA driver API is loaded at
// run time with dlopen("libcuda.so.1") (a private, minimal table of the
// entry points used here), so libsluicert links against no CUDA library and
// runs where there is none.
//
// Devices with SLUICE_FLOW_MEMORY_GPU get their region in the memory of GPU
// `gpu_ordinal` modulo the GPU count (several schedule devices may share one
// physical GPU); the others get pinned host memory. Each transfer has its
// own stream; the calling thread issues every chunk at its release time
// (scaled by the time scale) as one end-to-end copy: cuMemcpyPeerAsync
// between regions on two GPUs, cuMemcpyAsync (unified addressing) otherwise
// (host memory, or two regions on one GPU). The
// hardware picks the route, so the path's links are not simulated here;
// what is measured is whether the machine sustains the planned rates. A
// host callback after each copy records the delivery time. At the end the
// regions are copied back to host memory for the common checks.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/flow/FlowPlan.h"
#include "runtime/src/Error.h"

#include <dlfcn.h>

#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>

using namespace sluice::rt;
using namespace sluice::rt::flow;

namespace {

using CUresult = int;
using CUdevice = int;
using CUcontext = struct CUctx_st *;
using CUstream = struct CUstream_st *;
using CUdeviceptr = unsigned long long;
using CUhostFn = void (*)(void *);
constexpr CUresult kCudaSuccess = 0;
constexpr CUresult kPeerAccessAlreadyEnabled = 704;
constexpr unsigned kMemHostAllocPortable = 0x01;
constexpr unsigned kStreamNonBlocking = 0x1;

/// The driver entry points used here.
struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceCanAccessPeer)(int *, CUdevice, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxEnablePeerAccess)(CUcontext, unsigned);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemHostAlloc)(void **, size_t, unsigned);
  CUresult (*cuMemFreeHost)(void *);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemcpyPeerAsync)(CUdeviceptr, CUcontext, CUdeviceptr,
                                CUcontext, size_t, CUstream);
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuLaunchHostFunc)(CUstream, CUhostFn, void *);
  int gpus = 0;
  std::string unavailable; // empty when usable
};

/// Loads the driver once per process (the handle is never closed).
const Driver &driver() {
  static Driver d;
  static std::once_flag once;
  std::call_once(once, [] {
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char *e = dlerror();
      d.unavailable = std::string("cannot load libcuda.so.1: ") +
                      (e ? e : "unknown error");
      return;
    }
    bool ok = true;
    auto sym = [&](auto &fn, const char *name) {
      void *p = dlsym(h, name);
      if (!p && ok) {
        ok = false;
        d.unavailable = std::string("libcuda.so.1 lacks ") + name;
      }
      static_assert(sizeof(p) == sizeof(fn));
      std::memcpy(&fn, &p, sizeof(p));
    };
    sym(d.cuInit, "cuInit");
    sym(d.cuGetErrorString, "cuGetErrorString");
    sym(d.cuDeviceGetCount, "cuDeviceGetCount");
    sym(d.cuDeviceGet, "cuDeviceGet");
    sym(d.cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer");
    sym(d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    sym(d.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
    sym(d.cuCtxSetCurrent, "cuCtxSetCurrent");
    sym(d.cuCtxEnablePeerAccess, "cuCtxEnablePeerAccess");
    sym(d.cuMemAlloc, "cuMemAlloc_v2");
    sym(d.cuMemFree, "cuMemFree_v2");
    sym(d.cuMemHostAlloc, "cuMemHostAlloc");
    sym(d.cuMemFreeHost, "cuMemFreeHost");
    sym(d.cuMemcpyHtoD, "cuMemcpyHtoD_v2");
    sym(d.cuMemcpyDtoH, "cuMemcpyDtoH_v2");
    sym(d.cuMemcpyAsync, "cuMemcpyAsync");
    sym(d.cuMemcpyPeerAsync, "cuMemcpyPeerAsync");
    sym(d.cuMemsetD8Async, "cuMemsetD8Async");
    sym(d.cuStreamCreate, "cuStreamCreate");
    sym(d.cuStreamDestroy, "cuStreamDestroy_v2");
    sym(d.cuStreamSynchronize, "cuStreamSynchronize");
    sym(d.cuLaunchHostFunc, "cuLaunchHostFunc");
    if (!ok)
      return;
    CUresult r = d.cuInit(0);
    if (r != kCudaSuccess) {
      d.unavailable = "cuInit failed with CUDA error " + std::to_string(r);
      return;
    }
    int n = 0;
    if (d.cuDeviceGetCount(&n) != kCudaSuccess || n <= 0) {
      d.unavailable = "no CUDA device is visible";
      return;
    }
    d.gpus = n;
  });
  return d;
}

std::string cudaError(const Driver &d, CUresult r) {
  const char *s = nullptr;
  if (d.cuGetErrorString && d.cuGetErrorString(r, &s) == kCudaSuccess && s)
    return std::string(s) + " (" + std::to_string(r) + ")";
  return "CUDA error " + std::to_string(r);
}

/// Everything the run allocates, released in the destructor.
struct CudaRun {
  const Driver &d;
  std::vector<CUdevice> devices;        // per physical GPU used
  std::vector<CUcontext> contexts;      // parallel, null if not retained
  std::vector<CUdeviceptr> gpuRegion;   // per schedule device
  std::vector<void *> hostRegion;       // per schedule device
  std::vector<CUstream> streams;        // per transfer
  std::vector<int> streamGpu;           // physical GPU of each stream

  explicit CudaRun(const Driver &drv) : d(drv) {}
  ~CudaRun() {
    for (size_t i = 0; i < streams.size(); ++i)
      if (streams[i]) {
        d.cuCtxSetCurrent(contexts[streamGpu[i]]);
        d.cuStreamSynchronize(streams[i]);
        d.cuStreamDestroy(streams[i]);
      }
    for (size_t i = 0; i < gpuRegion.size(); ++i)
      if (gpuRegion[i])
        d.cuMemFree(gpuRegion[i]);
    for (void *p : hostRegion)
      if (p)
        d.cuMemFreeHost(p);
    for (size_t g = 0; g < contexts.size(); ++g)
      if (contexts[g])
        d.cuDevicePrimaryCtxRelease(devices[g]);
  }
};

/// What a host callback needs to record a delivery.
struct Delivery {
  RunState *state;
  std::chrono::steady_clock::time_point *start;
  uint64_t slot;
};

void recordDelivery(void *p) {
  Delivery *d = static_cast<Delivery *>(p);
  d->state->deliveries[d->slot].fetch_add(1);
  d->state->deliveredAt[d->slot] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                    *d->start)
          .count();
}

} // namespace

extern "C" int sluice_flow_cuda_available(char *reason, size_t capacity) {
  const Driver &d = driver();
  if (reason && capacity) {
    size_t n = std::min(d.unavailable.size(), capacity - 1);
    std::memcpy(reason, d.unavailable.data(), n);
    reason[n] = '\0';
  }
  return d.unavailable.empty() ? 1 : 0;
}

sluice_status_t flow::runCuda(const Plan &plan,
                              const sluice_flow_options_t &options,
                              const Regions &regions, RunState &state,
                              sluice_error_t *error) {
  const Driver &d = driver();
  if (!d.unavailable.empty())
    return fail(error, SLUICE_STATUS_UNSUPPORTED, {},
                "the CUDA backend is not available: " + d.unavailable);
  const sluice_flow_schedule_t &s = *plan.schedule;
  // Declared before `run`, whose destructor waits for the streams, so that
  // no callback outlives them.
  std::vector<Delivery> deliveries(plan.totalChunks);
  std::chrono::steady_clock::time_point start;
  CudaRun run(d);
  auto check = [&](CUresult r, const std::string &what) -> sluice_status_t {
    if (r == kCudaSuccess)
      return SLUICE_STATUS_OK;
    return fail(error, SLUICE_STATUS_IO_ERROR, {},
                what + ": " + cudaError(d, r));
  };
  run.devices.resize(d.gpus);
  run.contexts.assign(d.gpus, nullptr);
  auto context = [&](int g) -> sluice_status_t {
    if (run.contexts[g])
      return SLUICE_STATUS_OK;
    if (sluice_status_t st = check(d.cuDeviceGet(&run.devices[g], g),
                                   "cuDeviceGet(" + std::to_string(g) + ")"))
      return st;
    return check(d.cuDevicePrimaryCtxRetain(&run.contexts[g], run.devices[g]),
                 "cuDevicePrimaryCtxRetain(" + std::to_string(g) + ")");
  };
  auto gpuOf = [&](uint32_t dev) -> int {
    const sluice_flow_device_t &x = s.devices[dev];
    return x.memory == SLUICE_FLOW_MEMORY_GPU ? x.gpu_ordinal % d.gpus : -1;
  };
  if (sluice_status_t st = context(0))
    return st;

  // Regions, with their patterns.
  run.gpuRegion.assign(s.num_devices, 0);
  run.hostRegion.assign(s.num_devices, nullptr);
  for (uint32_t dev = 0; dev < s.num_devices; ++dev) {
    uint64_t n = s.devices[dev].memory_bytes;
    if (!n)
      continue;
    int g = gpuOf(dev);
    if (g >= 0) {
      if (sluice_status_t st = context(g))
        return st;
      d.cuCtxSetCurrent(run.contexts[g]);
      if (sluice_status_t st = check(d.cuMemAlloc(&run.gpuRegion[dev], n),
                                     "cuMemAlloc for " + deviceName(s, dev)))
        return st;
      if (sluice_status_t st =
              check(d.cuMemcpyHtoD(run.gpuRegion[dev], regions[dev], n),
                    "cuMemcpyHtoD for " + deviceName(s, dev)))
        return st;
    } else {
      d.cuCtxSetCurrent(run.contexts[0]);
      if (sluice_status_t st =
              check(d.cuMemHostAlloc(&run.hostRegion[dev], n,
                                     kMemHostAllocPortable),
                    "cuMemHostAlloc for " + deviceName(s, dev)))
        return st;
      std::memcpy(run.hostRegion[dev], regions[dev], n);
    }
  }
  auto address = [&](uint32_t dev, uint64_t offset) -> CUdeviceptr {
    return run.gpuRegion[dev]
               ? run.gpuRegion[dev] + offset
               : static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(
                     run.hostRegion[dev])) +
                     offset;
  };

  // Peer access between the GPUs that exchange data (best effort: copies
  // work without it, through host memory).
  for (uint32_t i = 0; i < s.num_transfers; ++i) {
    int a = gpuOf(s.transfers[i].source), b = gpuOf(s.transfers[i].destination);
    if (a < 0 || b < 0 || a == b)
      continue;
    int can = 0;
    if (d.cuDeviceCanAccessPeer(&can, run.devices[b], run.devices[a]) ==
            kCudaSuccess &&
        can) {
      d.cuCtxSetCurrent(run.contexts[b]);
      CUresult r = d.cuCtxEnablePeerAccess(run.contexts[a], 0);
      if (r != kCudaSuccess && r != kPeerAccessAlreadyEnabled)
        return check(r, "cuCtxEnablePeerAccess");
    }
  }

  // A stream per transfer, in the destination's GPU (else the source's).
  run.streams.assign(s.num_transfers, nullptr);
  run.streamGpu.assign(s.num_transfers, 0);
  for (uint32_t i = 0; i < s.num_transfers; ++i) {
    int g = gpuOf(s.transfers[i].destination);
    if (g < 0)
      g = gpuOf(s.transfers[i].source);
    if (g < 0)
      g = 0;
    run.streamGpu[i] = g;
    d.cuCtxSetCurrent(run.contexts[g]);
    if (sluice_status_t st = check(
            d.cuStreamCreate(&run.streams[i], kStreamNonBlocking),
            "cuStreamCreate"))
      return st;
  }

  start = std::chrono::steady_clock::now();
  for (const ChunkPlan &c : plan.chunks) {
    const sluice_flow_transfer_t &t = s.transfers[c.transfer];
    auto release = start + std::chrono::duration_cast<
                               std::chrono::steady_clock::duration>(
                               std::chrono::duration<double>(
                                   c.release * options.time_scale));
    std::this_thread::sleep_until(release);
    CUstream stream = run.streams[c.transfer];
    d.cuCtxSetCurrent(run.contexts[run.streamGpu[c.transfer]]);
    uint64_t slot = plan.chunkBase[c.transfer] + c.index;
    bool faulty = isFaulty(options, c.transfer, c.index);
    int copies = 1;
    uint64_t shift = 0, bytes = c.bytes;
    if (faulty && options.fault.kind == SLUICE_FLOW_FAULT_DROP)
      copies = 0;
    if (faulty && options.fault.kind == SLUICE_FLOW_FAULT_DUPLICATE)
      copies = 2;
    if (faulty && options.fault.kind == SLUICE_FLOW_FAULT_MISPLACE) {
      uint64_t at = t.destination_offset + c.offset;
      uint64_t size = s.devices[t.destination].memory_bytes;
      shift = 1;
      bytes = at + 1 < size ? std::min(c.bytes, size - at - 1) : 0;
    }
    CUdeviceptr src = address(t.source, t.source_offset + c.offset);
    CUdeviceptr dst = address(t.destination, t.destination_offset + c.offset + shift);
    int gs = gpuOf(t.source), gd = gpuOf(t.destination);
    for (int k = 0; k < copies && bytes; ++k) {
      // Between two GPUs a peer copy; within one GPU (schedule devices
      // mapped onto the same ordinal) and to or from host memory a
      // unified-address copy.
      CUresult r = gs >= 0 && gd >= 0 && gs != gd
                       ? d.cuMemcpyPeerAsync(dst, run.contexts[gd], src,
                                             run.contexts[gs], bytes, stream)
                       : d.cuMemcpyAsync(dst, src, bytes, stream);
      if (sluice_status_t st = check(r, "copy of chunk " +
                                            std::to_string(c.index) +
                                            " of transfer " +
                                            std::to_string(c.transfer)))
        return st;
      ++state.chunkHops;
    }
    if (faulty && options.fault.kind == SLUICE_FLOW_FAULT_CORRUPT) {
      // Overwrite the middle byte with a value it cannot have.
      uint8_t right;
      fillPattern(&right, options.seed, t.source,
                  t.source_offset + c.offset + c.bytes / 2, 1);
      if (sluice_status_t st = check(
              d.cuMemsetD8Async(dst + c.bytes / 2,
                                static_cast<unsigned char>(right ^ 0x5A), 1,
                                stream),
              "cuMemsetD8Async"))
        return st;
    }
    if (copies == 0)
      continue;
    deliveries[slot] = {&state, &start, slot};
    for (int k = 0; k < std::max(copies, 1); ++k)
      if (sluice_status_t st =
              check(d.cuLaunchHostFunc(stream, recordDelivery, &deliveries[slot]),
                    "cuLaunchHostFunc"))
        return st;
  }
  for (uint32_t i = 0; i < s.num_transfers; ++i) {
    d.cuCtxSetCurrent(run.contexts[run.streamGpu[i]]);
    if (sluice_status_t st =
            check(d.cuStreamSynchronize(run.streams[i]), "cuStreamSynchronize"))
      return st;
  }
  state.wallSeconds = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count();

  // Back to host memory for the checks.
  for (uint32_t dev = 0; dev < s.num_devices; ++dev) {
    uint64_t n = s.devices[dev].memory_bytes;
    if (!n)
      continue;
    if (run.gpuRegion[dev]) {
      d.cuCtxSetCurrent(run.contexts[gpuOf(dev)]);
      if (sluice_status_t st =
              check(d.cuMemcpyDtoH(regions[dev], run.gpuRegion[dev], n),
                    "cuMemcpyDtoH for " + deviceName(s, dev)))
        return st;
    } else {
      std::memcpy(regions[dev], run.hostRegion[dev], n);
    }
  }
  return SLUICE_STATUS_OK;
}
