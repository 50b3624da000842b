//===- GnnGpu.cpp - sluice/gnn_gpu.h: GNN aggregation on a GPU ------------===//
//
// The host side of the kernels gnn-to-gpu builds: the block checked, its
// arrays uploaded (and for the backward pass its transpose, built here in
// the order of the CPU's scatter), one sluice_gnn_gpu_*_args_t in device
// memory, one launch of a thread per output value (blocks of
// SLUICE_GNN_GPU_BLOCK threads), the output copied back. Device buffers
// live for one call.
//
//===----------------------------------------------------------------------===//
#include "sluice/gnn_gpu.h"

#include "sluice/gpu.h"

#include "runtime/src/Error.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace sluice::rt;

struct sluice_gnn_gpu_t {
  sluice_gpu_device_t *device = nullptr;
  sluice_gpu_module_t *module = nullptr;
  sluice_gnn_kind_t kind = SLUICE_GNN_SAGE;
  std::string forward, backward;
  sluice_gnn_gpu_stats_t stats{};

  ~sluice_gnn_gpu_t() {
    sluice_gpu_module_free(module);
    sluice_gpu_close(device);
  }
};

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

sluice_status_t invalid(sluice_error_t *error, const char *function,
                        const std::string &message) {
  return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
              std::string(function) + ": " + message);
}

/// The block's arrays are there and consistent (`function` names the
/// caller in the message).
sluice_status_t checkBlock(const sluice_gnn_block_t *b, sluice_gnn_kind_t kind,
                           const char *function, sluice_error_t *error) {
  if (!b)
    return invalid(error, function, "the block is NULL");
  if (b->num_dst > b->num_src)
    return invalid(error, function,
                   "the block has " + std::to_string(b->num_dst) +
                       " dst rows but " + std::to_string(b->num_src) +
                       " src rows (dst rows are the first src rows)");
  if (!b->offsets)
    return invalid(error, function, "the block's offsets are NULL");
  if (b->offsets[0] != 0)
    return invalid(error, function,
                   "the block's offsets start at " +
                       std::to_string(b->offsets[0]) + ", not 0");
  for (uint32_t d = 0; d < b->num_dst; ++d)
    if (b->offsets[d + 1] < b->offsets[d])
      return invalid(error, function,
                     "the block's offsets decrease at dst " +
                         std::to_string(d));
  const uint32_t edges = b->offsets[b->num_dst];
  if (edges > 0 && (!b->nbr || !b->coef))
    return invalid(error, function, "the block's nbr or coef is NULL");
  if (kind == SLUICE_GNN_GCN && b->num_dst > 0 && !b->self_coef)
    return invalid(error, function, "a gcn block needs self_coef");
  for (uint32_t e = 0; e < edges; ++e)
    if (b->nbr[e] >= b->num_src)
      return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                  std::string(function) + ": edge " + std::to_string(e) +
                      " has src row " + std::to_string(b->nbr[e]) +
                      ", the block has " + std::to_string(b->num_src));
  return SLUICE_STATUS_OK;
}

bool knownKind(sluice_gnn_kind_t kind) {
  int64_t k = enumValue(kind);
  return k == SLUICE_GNN_SAGE || k == SLUICE_GNN_GCN;
}

