//===- AlgoGpu.cpp - An algorithm context's passes as GPU kernels ---------===//
//
// sluice/algo_gpu.h over sluice/gpu.h (the dlopen'd CUDA driver). Attaching
// a GPU uploads the view (CSR, CSC, weights) and the original ids once and
// builds the kernels' sluice_algo_gpu_ctx_t; binding reads a kernel's
// `_info` global. A pass of a bound function then copies what the loop may
// read (every property, the list or bitmap of the frontier it reads, the
// environment with device pointers in its first slots), launches a thread
// per item, waits, and copies back the properties, the partials of a
// reduction and the vertices inserted into the loop's new frontier (as host
// inserts, so the host frontier's seal sorts them as on the CPU).
//
//===----------------------------------------------------------------------===//
#include "sluice/algo_gpu.h"
#include "sluice/gpu.h"

#include "runtime/src/Error.h"
#include "runtime/src/algo/AlgoInternal.h"

#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace sluice::rt;

namespace sluice::rt {

/// A device allocation that grows on demand.
struct DeviceBuffer {
  uint64_t ptr = 0;
  size_t bytes = 0;
};

struct AlgoKernel {
  std::string name;
  int64_t envSlots = 0;
  int64_t locals = 0;
  std::vector<int64_t> propBytes;
};

struct AlgoGpu {
  sluice_gpu_device_t *device = nullptr;
  sluice_gpu_module_t *module = nullptr;
  /// The view's arrays, the ids and the sluice_algo_gpu_ctx_t.
  DeviceBuffer outOffsets, outTargets, outWeights, inOffsets, inSources,
      inWeights, ids, gpuCtx;
  /// Per pass: properties and their table, the environment, the frontier
  /// read, the frontier built, partials.
  std::vector<DeviceBuffer> props;
  DeviceBuffer propTable, env, list, bitmap, outBits, outList, outCount,
      outFrontier, partials;
  /// Few kernels an algorithm: looked up in order of binding.
  std::vector<std::pair<sluice_algo_range_fn_t, AlgoKernel>> kernels;
  std::vector<uint64_t> zeros;
  uint64_t launches = 0;

  ~AlgoGpu() {
    for (DeviceBuffer *b :
         {&outOffsets, &outTargets, &outWeights, &inOffsets, &inSources,
          &inWeights, &ids, &gpuCtx, &propTable, &env, &list, &bitmap, &outBits,
          &outList, &outCount, &outFrontier, &partials})
      sluice_gpu_free(device, b->ptr);
    for (DeviceBuffer &b : props)
      sluice_gpu_free(device, b.ptr);
    sluice_gpu_module_free(module);
    sluice_gpu_close(device);
  }

  /// `b` with room for `bytes` (its contents are not kept).
  sluice_status_t reserve(DeviceBuffer &b, size_t bytes,
                          sluice_error_t *error) {
    if (b.ptr && b.bytes >= bytes)
      return SLUICE_STATUS_OK;
    sluice_gpu_free(device, b.ptr);
    b = {};
    if (sluice_status_t s = sluice_gpu_alloc(device, bytes, &b.ptr, error))
      return s;
    b.bytes = bytes;
    return SLUICE_STATUS_OK;
  }
  /// `b` holding `bytes` of `host`.
  sluice_status_t upload(DeviceBuffer &b, const void *host, size_t bytes,
                         sluice_error_t *error) {
    if (sluice_status_t s = reserve(b, bytes, error))
      return s;
    return sluice_gpu_copy_to_device(device, b.ptr, host, bytes, error);
  }

