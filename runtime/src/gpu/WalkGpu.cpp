//===- WalkGpu.cpp - sluice_walk_run_gpu: compiled walks on a GPU ---------===//
//
// The host side of the kernels walk-to-gpu generates. A kernel takes one
// argument, the device address of a sluice_walk_gpu_args_t (walk_gpu.h),
// written before each launch. One launch per batch of walkers, blocks of
// 256 threads: one thread per walker for the rejection kernels (sampler
// AUTO or REJECTION), a warp of 32 per walker for the reservoir kernels
// (sampler RESERVOIR; walker = thread / 32, docs/walk-codegen.md, "GPU").
//
//===----------------------------------------------------------------------===//
#include "sluice/walk_gpu.h"
#include "sluice/walk_support.h"

#include "sluice/gpu.h"

#include "runtime/src/Error.h"
#include "runtime/src/WalkWriterInternal.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
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

/// The kernel's walk name: kernel_name without "sluice_walk_".
std::string walkName(const char *kernelName) {
  std::string k = kernelName;
  const std::string prefix = "sluice_walk_";
  return k.compare(0, prefix.size(), prefix) == 0 ? k.substr(prefix.size())
                                                  : k;
}

/// The device fault record: a sluice_walk_fault_t, then the smallest
/// faulting walker (walk-to-gpu's sluice_fault).
struct DeviceFault {
  sluice_walk_fault_t fault;
  uint64_t firstWalker;
};
static_assert(sizeof(sluice_walk_fault_t) == 40 &&
                  sizeof(DeviceFault) == 48,
              "walk-to-gpu's sluice_fault writes this layout");

/// Walkers per launch: `requested`, else SLUICE_GPU_WALKERS_PER_LAUNCH,
/// else what keeps a batch's rows within kBatchRowBytes.
constexpr uint64_t kBatchRowBytes = uint64_t(256) << 20;

sluice_status_t batchSize(uint64_t requested, uint64_t maxLength,
                          uint64_t threadsPerWalker, uint64_t *out,
                          sluice_error_t *error) {
  uint64_t n = requested;
  if (n == 0) {
    if (const char *env = std::getenv("SLUICE_GPU_WALKERS_PER_LAUNCH");
        env && *env) {
      char *end = nullptr;
      errno = 0;
      unsigned long long v = std::strtoull(env, &end, 10);
      if (errno || *end || v == 0 || env[0] == '-')
        return invalid(error, std::string("SLUICE_GPU_WALKERS_PER_LAUNCH "
                                          "must be a positive integer, "
                                          "got '") +
                                  env + "'");
      n = v;
    } else {
      n = std::max<uint64_t>(1, kBatchRowBytes / (4 * (maxLength + 1)));
    }
  }
  // One launch's grid: at most 2^31 - 1 blocks.
  uint64_t most = (uint64_t(0x7fffffff) * kThreadsPerBlock) / threadsPerWalker;
  *out = std::min(n, most);
  return SLUICE_STATUS_OK;
}