/// Device buffers of one call, freed at its end.
class Buffers {
public:
  explicit Buffers(sluice_gnn_gpu_t *gpu) : gpu(gpu) {}
  ~Buffers() {
    for (uint64_t p : buffers)
      sluice_gpu_free(gpu->device, p);
  }
  /// Allocates `bytes` (at least 1) and fills them from `host` when given.
  sluice_status_t upload(const void *host, size_t bytes, uint64_t *out,
                         sluice_error_t *error) {
    sluice_status_t s =
        sluice_gpu_alloc(gpu->device, std::max<size_t>(bytes, 1), out, error);
    if (s != SLUICE_STATUS_OK)
      return s;
    buffers.push_back(*out);
    if (!host || !bytes)
      return SLUICE_STATUS_OK;
    gpu->stats.bytes_to_device += bytes;
    return sluice_gpu_copy_to_device(gpu->device, *out, host, bytes, error);
  }
  /// One launch of `threads` threads of `kernel` on `args`.
  sluice_status_t launch(const std::string &kernel, uint64_t args,
                         uint64_t threads, sluice_error_t *error) {
    const uint64_t blocks =
        (threads + SLUICE_GNN_GPU_BLOCK - 1) / SLUICE_GNN_GPU_BLOCK;
    if (blocks > INT32_MAX)
      return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                  kernel + ": " + std::to_string(threads) +
                      " threads need more than 2^31 - 1 blocks");
    uint32_t grid[3] = {static_cast<uint32_t>(blocks), 1, 1};
    uint32_t block[3] = {SLUICE_GNN_GPU_BLOCK, 1, 1};
    void *kernelArgs[] = {&args};
    Clock::time_point start = Clock::now();
    sluice_status_t s = sluice_gpu_launch(gpu->module, kernel.c_str(), grid,
                                          block, 0, kernelArgs, error);
    gpu->stats.kernel_seconds += since(start);
    ++gpu->stats.launches;
    return s;
  }
  sluice_status_t download(void *host, uint64_t src, size_t bytes,
                           sluice_error_t *error) {
    Clock::time_point start = Clock::now();
    sluice_status_t s =
        sluice_gpu_copy_from_device(gpu->device, host, src, bytes, error);
    gpu->stats.download_seconds += since(start);
    gpu->stats.bytes_from_device += bytes;
    return s;
  }

private:
  sluice_gnn_gpu_t *gpu;
  std::vector<uint64_t> buffers;
};

struct Upload {
  const void *host;
  size_t bytes;
  uint64_t *field;
};

sluice_status_t uploadAll(sluice_gnn_gpu_t *gpu, Buffers &buffers,
                          std::initializer_list<Upload> uploads,
                          sluice_error_t *error) {
  Clock::time_point start = Clock::now();
  for (const Upload &u : uploads)
    if (sluice_status_t s = buffers.upload(u.host, u.bytes, u.field, error))
      return s;
  gpu->stats.upload_seconds += since(start);
  return SLUICE_STATUS_OK;
}

} // namespace

extern "C" {

SLUICE_API sluice_status_t sluice_gnn_block_transpose(
    const sluice_gnn_block_t *block, sluice_gnn_kind_t kind, uint32_t *offsets,
    uint32_t *slot, float *coef, sluice_error_t *error) {
  constexpr const char *fn = "sluice_gnn_block_transpose";
  if (!knownKind(kind))
    return invalid(error, fn,
                   "kind " + std::to_string(enumValue(kind)) +
                       " has no GPU aggregation (sage or gcn)");
  if (sluice_status_t s = checkBlock(block, kind, fn, error))
    return s;
  const sluice_gnn_block_t &b = *block;
  const uint64_t terms = uint64_t(b.num_dst) + b.offsets[b.num_dst];
  if (!offsets || (terms > 0 && (!slot || !coef)))
    return invalid(error, fn, "an output array is NULL");
  if (terms > UINT32_MAX)
    return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                std::string(fn) + ": " + std::to_string(terms) +
                    " terms (at most " + std::to_string(UINT32_MAX) + ")");
  const bool sage = kind == SLUICE_GNN_SAGE;
  // Counting sort by src, scanning the terms in the CPU scatter's order
  // (dst ascending; its self term, then its edges): stable, so each src's
  // terms keep that order.
  std::fill(offsets, offsets + b.num_src + 1, 0u);
  for (uint32_t d = 0; d < b.num_dst; ++d) {
    ++offsets[d + 1];
    for (uint32_t e = b.offsets[d]; e < b.offsets[d + 1]; ++e)
      ++offsets[b.nbr[e] + 1];
  }
  for (uint32_t u = 0; u < b.num_src; ++u)
    offsets[u + 1] += offsets[u];
  std::vector<uint32_t> cursor(offsets, offsets + b.num_src);
  for (uint32_t d = 0; d < b.num_dst; ++d) {
    uint32_t k = cursor[d]++;
    slot[k] = 2 * d;
    coef[k] = sage ? 1.0f : b.self_coef[d];
    for (uint32_t e = b.offsets[d]; e < b.offsets[d + 1]; ++e) {
      k = cursor[b.nbr[e]]++;
      slot[k] = 2 * d + (sage ? 1 : 0);
      coef[k] = b.coef[e];
    }
  }
  return SLUICE_STATUS_OK;
}