  sluice_status_t runPass(sluice_algo_ctx_t *ctx, const AlgoKernel &k,
                          uint64_t n, const uint64_t *slots,
                          sluice_error_t *error);
};

void AlgoGpuDeleter::operator()(AlgoGpu *gpu) const { delete gpu; }

sluice_status_t AlgoGpu::runPass(sluice_algo_ctx_t *ctx, const AlgoKernel &k,
                                 uint64_t n, const uint64_t *slots,
                                 sluice_error_t *error) {
  const uint64_t nv = ctx->view.num_vertices;
  const uint64_t words = (nv + 63) / 64;
  std::vector<uint64_t> dev(slots, slots + k.envSlots);
  // Properties: all of them, both ways (host code reads and writes them
  // between passes).
  void **hostProps = reinterpret_cast<void **>(slots[SLUICE_ALGO_ENV_PROPS]);
  props.resize(k.propBytes.size());
  std::vector<uint64_t> table(k.propBytes.size());
  for (size_t i = 0; i < k.propBytes.size(); ++i) {
    if (sluice_status_t s =
            upload(props[i], hostProps[i], nv * k.propBytes[i], error))
      return s;
    table[i] = props[i].ptr;
  }
  if (sluice_status_t s =
          upload(propTable, table.data(), table.size() * 8 + 8, error))
    return s;
  dev[SLUICE_ALGO_ENV_PROPS] = propTable.ptr;
  auto *out = reinterpret_cast<sluice_frontier_t *>(slots[SLUICE_ALGO_ENV_OUT]);
  if (out) {
    if (sluice_algo_frontier_size(out) != 0)
      return fail(error, SLUICE_STATUS_UNSUPPORTED, {},
                  "a GPU pass into a frontier that already has vertices");
    zeros.assign(words + 1, 0);
    if (sluice_status_t s = upload(outBits, zeros.data(), words * 8 + 8, error))
      return s;
    if (sluice_status_t s = reserve(outList, nv * 4 + 4, error))
      return s;
    if (sluice_status_t s = upload(outCount, zeros.data(), 8, error))
      return s;
    sluice_algo_gpu_frontier_t f{reinterpret_cast<uint64_t *>(outBits.ptr),
                                 reinterpret_cast<uint32_t *>(outList.ptr),
                                 reinterpret_cast<uint64_t *>(outCount.ptr)};
    if (sluice_status_t s = upload(outFrontier, &f, sizeof f, error))
      return s;
    dev[SLUICE_ALGO_ENV_OUT] = outFrontier.ptr;
  }
  if (slots[SLUICE_ALGO_ENV_LIST]) {
    if (sluice_status_t s = upload(
            list, reinterpret_cast<const void *>(slots[SLUICE_ALGO_ENV_LIST]),
            n * 4, error))
      return s;
    dev[SLUICE_ALGO_ENV_LIST] = list.ptr;
  }
  if (slots[SLUICE_ALGO_ENV_BITMAP]) {
    if (sluice_status_t s = upload(
            bitmap,
            reinterpret_cast<const void *>(slots[SLUICE_ALGO_ENV_BITMAP]),
            words * 8, error))
      return s;
    dev[SLUICE_ALGO_ENV_BITMAP] = bitmap.ptr;
  }
  const size_t partialBytes =
      static_cast<size_t>(k.locals) * slots[SLUICE_ALGO_ENV_BLOCKS] * 8;
  if (slots[SLUICE_ALGO_ENV_PARTIALS]) {
    if (sluice_status_t s = reserve(partials, partialBytes, error))
      return s;
    dev[SLUICE_ALGO_ENV_PARTIALS] = partials.ptr;
  }
  if (sluice_status_t s = upload(env, dev.data(), dev.size() * 8, error))
    return s;

  const uint64_t blocks =
      (n + SLUICE_ALGO_GPU_BLOCK - 1) / SLUICE_ALGO_GPU_BLOCK;
  if (blocks > 0x7fffffffu)
    return fail(error, SLUICE_STATUS_UNSUPPORTED, {},
                "a GPU pass of " + std::to_string(n) +
                    " items needs more than 2^31 - 1 blocks");
  const uint32_t grid[3] = {static_cast<uint32_t>(blocks), 1, 1};
  const uint32_t block[3] = {SLUICE_ALGO_GPU_BLOCK, 1, 1};
  uint64_t count = n;
  void *args[] = {&gpuCtx.ptr, &env.ptr, &count};
  if (sluice_status_t s = sluice_gpu_launch(module, k.name.c_str(), grid, block,
                                            0, args, error))
    return s;
  ++launches;

  for (size_t i = 0; i < k.propBytes.size(); ++i)
    if (sluice_status_t s = sluice_gpu_copy_from_device(
            device, hostProps[i], props[i].ptr, nv * k.propBytes[i], error))
      return s;
  if (slots[SLUICE_ALGO_ENV_PARTIALS])
    if (sluice_status_t s = sluice_gpu_copy_from_device(
            device, reinterpret_cast<void *>(slots[SLUICE_ALGO_ENV_PARTIALS]),
            partials.ptr, partialBytes, error))
      return s;
  if (out) {
    uint64_t inserted = 0;
    if (sluice_status_t s = sluice_gpu_copy_from_device(device, &inserted,
                                                        outCount.ptr, 8, error))
      return s;
    if (inserted > nv)
      return fail(error, SLUICE_STATUS_INTERNAL, {},
                  "the kernel inserted " + std::to_string(inserted) +
                      " vertices into a frontier of " + std::to_string(nv));
    std::vector<uint32_t> vertices(inserted);
    if (sluice_status_t s = sluice_gpu_copy_from_device(
            device, vertices.data(), outList.ptr, inserted * 4, error))
      return s;
    for (uint32_t v : vertices)
      sluice_algo_frontier_insert(out, v);
  }
  return SLUICE_STATUS_OK;
}

void algoGpuParallelFor(sluice_algo_ctx_t *ctx, uint64_t n,
                        sluice_algo_range_fn_t fn, void *env) {
  AlgoGpu &gpu = *ctx->gpu;
  const AlgoKernel *kernel = nullptr;
  for (const auto &[bound, k] : gpu.kernels)
    if (bound == fn)
      kernel = &k;
  if (!kernel) {
    sluice_algo_fault(ctx, SLUICE_ALGO_GPU_FAULT_SITE,
                      "GPU: a loop function has no kernel bound "
                      "(sluice_algo_gpu_bind)");
    return;
  }
  sluice_error_t error;
  sluice_error_clear(&error);
  if (gpu.runPass(ctx, *kernel, n, static_cast<const uint64_t *>(env),
                  &error) != SLUICE_STATUS_OK)
    sluice_algo_fault(
        ctx, SLUICE_ALGO_GPU_FAULT_SITE,
        ("GPU: kernel '" + kernel->name + "': " + error.message).c_str());
}

} // namespace sluice::rt