sluice_status_t runGpu(const sluice_graph_t *graph, const char *ptx,
                       const char *kernelName, const void *params,
                       uint32_t numParams, const int32_t *kinds,
                       uint64_t walkersPerLaunch,
                       const sluice_walk_options_t &o,
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
  const bool warp = enumValue(o.sampler) == SLUICE_WALK_SAMPLER_RESERVOIR;
  const uint64_t threadsPerWalker = warp ? kReservoirThreads : 1;
  uint64_t batch = 0;
  sluice_status_t st = batchSize(walkersPerLaunch, maxLength,
                                 threadsPerWalker, &batch, error);
  if (st != SLUICE_STATUS_OK)
    return st;
  batch = std::min(batch, std::max<uint64_t>(numWalkers, 1));
  if (maxLength > SIZE_MAX / 4 / batch)
    return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                "walkers_per_launch * max_length does not fit in memory");

  // The parameter slots the device gets: lists become device pointers.
  std::vector<uint64_t> slots(numParams);
  if (numParams)
    std::memcpy(slots.data(), params, 8 * size_t(numParams));
  for (uint32_t i = 0; kinds && i < numParams; ++i) {
    if (kinds[i] != SLUICE_WALK_PARAM_SCALAR &&
        kinds[i] != SLUICE_WALK_PARAM_LIST)
      return invalid(error, "param_kinds[" + std::to_string(i) + "] is " +
                                std::to_string(kinds[i]) +
                                " (SCALAR 0 or LIST 1)");
    if (kinds[i] != SLUICE_WALK_PARAM_LIST)
      continue;
    const sluice_walk_list_t *list = nullptr;
    std::memcpy(&list, &slots[i], sizeof(list));
    if (list && list->size < 0)
      return invalid(error, "list parameter " + std::to_string(i) +
                                " has size " + std::to_string(list->size));
    if (list && list->size > 0 && !list->data)
      return invalid(error, "list parameter " + std::to_string(i) +
                                " has " + std::to_string(list->size) +
                                " elements but no data");
  }

  // Per-vertex aggregates (the getters give NULL arrays when unweighted).
  std::vector<float> wmax(nv), wmin(nv), wsum(nv);
  for (uint64_t v = 0; v < nv; ++v) {
    wmax[v] = sluice_graph_weight_max(graph, static_cast<uint32_t>(v));
    wmin[v] = sluice_graph_weight_min(graph, static_cast<uint32_t>(v));
    wsum[v] = sluice_graph_weight_sum(graph, static_cast<uint32_t>(v));
  }

  DeviceSession s;
  st = sluice_gpu_open(nullptr, &s.device, error);
  if (st != SLUICE_STATUS_OK)
    return st;
  st = sluice_gpu_module_load_ptx(s.device, ptx, &s.module, error);
  if (st != SLUICE_STATUS_OK)
    return st;

  // Lists first: their device pointers go into the slots.
  for (uint32_t i = 0; kinds && i < numParams; ++i) {
    if (kinds[i] != SLUICE_WALK_PARAM_LIST)
      continue;
    const sluice_walk_list_t *list = nullptr;
    std::memcpy(&list, &slots[i], sizeof(list));
    int64_t size = list ? list->size : 0;
    uint64_t dData = 0, dList = 0;
    if ((st = s.upload(size ? list->data : nullptr, 8 * size_t(size), &dData,
                       error)) != SLUICE_STATUS_OK)
      return st;
    struct {
      uint64_t data;
      int64_t size;
    } deviceList = {dData, size};
    static_assert(sizeof(deviceList) == sizeof(sluice_walk_list_t),
                  "a device list mirrors sluice_walk_list_t");
    if ((st = s.upload(&deviceList, sizeof(deviceList), &dList, error)) !=
        SLUICE_STATUS_OK)
      return st;
    slots[i] = dList;
  }

  const float *weights = sluice_graph_weights(graph);
  const int32_t *labels = sluice_graph_vertex_labels(graph);
  const int32_t *edgeLabels = sluice_graph_edge_labels(graph);
  const uint64_t *originalIds = sluice_graph_original_ids(graph);
  DeviceFault noFault;
  std::memset(&noFault, 0, sizeof(noFault));
  noFault.firstWalker = UINT64_MAX;
  // Lengths start at 0 in every batch: a kernel launched with the wrong
  // kind (a reservoir kernel as one thread per walker) leaves walkers
  // unwritten, which the check below reports instead of reading garbage.
  std::vector<uint32_t> zeroLengths(batch, 0);
  uint64_t dEdgeLabels, dOffsets, dTargets, dWeights, dMax, dMin, dSum,
      dLabels, dParams, dStarts, dRows, dLengths, dFault, dOriginalIds;
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
      {originalIds, originalIds ? 8 * nv : 0, &dOriginalIds},
      {slots.data(), 8 * slots.size(), &dParams},
      {starts.data(), 4 * numStarts, &dStarts},
      {&noFault, sizeof(noFault), &dFault},
      {nullptr, 4 * batch * maxLength, &dRows},
      {nullptr, 4 * batch, &dLengths}};
  for (const Upload &u : uploads)
    if ((st = s.upload(u.host, u.bytes, u.out, error)) != SLUICE_STATUS_OK)
      return st;

  // The kernel's one argument: a sluice_walk_gpu_args_t in device memory,
  // rewritten before each launch (walker_base, num_walkers).
  sluice_walk_gpu_args_t hostArgs;
  std::memset(&hostArgs, 0, sizeof(hostArgs));
  hostArgs.offsets = dOffsets;
  hostArgs.targets = dTargets;
  hostArgs.weights = dWeights;
  hostArgs.weight_max = dMax;
  hostArgs.weight_min = dMin;
  hostArgs.weight_sum = dSum;
  hostArgs.labels = dLabels;
  hostArgs.params = dParams;
  hostArgs.starts = dStarts;
  hostArgs.walks_per_vertex = static_cast<int64_t>(o.walks_per_vertex);
  hostArgs.max_length = static_cast<int64_t>(maxLength);
  hostArgs.stop_probability = o.stop_probability;
  hostArgs.seed = static_cast<int64_t>(o.seed);
  hostArgs.rows = dRows;
  hostArgs.lengths = dLengths;
  hostArgs.num_vertices = static_cast<int64_t>(nv);
  hostArgs.num_edges = static_cast<int64_t>(ne);
  hostArgs.edge_labels = dEdgeLabels;
  hostArgs.fault = dFault;
  hostArgs.original_ids = dOriginalIds;
  hostArgs.id_base = static_cast<int64_t>(sluice_graph_id_base(graph));
  uint64_t dArgs = 0;
  if ((st = s.upload(nullptr, sizeof(hostArgs), &dArgs, error)) !=
      SLUICE_STATUS_OK)
    return st;
  void *args[] = {&dArgs};
  // Runs walkers [base, base + count) into rows / lengths.
  double seconds = 0;
  auto launch = [&](uint64_t base, uint64_t count) -> sluice_status_t {
    hostArgs.walker_base = static_cast<int64_t>(base);
    hostArgs.num_walkers = static_cast<int64_t>(count);
    sluice_status_t ls = sluice_gpu_copy_to_device(
        s.device, dLengths, zeroLengths.data(), 4 * count, error);
    if (ls == SLUICE_STATUS_OK)
      ls = sluice_gpu_copy_to_device(s.device, dArgs, &hostArgs,
                                     sizeof(hostArgs), error);
    if (ls != SLUICE_STATUS_OK)
      return ls;
    uint64_t blocks =
        (count * threadsPerWalker + kThreadsPerBlock - 1) / kThreadsPerBlock;
    uint32_t grid[3] = {static_cast<uint32_t>(blocks), 1, 1};
    uint32_t block[3] = {kThreadsPerBlock, 1, 1};
    auto t0 = std::chrono::steady_clock::now();
    ls = sluice_gpu_launch(s.module, kernelName, grid, block, 0, args, error);
    seconds += std::chrono::duration<double>(
                   std::chrono::steady_clock::now() - t0)
                   .count();
    return ls;
  };

  std::vector<uint32_t> rows(batch * maxLength), lengths(batch), wide;
  uint64_t steps = 0;
  for (uint64_t base = 0; base < numWalkers; base += batch) {
    uint64_t count = std::min(batch, numWalkers - base);
    if ((st = launch(base, count)) != SLUICE_STATUS_OK)
      return st;
    DeviceFault fault;
    if ((st = sluice_gpu_copy_from_device(s.device, &fault, dFault,
                                          sizeof(fault), error)) !=
        SLUICE_STATUS_OK)
      return st;
    if (fault.fault.code != SLUICE_WALK_FAULT_NONE) {
      // Report the smallest faulting walker's first fault: when another
      // walker's won the record, run that walker alone.
      if (fault.fault.walker != fault.firstWalker) {
        uint64_t first = fault.firstWalker;
        if ((st = sluice_gpu_copy_to_device(s.device, dFault, &noFault,
                                            sizeof(noFault), error)) !=
                SLUICE_STATUS_OK ||
            (st = launch(first, 1)) != SLUICE_STATUS_OK ||
            (st = sluice_gpu_copy_from_device(s.device, &fault, dFault,
                                              sizeof(fault), error)) !=
                SLUICE_STATUS_OK)
          return st;
        if (fault.fault.code == SLUICE_WALK_FAULT_NONE)
          return fail(error, SLUICE_STATUS_INTERNAL, {},
                      "walker " + std::to_string(first) +
                          " faulted on the GPU but not when run alone");
      }
      char what[160];
      sluice_walk_fault_describe(&fault.fault, what, sizeof(what));
      auto id = [&](uint32_t v) {
        return std::to_string(sluice_graph_original_id(graph, v));
      };
      uint64_t rank = fault.fault.walker / o.walks_per_vertex;
      uint32_t start = rank < numStarts ? starts[rank] : SLUICE_VERTEX_NONE;
      return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                  "walk '" + walkName(kernelName) + "': walker " +
                      std::to_string(fault.fault.walker) + " (start vertex " +
                      id(start) + ") at step " +
                      std::to_string(fault.fault.step) + ", vertex " +
                      id(fault.fault.cur) + ": " + what);
    }
    if ((st = sluice_gpu_copy_from_device(s.device, rows.data(), dRows,
                                          4 * count * maxLength, error)) !=
            SLUICE_STATUS_OK ||
        (st = sluice_gpu_copy_from_device(s.device, lengths.data(), dLengths,
                                          4 * count, error)) !=
            SLUICE_STATUS_OK)
      return st;
    for (uint64_t w = 0; w < count; ++w) {
      if (lengths[w] < 1 || lengths[w] > maxLength)
        return fail(error, SLUICE_STATUS_INTERNAL, {},
                    "the GPU kernel returned length " +
                        std::to_string(lengths[w]) + " for walker " +
                        std::to_string(base + w) +
                        " (is the sampler the kernel's: RESERVOIR for a "
                        "reservoir kernel, AUTO or REJECTION otherwise?)");
      steps += lengths[w] - 1;
    }
    if (!writer)
      continue;
    // The writer's rows are `stride` wide, the kernel's max_length.
    const uint32_t *out = rows.data();
    if (stride != maxLength) {
      wide.assign(count * stride, 0);
      for (uint64_t w = 0; w < count; ++w)
        std::memcpy(&wide[w * stride], &rows[w * maxLength],
                    4 * size_t(lengths[w]));
      out = wide.data();
    }
    if ((st = sluice_walk_writer_append(writer, out, lengths.data(), count,
                                        error)) != SLUICE_STATUS_OK)
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