SLUICE_API sluice_status_t sluice_gnn_gpu_open(const char *ptx, const char *job,
                                               sluice_gnn_kind_t kind,
                                               sluice_gnn_gpu_t **out,
                                               sluice_error_t *error) {
  constexpr const char *fn = "sluice_gnn_gpu_open";
  if (!out)
    return invalid(error, fn, "out is NULL");
  *out = nullptr;
  if (!ptx || !job || !*job)
    return invalid(error, fn, "the PTX or the job name is NULL or empty");
  if (!knownKind(kind))
    return invalid(error, fn,
                   "kind " + std::to_string(enumValue(kind)) +
                       " has no GPU aggregation kernels (sage and gcn do)");
  auto gpu = std::make_unique<sluice_gnn_gpu_t>();
  gpu->kind = kind;
  const std::string prefix = std::string("sluice_gnn_") + job + "_" +
                             (kind == SLUICE_GNN_SAGE ? "sage" : "gcn") + "_";
  gpu->forward = prefix + "forward";
  gpu->backward = prefix + "backward";
  // The entries must be there (checked in the text, before the device):
  // their names carry the kind, so a kernel never runs as the other kind.
  for (const std::string &name : {gpu->forward, gpu->backward})
    if (!std::strstr(ptx, (".entry " + name + "(").c_str()))
      return fail(error, SLUICE_STATUS_NOT_FOUND, {},
                  std::string(fn) + ": the PTX has no kernel '" + name + "'");
  if (sluice_status_t s = sluice_gpu_open(nullptr, &gpu->device, error))
    return s;
  if (sluice_status_t s =
          sluice_gpu_module_load_ptx(gpu->device, ptx, &gpu->module, error))
    return s;
  *out = gpu.release();
  return SLUICE_STATUS_OK;
}

SLUICE_API void sluice_gnn_gpu_close(sluice_gnn_gpu_t *gpu) { delete gpu; }

SLUICE_API const char *sluice_gnn_gpu_device_name(const sluice_gnn_gpu_t *gpu) {
  return gpu ? sluice_gpu_device_name(gpu->device) : "";
}

SLUICE_API void sluice_gnn_gpu_stats(const sluice_gnn_gpu_t *gpu,
                                     sluice_gnn_gpu_stats_t *stats) {
  if (stats)
    *stats = gpu ? gpu->stats : sluice_gnn_gpu_stats_t{};
}

SLUICE_API sluice_status_t sluice_gnn_gpu_forward(
    sluice_gnn_gpu_t *gpu, const sluice_gnn_block_t *block, const float *h,
    uint32_t in, float *agg, sluice_error_t *error) {
  constexpr const char *fn = "sluice_gnn_gpu_forward";
  if (!gpu)
    return invalid(error, fn, "the handle is NULL");
  if (sluice_status_t s = checkBlock(block, gpu->kind, fn, error))
    return s;
  const sluice_gnn_block_t &b = *block;
  if (in == 0 || b.num_dst == 0)
    return SLUICE_STATUS_OK;
  if (!h || !agg)
    return invalid(error, fn, "h or agg is NULL");
  const uint64_t rows = gpu->kind == SLUICE_GNN_SAGE ? 2 * uint64_t(in) : in;
  const uint64_t edges = b.offsets[b.num_dst];
  const bool gcn = gpu->kind == SLUICE_GNN_GCN;
  Buffers buffers(gpu);
  sluice_gnn_gpu_forward_args_t args{};
  args.num_dst = b.num_dst;
  args.in = in;
  uint64_t dArgs = 0;
  if (sluice_status_t s =
          uploadAll(gpu, buffers,
                    {{b.offsets, 4 * (size_t(b.num_dst) + 1), &args.offsets},
                     {b.nbr, 4 * edges, &args.nbr},
                     {b.coef, 4 * edges, &args.coef},
                     {gcn ? b.self_coef : nullptr,
                      gcn ? 4 * size_t(b.num_dst) : 0, &args.self_coef},
                     {h, 4 * size_t(b.num_src) * in, &args.h},
                     {nullptr, 4 * b.num_dst * rows, &args.agg}},
                    error))
    return s;
  if (sluice_status_t s =
          uploadAll(gpu, buffers, {{&args, sizeof(args), &dArgs}}, error))
    return s;
  if (sluice_status_t s =
          buffers.launch(gpu->forward, dArgs, uint64_t(b.num_dst) * in, error))
    return s;
  return buffers.download(agg, args.agg, 4 * b.num_dst * rows, error);
}

