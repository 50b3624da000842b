//===- WalkGpu.cpp - sluice_walk_run_gpu: compiled walks on a GPU ---------===//
//
// The host side of the kernels walk-to-gpu generates. The argument order
// is the kernel's (compiler/Conversion/Passes.td, WalkToGPU): offsets,
// targets, weights, weight_max, weight_min, weight_sum, labels, params,
// starts, num_walkers, walks_per_vertex, max_length, stop_probability,
// seed, rows, lengths, num_vertices, num_edges, edge_labels. One launch of blocks of
// 256 threads: one thread per walker for the rejection kernels (sampler
// AUTO or REJECTION), a warp of 32 per walker for the reservoir kernels
// (sampler RESERVOIR; walker = thread / 32, docs/walk-codegen.md, "GPU").
//
//===----------------------------------------------------------------------===//
#include "sluice/walk_gpu.h"

#include "sluice/gpu.h"

#include "runtime/src/Error.h"
#include "runtime/src/WalkWriterInternal.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

using namespace sluice::rt;

namespace {

constexpr uint32_t kThreadsPerBlock = 256;
/// Threads per walker of the reservoir kernels (a warp).
constexpr uint64_t kReservoirThreads = 32;

/// Device buffers, freed with the device.
class DeviceSession {
public:
  ~DeviceSession() {
    for (uint64_t p : buffers)
      sluice_gpu_free(device, p);
    sluice_gpu_module_free(module);
    sluice_gpu_close(device);
  }
  /// Allocates and fills `bytes` from `host` (host NULL: no copy; bytes 0:
  /// the null device pointer).
  sluice_status_t upload(const void *host, size_t bytes, uint64_t *out,
                         sluice_error_t *error) {
    *out = 0;
    if (bytes == 0)
      return SLUICE_STATUS_OK;
    sluice_status_t s = sluice_gpu_alloc(device, bytes, out, error);
    if (s != SLUICE_STATUS_OK)
      return s;
    buffers.push_back(*out);
    return host ? sluice_gpu_copy_to_device(device, *out, host, bytes, error)
                : SLUICE_STATUS_OK;
  }
  sluice_gpu_device_t *device = nullptr;
  sluice_gpu_module_t *module = nullptr;

private:
  std::vector<uint64_t> buffers;
};

sluice_status_t invalid(sluice_error_t *error, const std::string &message) {
  return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
              "sluice_walk_run_gpu: " + message);
}