extern "C" SLUICE_API void
sluice_walk_gpu_options_init(sluice_walk_gpu_options_t *options) {
  if (options)
    std::memset(options, 0, sizeof(*options));
}

extern "C" SLUICE_API sluice_status_t sluice_walk_run_gpu(
    const sluice_graph_t *graph, const char *ptx, const char *kernelName,
    const void *params, uint32_t numParams,
    const sluice_walk_options_t *options, sluice_walk_writer_t *writer,
    sluice_walk_stats_t *stats, sluice_error_t *error) {
  return sluice_walk_run_gpu_ex(graph, ptx, kernelName, params, numParams,
                                options, nullptr, writer, stats, error);
}

extern "C" SLUICE_API sluice_status_t sluice_walk_run_gpu_ex(
    const sluice_graph_t *graph, const char *ptx, const char *kernelName,
    const void *params, uint32_t numParams,
    const sluice_walk_options_t *options,
    const sluice_walk_gpu_options_t *gpuOptions, sluice_walk_writer_t *writer,
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
                       (sampler == SLUICE_WALK_SAMPLER_ALIAS ? "alias"
                        : sampler == SLUICE_WALK_SAMPLER_UNIFORM
                            ? "uniform"
                            : "#" + std::to_string(sampler)) +
                       " is not supported on the GPU yet (use rejection, "
                       "reservoir or auto)");
  if (o.starts == nullptr && o.num_starts != 0 &&
      o.num_starts != sluice_graph_num_vertices(graph))
    return invalid(error, "num_starts is " + std::to_string(o.num_starts) +
                              " but starts is NULL (every vertex)");
  return guarded(error, {}, [&] {
    sluice_walk_gpu_options_t g;
    sluice_walk_gpu_options_init(&g);
    if (gpuOptions)
      g = *gpuOptions;
    return runGpu(graph, ptx, kernelName, params, numParams, g.param_kinds,
                  g.walkers_per_launch, o, writer, stats, error);
  });
}
