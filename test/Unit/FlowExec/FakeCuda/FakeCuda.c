/*===- FakeCuda.c - A host-memory stand-in for libcuda.so.1 ---------------===*
 *
 * Test double of the CUDA driver API entry points that the flow executor's
 * CUDA backend loads (runtime/src/flow/CudaExecutor.cpp), so that the backend
 * runs in CI without a GPU: "device" memory is malloc'd host memory, copies
 * are memcpy, every async call completes at once and host callbacks run
 * inline. It checks what a real driver would reject (no current context,
 * NULL pointers, copies through freed memory are not detected) and counts
 * the calls. Built as libcuda.so.1 in its own directory; the test that uses
 * it runs with LD_LIBRARY_PATH pointing there. Not a CUDA implementation.
 *
 *===----------------------------------------------------------------------===*/
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUstream;
typedef unsigned long long CUdeviceptr;
typedef void (*CUhostFn)(void *);

enum { kGpus = 2, kInvalidValue = 1, kInvalidContext = 201 };
static char contexts[kGpus];
static void *current;
static unsigned long long peerCopies, asyncCopies, memsets, hostFns;

#define API __attribute__((visibility("default")))

API CUresult cuInit(unsigned flags) { return flags ? kInvalidValue : 0; }
API CUresult cuGetErrorString(CUresult r, const char **s) {
  *s = r == kInvalidContext ? "fake: invalid context" : "fake: error";
  return 0;
}
API CUresult cuDeviceGetCount(int *n) { *n = kGpus; return 0; }
API CUresult cuDeviceGet(CUdevice *d, int ordinal) {
  if (ordinal < 0 || ordinal >= kGpus)
    return kInvalidValue;
  *d = ordinal;
  return 0;
}
API CUresult cuDeviceCanAccessPeer(int *can, CUdevice a, CUdevice b) {
  *can = a != b;
  return 0;
}
API CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) {
  *c = &contexts[d];
  return 0;
}
API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { (void)d; return 0; }
API CUresult cuCtxSetCurrent(CUcontext c) { current = c; return 0; }
API CUresult cuCtxEnablePeerAccess(CUcontext c, unsigned f) {
  return current && c && !f ? 0 : kInvalidContext;
}
API CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
  if (!current)
    return kInvalidContext;
  void *m = malloc(n);
  if (!m)
    return 2;
  *p = (CUdeviceptr)(uintptr_t)m;
  return 0;
}
API CUresult cuMemFree_v2(CUdeviceptr p) { free((void *)(uintptr_t)p); return 0; }
API CUresult cuMemHostAlloc(void **p, size_t n, unsigned f) {
  (void)f;
  *p = malloc(n);
  return *p ? 0 : 2;
}
API CUresult cuMemFreeHost(void *p) { free(p); return 0; }
API CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n) {
  memcpy((void *)(uintptr_t)d, s, n);
  return 0;
}
API CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n) {
  memcpy(d, (const void *)(uintptr_t)s, n);
  return 0;
}
API CUresult cuMemcpyAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) {
  if (!current || !st || !d || !s)
    return kInvalidValue;
  memmove((void *)(uintptr_t)d, (const void *)(uintptr_t)s, n);
  ++asyncCopies;
  return 0;
}
API CUresult cuMemcpyPeerAsync(CUdeviceptr d, CUcontext dc, CUdeviceptr s,
                               CUcontext sc, size_t n, CUstream st) {
  if (!dc || !sc || !st || !d || !s)
    return kInvalidValue;
  memmove((void *)(uintptr_t)d, (const void *)(uintptr_t)s, n);
  ++peerCopies;
  return 0;
}
API CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n,
                             CUstream st) {
  if (!st)
    return kInvalidValue;
  memset((void *)(uintptr_t)d, v, n);
  ++memsets;
  return 0;
}
API CUresult cuStreamCreate(CUstream *s, unsigned f) {
  (void)f;
  if (!current)
    return kInvalidContext;
  *s = malloc(1);
  return 0;
}
API CUresult cuStreamDestroy_v2(CUstream s) { free(s); return 0; }
API CUresult cuStreamSynchronize(CUstream s) { return s ? 0 : kInvalidValue; }
API CUresult cuLaunchHostFunc(CUstream s, CUhostFn fn, void *data) {
  if (!s)
    return kInvalidValue;
  fn(data);
  ++hostFns;
  return 0;
}

/* For the test: the calls seen so far. */
API void fakecuda_counts(unsigned long long out[4]) {
  out[0] = peerCopies;
  out[1] = asyncCopies;
  out[2] = memsets;
  out[3] = hostFns;
}