sluice_status_t runGpu(const sluice_graph_t *graph, const char *ptx,
                       const char *kernelName, const void *params,
                       uint32_t numParams, const sluice_walk_options_t &o,
                       sluice_walk_writer_t *writer,
                       sluice_walk_stats_t *stats, sluice_error_t *error) {
  const uint64_t nv = sluice_graph_num_vertices(graph);
  const uint64_t ne = sluice_graph_num_edges(graph);
  uint64_t numStarts = o.starts ? o.num_starts : nv;
  if (numStarts && o.walks_per_vertex > UINT64_MAX / numStarts)
    return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                "num_starts * walks_per_vertex does not fit in 64 bits");
  const uint64_t numWalkers = numStarts * o.walks_per_vertex;
  std::vector<uint32_t> starts(numStarts);
  for (uint64_t i = 0; i < numStarts; ++i) {
    uint64_t v = o.starts ? o.starts[i] : i;
    if (v >= nv)
      return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                  "start vertex " + std::to_string(v) + " (starts[" +
                      std::to_string(i) + "]) is not in the graph (" +
                      std::to_string(nv) + " vertices)");
    starts[i] = static_cast<uint32_t>(v);
  }
  const uint64_t maxLength = static_cast<uint64_t>(o.max_length);
  uint32_t stride = writer ? walkWriterLength(writer) : 0;
  if (writer && stride < maxLength)
    return invalid(error, "the writer takes walks of at most " +
                              std::to_string(stride) +
                              " vertices, but max_length is " +
                              std::to_string(maxLength));
  if (numWalkers && maxLength > SIZE_MAX / 4 / numWalkers)
    return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                "num_walkers * max_length does not fit in memory");
  const bool warp = enumValue(o.sampler) == SLUICE_WALK_SAMPLER_RESERVOIR;
  const uint64_t threadsPerWalker = warp ? kReservoirThreads : 1;
  if (numWalkers > UINT64_MAX / threadsPerWalker - kThreadsPerBlock)
    return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                "too many walkers for one launch (" +
                    std::to_string(numWalkers) + ")");
  uint64_t blocks =
      (numWalkers * threadsPerWalker + kThreadsPerBlock - 1) / kThreadsPerBlock;
  if (blocks > 0x7fffffffu)
    return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                "too many walkers for one launch (" +
                    std::to_string(numWalkers) + ")");

  // Per-vertex aggregates (the getters give NULL arrays when unweighted).
  std::vector<float> wmax(nv), wmin(nv), wsum(nv);
  // Lengths start at 0: a kernel launched with the wrong kind (a reservoir
  // kernel as one thread per walker) leaves walkers unwritten, which the
  // check below reports instead of reading garbage.
  std::vector<uint32_t> zeroLengths(numWalkers, 0);
  for (uint64_t v = 0; v < nv; ++v) {
    wmax[v] = sluice_graph_weight_max(graph, static_cast<uint32_t>(v));
    wmin[v] = sluice_graph_weight_min(graph, static_cast<uint32_t>(v));
    wsum[v] = sluice_graph_weight_sum(graph, static_cast<uint32_t>(v));
  }

  DeviceSession s;
  sluice_status_t st = sluice_gpu_open(nullptr, &s.device, error);
  if (st != SLUICE_STATUS_OK)
    return st;
  st = sluice_gpu_module_load_ptx(s.device, ptx, &s.module, error);
  if (st != SLUICE_STATUS_OK)
    return st;

  const float *weights = sluice_graph_weights(graph);
  const int32_t *labels = sluice_graph_vertex_labels(graph);
  const int32_t *edgeLabels = sluice_graph_edge_labels(graph);
  uint64_t dEdgeLabels, dOffsets, dTargets, dWeights, dMax, dMin, dSum, dLabels, dParams,
      dStarts, dRows, dLengths;
  struct Upload {
    const void *host;
    size_t bytes;
    uint64_t *out;
  } uploads[] = {
      {sluice_graph_offsets(graph), 8 * (nv + 1), &dOffsets},
      {sluice_graph_targets(graph), 4 * ne, &dTargets},
      {weights, weights ? 4 * ne : 0, &dWeights},
      {wmax.data(), 4 * nv, &dMax},
      {wmin.data(), 4 * nv, &dMin},
      {wsum.data(), 4 * nv, &dSum},
      {labels, labels ? 4 * nv : 0, &dLabels},
      {edgeLabels, edgeLabels ? 4 * ne : 0, &dEdgeLabels},
      {params, params ? 8 * size_t(numParams) : 0, &dParams},
      {starts.data(), 4 * numStarts, &dStarts},
      {nullptr, 4 * numWalkers * maxLength, &dRows},
      {zeroLengths.data(), 4 * numWalkers, &dLengths}};
  for (const Upload &u : uploads)
    if ((st = s.upload(u.host, u.bytes, u.out, error)) != SLUICE_STATUS_OK)
      return st;

  uint64_t walkers = numWalkers, wpv = o.walks_per_vertex, len = maxLength,
           seed = o.seed, vertices = nv, edges = ne;
  double stopProbability = o.stop_probability;
  void *args[] = {&dOffsets, &dTargets, &dWeights, &dMax,    &dMin,
                  &dSum,     &dLabels,  &dParams,  &dStarts, &walkers,
                  &wpv,      &len,      &stopProbability,    &seed,
                  &dRows,    &dLengths, &vertices, &edges,
                  &dEdgeLabels};
  auto t0 = std::chrono::steady_clock::now();
  if (numWalkers) {
    uint32_t grid[3] = {static_cast<uint32_t>(blocks), 1, 1};
    uint32_t block[3] = {kThreadsPerBlock, 1, 1};
    st = sluice_gpu_launch(s.module, kernelName, grid, block, 0, args, error);
    if (st != SLUICE_STATUS_OK)
      return st;
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();

  std::vector<uint32_t> rows(numWalkers * maxLength), lengths(numWalkers);
  if (numWalkers) {
    if ((st = sluice_gpu_copy_from_device(s.device, rows.data(), dRows,
                                          4 * rows.size(), error)) !=
            SLUICE_STATUS_OK ||
        (st = sluice_gpu_copy_from_device(s.device, lengths.data(), dLengths,
                                          4 * lengths.size(), error)) !=
            SLUICE_STATUS_OK)
      return st;
  }
  uint64_t steps = 0;
  for (uint64_t w = 0; w < numWalkers; ++w) {
    if (lengths[w] < 1 || lengths[w] > maxLength)
      return fail(error, SLUICE_STATUS_INTERNAL, {},
                  "the GPU kernel returned length " +
                      std::to_string(lengths[w]) + " for walker " +
                      std::to_string(w) +
                      " (is the sampler the kernel's: RESERVOIR for a "
                      "reservoir kernel, AUTO or REJECTION otherwise?)");
    steps += lengths[w] - 1;
  }
  if (writer && numWalkers) {
    // The writer's rows are `stride` wide, the kernel's max_length.
    std::vector<uint32_t> wide;
    const uint32_t *out = rows.data();
    if (stride != maxLength) {
      wide.assign(numWalkers * stride, 0);
      for (uint64_t w = 0; w < numWalkers; ++w)
        std::memcpy(&wide[w * stride], &rows[w * maxLength],
                    4 * size_t(lengths[w]));
      out = wide.data();
    }
    if ((st = sluice_walk_writer_append(writer, out, lengths.data(),
                                        numWalkers, error)) !=
        SLUICE_STATUS_OK)
      return st;
  }
  if (stats) {
    std::memset(stats, 0, sizeof(*stats));
    stats->walks = numWalkers;
    stats->steps = steps;
    stats->seconds = seconds;
    (warp ? stats->reservoir_steps : stats->rejection_steps) = steps;
  }
  return SLUICE_STATUS_OK;
}

} // namespace