sluice_status_t sluice_algo_gpu_attach(sluice_algo_ctx_t *ctx, const char *ptx,
                                       sluice_error_t *error) {
  return guarded(error, {}, [&]() -> sluice_status_t {
    if (!ctx || !ptx)
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                  "sluice_algo_gpu_attach: NULL argument");
    if (ctx->gpu)
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                  "sluice_algo_gpu_attach: the context has a GPU already");
    std::unique_ptr<AlgoGpu, AlgoGpuDeleter> gpu(new AlgoGpu());
    if (sluice_status_t s = sluice_gpu_open(nullptr, &gpu->device, error))
      return s;
    if (sluice_status_t s =
            sluice_gpu_module_load_ptx(gpu->device, ptx, &gpu->module, error))
      return s;
    const sluice_algo_view_t &v = ctx->view;
    const uint64_t n = v.num_vertices, m = v.num_edges;
    std::vector<int64_t> ids(n);
    for (uint64_t i = 0; i < n; ++i)
      ids[i] = static_cast<int64_t>(
          sluice_graph_original_id(ctx->graph, static_cast<uint32_t>(i)));
    AlgoGpu &g = *gpu;
    for (auto [buffer, host, bytes] :
         {std::tuple<DeviceBuffer *, const void *, size_t>{
              &g.outOffsets, v.out_offsets, (n + 1) * 8},
          {&g.outTargets, v.out_targets, m * 4},
          {&g.inOffsets, v.in_offsets, (n + 1) * 8},
          {&g.inSources, v.in_sources, m * 4},
          {&g.ids, ids.data(), n * 8}})
      if (sluice_status_t s = g.upload(*buffer, host, bytes, error))
        return s;
    if (v.out_weights)
      if (sluice_status_t s =
              g.upload(g.outWeights, v.out_weights, m * 4, error))
        return s;
    if (v.in_weights)
      if (sluice_status_t s = g.upload(g.inWeights, v.in_weights, m * 4, error))
        return s;
    auto at = [](const DeviceBuffer &b, const void *host) {
      return host ? reinterpret_cast<const void *>(b.ptr) : nullptr;
    };
    sluice_algo_gpu_ctx_t dctx{};
    dctx.view.num_vertices = n;
    dctx.view.num_edges = m;
    dctx.view.out_offsets =
        static_cast<const uint64_t *>(at(g.outOffsets, v.out_offsets));
    dctx.view.out_targets =
        static_cast<const uint32_t *>(at(g.outTargets, v.out_targets));
    dctx.view.out_weights =
        static_cast<const float *>(at(g.outWeights, v.out_weights));
    dctx.view.in_offsets =
        static_cast<const uint64_t *>(at(g.inOffsets, v.in_offsets));
    dctx.view.in_sources =
        static_cast<const uint32_t *>(at(g.inSources, v.in_sources));
    dctx.view.in_weights =
        static_cast<const float *>(at(g.inWeights, v.in_weights));
    dctx.original_ids = reinterpret_cast<const int64_t *>(g.ids.ptr);
    if (sluice_status_t s = g.upload(g.gpuCtx, &dctx, sizeof dctx, error))
      return s;
    ctx->gpu = std::move(gpu);
    sluice_error_clear(error);
    return SLUICE_STATUS_OK;
  });
}

