/*===- FakeCuda.c - A host-memory stand-in for libcuda.so.1 (device tier) -===*
 *
 * Test double of the CUDA driver entry points the tier manager's CUDA
 * device tier loads (runtime/src/io/DeviceMemory.cpp), so that the path
 * runs without a GPU: "device" memory is malloc'd host memory, async copies
 * complete at once. Like a strict driver it rejects what a real one would
 * (no current context, copies outside a live allocation) and, stricter than
 * one, async copies whose host side is not pinned memory from
 * cuMemHostAlloc (the tier must stage through pinned buffers). It counts
 * live and peak allocated bytes and copied bytes (fakecuda_stats), fails
 * cuMemAlloc beyond fakecuda_set_limit() bytes with CUDA_ERROR_OUT_OF_MEMORY,
 * and fails the n-th copy from now with an illegal-address error
 * (fakecuda_fail_copy). Built as libcuda.so.1 in its own directory; the
 * test runs with LD_LIBRARY_PATH there. Not a CUDA implementation.
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

enum {
  kInvalidValue = 1,
  kOutOfMemory = 2,
  kInvalidContext = 201,
  kIllegalAddress = 700
};
enum { kMaxBlocks = 4096 };

struct Block {
  char *p;
  size_t n;
  int pinned;
};
static struct Block blocks[kMaxBlocks];
static char context;
static void *current;
static unsigned long long live, peak, h2d, d2h, limit = ~0ull;
static unsigned long long failCopyIn; /* 0 = none */

#define API __attribute__((visibility("default")))

static struct Block *find(const void *p, size_t n, int pinned) {
  for (int k = 0; k < kMaxBlocks; ++k) {
    struct Block *b = &blocks[k];
    if (b->p && b->pinned == pinned && (const char *)p >= b->p &&
        (const char *)p + n <= b->p + b->n)
      return b;
  }
  return NULL;
}
static CUresult add(void **out, size_t n, int pinned) {
  for (int k = 0; k < kMaxBlocks; ++k)
    if (!blocks[k].p) {
      blocks[k].p = malloc(n ? n : 1);
      if (!blocks[k].p)
        return kOutOfMemory;
      blocks[k].n = n;
      blocks[k].pinned = pinned;
      *out = blocks[k].p;
      return 0;
    }
  return kOutOfMemory;
}
static CUresult drop(void *p, int pinned) {
  for (int k = 0; k < kMaxBlocks; ++k)
    if (blocks[k].p == p && blocks[k].pinned == pinned) {
      if (!pinned)
        live -= blocks[k].n;
      free(p);
      blocks[k].p = NULL;
      return 0;
    }
  return kInvalidValue;
}
static int copyFails(void) {
  if (failCopyIn && --failCopyIn == 0)
    return 1;
  return 0;
}

API CUresult cuInit(unsigned flags) { return flags ? kInvalidValue : 0; }
API CUresult cuGetErrorString(CUresult r, const char **s) {
  *s = r == kOutOfMemory       ? "fake: out of memory"
       : r == kIllegalAddress  ? "fake: an illegal memory access was encountered"
       : r == kInvalidContext  ? "fake: invalid context"
                               : "fake: invalid value";
  return 0;
}
API CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
API CUresult cuDeviceGet(CUdevice *d, int ordinal) {
  if (ordinal != 0)
    return kInvalidValue;
  *d = 0;
  return 0;
}
API CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
  (void)d;
  strncpy(name, "FakeCuda", (size_t)len);
  return 0;
}
API CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) {
  (void)d;
  *c = &context;
  return 0;
}
API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { (void)d; return 0; }
API CUresult cuCtxSetCurrent(CUcontext c) { current = c; return 0; }
API CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
  if (!current)
    return kInvalidContext;
  if (live + n > limit)
    return kOutOfMemory;
  void *m;
  CUresult r = add(&m, n, 0);
  if (r)
    return r;
  live += n;
  if (live > peak)
    peak = live;
  *p = (CUdeviceptr)(uintptr_t)m;
  return 0;
}
/* The device's memory is the limit (fakecuda_set_limit; all of the address
 * space by default). */
API CUresult cuMemGetInfo_v2(size_t *free, size_t *total) {
  if (!current)
    return kInvalidContext;
  *total = (size_t)limit;
  *free = (size_t)(limit - live);
  return 0;
}
API CUresult cuMemFree_v2(CUdeviceptr p) {
  return drop((void *)(uintptr_t)p, 0);
}
API CUresult cuMemHostAlloc(void **p, size_t n, unsigned f) {
  (void)f;
  return current ? add(p, n, 1) : kInvalidContext;
}
API CUresult cuMemFreeHost(void *p) { return drop(p, 1); }
API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n,
                                  CUstream st) {
  if (!current || !st)
    return kInvalidContext;
  if (!find((void *)(uintptr_t)d, n, 0) || !find(s, n, 1))
    return kInvalidValue;
  if (copyFails())
    return kIllegalAddress;
  memcpy((void *)(uintptr_t)d, s, n);
  h2d += n;
  return 0;
}
API CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n,
                                  CUstream st) {
  if (!current || !st)
    return kInvalidContext;
  if (!find((void *)(uintptr_t)s, n, 0) || !find(d, n, 1))
    return kInvalidValue;
  if (copyFails())
    return kIllegalAddress;
  memcpy(d, (void *)(uintptr_t)s, n);
  d2h += n;
  return 0;
}
API CUresult cuStreamCreate(CUstream *s, unsigned f) {
  (void)f;
  if (!current)
    return kInvalidContext;
  *s = malloc(1);
  return *s ? 0 : kOutOfMemory;
}
API CUresult cuStreamDestroy_v2(CUstream s) { free(s); return 0; }
API CUresult cuStreamSynchronize(CUstream s) { return s ? 0 : kInvalidValue; }

/* Test hooks: live, peak, h2d, d2h bytes. */
API void fakecuda_stats(unsigned long long out[4]) {
  out[0] = live;
  out[1] = peak;
  out[2] = h2d;
  out[3] = d2h;
}
API void fakecuda_reset_peak(void) { peak = live; }
API void fakecuda_set_limit(unsigned long long bytes) { limit = bytes; }
API void fakecuda_fail_copy(unsigned long long nth) { failCopyIn = nth; }