extern "C" SLUICE_API sluice_status_t sluice_walk_run_gpu(
    const sluice_graph_t *graph, const char *ptx, const char *kernelName,
    const void *params, uint32_t numParams,
    const sluice_walk_options_t *options, sluice_walk_writer_t *writer,
    sluice_walk_stats_t *stats, sluice_error_t *error) {
  sluice_error_clear(error);
  if (!graph)
    return invalid(error, "graph is NULL");
  if (!ptx)
    return invalid(error, "ptx is NULL");
  if (!kernelName || !*kernelName)
    return invalid(error, "kernel_name is empty");
  if (numParams && !params)
    return invalid(error, "params is NULL but the kernel has " +
                              std::to_string(numParams) + " parameters");
  sluice_walk_options_t defaults;
  if (!options) {
    sluice_walk_options_init(&defaults);
    options = &defaults;
  }
  const sluice_walk_options_t &o = *options;
  if (o.max_length < 1)
    return invalid(error, "max_length must be at least 1");
  if (o.walks_per_vertex < 1)
    return invalid(error, "walks_per_vertex must be at least 1");
  if (!(o.stop_probability >= 0 && o.stop_probability <= 1))
    return invalid(error, "stop_probability must be in [0, 1], got " +
                              std::to_string(o.stop_probability));
  int64_t sampler = enumValue(o.sampler);
  if (sampler != SLUICE_WALK_SAMPLER_AUTO &&
      sampler != SLUICE_WALK_SAMPLER_REJECTION &&
      sampler != SLUICE_WALK_SAMPLER_RESERVOIR)
    return invalid(error,
                   std::string("the GPU kernels sample by rejection or "
                               "reservoir; sampler ") +
                       (sampler == SLUICE_WALK_SAMPLER_ALIAS
                            ? "alias"
                            : "#" + std::to_string(sampler)) +
                       " is not supported on the GPU yet (use rejection, "
                       "reservoir or auto)");
  if (o.starts == nullptr && o.num_starts != 0 &&
      o.num_starts != sluice_graph_num_vertices(graph))
    return invalid(error, "num_starts is " + std::to_string(o.num_starts) +
                              " but starts is NULL (every vertex)");
  return guarded(error, {}, [&] {
    return runGpu(graph, ptx, kernelName, params, numParams, o, writer, stats,
                  error);
  });
}