sluice_status_t sluice_algo_gpu_bind(sluice_algo_ctx_t *ctx,
                                     sluice_algo_range_fn_t fn,
                                     const char *kernel,
                                     sluice_error_t *error) {
  return guarded(error, {}, [&]() -> sluice_status_t {
    if (!ctx || !fn || !kernel || !*kernel)
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                  "sluice_algo_gpu_bind: NULL argument or empty kernel name");
    if (!ctx->gpu)
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                  "sluice_algo_gpu_bind: no GPU attached "
                  "(sluice_algo_gpu_attach)");
    AlgoGpu &g = *ctx->gpu;
    std::string infoName = std::string(kernel) + "_info";
    constexpr size_t kMax = 4 + SLUICE_ALGO_GPU_INFO_MAX_PROPS;
    int64_t head[4] = {};
    size_t size = 0;
    if (sluice_status_t s = sluice_gpu_module_read_global(
            g.module, infoName.c_str(), head, sizeof head, &size, error))
      return s;
    if (head[0] != SLUICE_ALGO_GPU_INFO_VERSION ||
        head[1] < SLUICE_ALGO_ENV_CAPTURED || head[2] < 0 || head[3] < 0 ||
        head[3] > SLUICE_ALGO_GPU_INFO_MAX_PROPS ||
        size != (4 + static_cast<size_t>(head[3])) * 8)
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                  "the global '" + infoName +
                      "' is not a kernel description of version " +
                      std::to_string(SLUICE_ALGO_GPU_INFO_VERSION) +
                      " (compiled by another sluicec?)");
    int64_t info[kMax] = {};
    if (sluice_status_t s = sluice_gpu_module_read_global(
            g.module, infoName.c_str(), info, size, nullptr, error))
      return s;
    AlgoKernel k;
    k.name = kernel;
    k.envSlots = info[1];
    k.locals = info[2];
    k.propBytes.assign(info + 4, info + 4 + info[3]);
    // The kernel itself: a launch over no items does nothing.
    const uint32_t one[3] = {1, 1, 1};
    uint64_t none = 0, null = 0;
    void *args[] = {&null, &null, &none};
    if (sluice_status_t s =
            sluice_gpu_launch(g.module, kernel, one, one, 0, args, error))
      return s;
    for (auto &[bound, existing] : g.kernels)
      if (bound == fn) {
        existing = std::move(k);
        sluice_error_clear(error);
        return SLUICE_STATUS_OK;
      }
    g.kernels.emplace_back(fn, std::move(k));
    sluice_error_clear(error);
    return SLUICE_STATUS_OK;
  });
}

uint64_t sluice_algo_gpu_launches(const sluice_algo_ctx_t *ctx) {
  return ctx && ctx->gpu ? ctx->gpu->launches : 0;
}