SLUICE_API sluice_status_t sluice_gnn_gpu_backward(
    sluice_gnn_gpu_t *gpu, const sluice_gnn_block_t *block, const float *da,
    uint32_t in, float *dh, sluice_error_t *error) {
  constexpr const char *fn = "sluice_gnn_gpu_backward";
  if (!gpu)
    return invalid(error, fn, "the handle is NULL");
  if (sluice_status_t s = checkBlock(block, gpu->kind, fn, error))
    return s;
  const sluice_gnn_block_t &b = *block;
  if (in == 0 || b.num_src == 0)
    return SLUICE_STATUS_OK;
  if ((b.num_dst > 0 && !da) || !dh)
    return invalid(error, fn, "da or dh is NULL");
  const uint64_t rows = gpu->kind == SLUICE_GNN_SAGE ? 2 * uint64_t(in) : in;
  const uint64_t terms = uint64_t(b.num_dst) + b.offsets[b.num_dst];
  Clock::time_point start = Clock::now();
  std::vector<uint32_t> offsets(size_t(b.num_src) + 1);
  std::vector<uint32_t> slot(terms);
  std::vector<float> coef(terms);
  if (sluice_status_t s = sluice_gnn_block_transpose(
          &b, gpu->kind, offsets.data(), slot.data(), coef.data(), error))
    return s;
  gpu->stats.transpose_seconds += since(start);
  Buffers buffers(gpu);
  sluice_gnn_gpu_backward_args_t args{};
  args.num_src = b.num_src;
  args.in = in;
  uint64_t dArgs = 0;
  if (sluice_status_t s =
          uploadAll(gpu, buffers,
                    {{offsets.data(), 4 * offsets.size(), &args.offsets},
                     {slot.data(), 4 * terms, &args.slot},
                     {coef.data(), 4 * terms, &args.coef},
                     {da, 4 * b.num_dst * rows, &args.da},
                     {dh, 4 * size_t(b.num_src) * in, &args.dh}},
                    error))
    return s;
  if (sluice_status_t s =
          uploadAll(gpu, buffers, {{&args, sizeof(args), &dArgs}}, error))
    return s;
  if (sluice_status_t s =
          buffers.launch(gpu->backward, dArgs, uint64_t(b.num_src) * in, error))
    return s;
  return buffers.download(dh, args.dh, 4 * size_t(b.num_src) * in, error);
}

SLUICE_API void sluice_gnn_gpu_aggregator(sluice_gnn_gpu_t *gpu,
                                          sluice_gnn_aggregator_t *out) {
  if (!out)
    return;
  out->forward = [](void *user, const sluice_gnn_block_t *block, const float *h,
                    uint32_t in, float *agg, sluice_error_t *error) {
    return sluice_gnn_gpu_forward(static_cast<sluice_gnn_gpu_t *>(user), block,
                                  h, in, agg, error);
  };
  out->backward = [](void *user, const sluice_gnn_block_t *block,
                     const float *da, uint32_t in, float *dh,
                     sluice_error_t *error) {
    return sluice_gnn_gpu_backward(static_cast<sluice_gnn_gpu_t *>(user), block,
                                   da, in, dh, error);
  };
  out->user = gpu;
}

} // extern "C"
