//===- AlgoGpu.cpp - An algorithm context's passes as GPU kernels ---------===//
//
// sluice/algo_gpu.h over sluice/gpu.h (the dlopen'd CUDA driver). Attaching
// a GPU uploads the view (CSR, CSC, weights) and the original ids once and
// builds the kernels' sluice_algo_gpu_ctx_t; binding reads a kernel's
// `_info` global. A pass of a bound function then makes the device hold
// what the loop may read and launches a thread per item, waits, and copies
// back the properties it writes, the partials of a reduction and the
// vertices inserted into the loop's new frontier (as host inserts, so the
// host frontier's seal sorts them as on the CPU).
//
// Each copy is a synchronous driver call (about 10-20 us on an H200 before
// any byte moves), so a pass makes few: a property goes up only when the
// host's bytes differ from those the device holds (a host shadow of each,
// compared with memcmp: exact, whatever the host code did between passes);
// the environment, the property table, the frontier's struct, its zeroed
// bits and the list or bitmap the loop reads go up as one block; the count
// of inserted vertices comes back with the start of their list.
//
//===----------------------------------------------------------------------===//
#include "sluice/algo_gpu.h"
#include "sluice/gpu.h"

#include "runtime/src/Error.h"
#include "runtime/src/algo/AlgoInternal.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
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
  /// 1, or SLUICE_ALGO_GPU_LANES: a warp per item.
  int64_t threadsPerItem = 1;
  /// Per property: bytes | SLUICE_ALGO_GPU_PROP_READ / _WRITTEN.
  std::vector<int64_t> props;
  /// The kernel `<name>_lanes` when the module has one: the same loop with
  /// a warp per item (its edges split among the lanes), launched instead
  /// when the pass's items' average degree reaches AlgoGpu::lanesMinDegree.
  std::unique_ptr<AlgoKernel> lanes;
};

/// Where the kernels run: the CUDA driver (sluice/gpu.h), or the host
/// (kernels compiled for it; sluice_algo_gpu_attach_host), where device
/// memory is host memory.
class AlgoBackend {
public:
  virtual ~AlgoBackend() = default;
  virtual sluice_status_t alloc(size_t bytes, uint64_t *out,
                                sluice_error_t *error) = 0;
  virtual void release(uint64_t ptr) = 0;
  virtual sluice_status_t toDevice(uint64_t dst, const void *src, size_t bytes,
                                   sluice_error_t *error) = 0;
  virtual sluice_status_t fromDevice(void *dst, uint64_t src, size_t bytes,
                                     sluice_error_t *error) = 0;
  /// `blocks` blocks of SLUICE_ALGO_GPU_BLOCK threads, waited for.
  virtual sluice_status_t launch(const char *kernel, uint32_t blocks,
                                 void **args, sluice_error_t *error) = 0;
  virtual sluice_status_t readGlobal(const char *name, void *dst, size_t bytes,
                                     size_t *size, sluice_error_t *error) = 0;
};

class CudaBackend final : public AlgoBackend {
public:
  ~CudaBackend() override {
    sluice_gpu_module_free(module);
    sluice_gpu_close(device);
  }
  sluice_status_t open(const char *ptx, sluice_error_t *error) {
    if (sluice_status_t s = sluice_gpu_open(nullptr, &device, error))
      return s;
    return sluice_gpu_module_load_ptx(device, ptx, &module, error);
  }
  sluice_status_t alloc(size_t bytes, uint64_t *out,
                        sluice_error_t *error) override {
    return sluice_gpu_alloc(device, bytes, out, error);
  }
  void release(uint64_t ptr) override { sluice_gpu_free(device, ptr); }
  sluice_status_t toDevice(uint64_t dst, const void *src, size_t bytes,
                           sluice_error_t *error) override {
    return sluice_gpu_copy_to_device(device, dst, src, bytes, error);
  }
  sluice_status_t fromDevice(void *dst, uint64_t src, size_t bytes,
                             sluice_error_t *error) override {
    return sluice_gpu_copy_from_device(device, dst, src, bytes, error);
  }
  sluice_status_t launch(const char *kernel, uint32_t blocks, void **args,
                         sluice_error_t *error) override {
    const uint32_t grid[3] = {blocks, 1, 1};
    const uint32_t block[3] = {SLUICE_ALGO_GPU_BLOCK, 1, 1};
    return sluice_gpu_launch(module, kernel, grid, block, 0, args, error);
  }
  sluice_status_t readGlobal(const char *name, void *dst, size_t bytes,
                             size_t *size, sluice_error_t *error) override {
    return sluice_gpu_module_read_global(module, name, dst, bytes, size, error);
  }

private:
  sluice_gpu_device_t *device = nullptr;
  sluice_gpu_module_t *module = nullptr;
};

/// Threads run one after another on the caller: block b, thread t is
/// global thread b * SLUICE_ALGO_GPU_BLOCK + t.
class HostBackend final : public AlgoBackend {
public:
  HostBackend(sluice_algo_host_symbol_t symbol, void *user)
      : symbol(symbol), user(user) {}
  sluice_status_t alloc(size_t bytes, uint64_t *out,
                        sluice_error_t *error) override {
    void *p = std::calloc(bytes ? bytes : 1, 1);
    if (!p)
      return failOutOfMemory(error, {});
    *out = reinterpret_cast<uint64_t>(p);
    return SLUICE_STATUS_OK;
  }
  void release(uint64_t ptr) override {
    std::free(reinterpret_cast<void *>(ptr));
  }
  sluice_status_t toDevice(uint64_t dst, const void *src, size_t bytes,
                           sluice_error_t *) override {
    if (bytes)
      std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
    return SLUICE_STATUS_OK;
  }
  sluice_status_t fromDevice(void *dst, uint64_t src, size_t bytes,
                             sluice_error_t *) override {
    if (bytes)
      std::memcpy(dst, reinterpret_cast<const void *>(src), bytes);
    return SLUICE_STATUS_OK;
  }
  sluice_status_t launch(const char *kernel, uint32_t blocks, void **args,
                         sluice_error_t *error) override {
    auto fn = reinterpret_cast<sluice_algo_host_kernel_t>(symbol(user, kernel));
    if (!fn)
      return fail(error, SLUICE_STATUS_NOT_FOUND, {},
                  "no kernel " + quote(kernel) + " in the host build");
    auto *ctx = *static_cast<const sluice_algo_gpu_ctx_t **>(args[0]);
    void *env = *static_cast<void **>(args[1]);
    uint64_t count = *static_cast<uint64_t *>(args[2]);
    for (int64_t t = 0, n = int64_t(blocks) * SLUICE_ALGO_GPU_BLOCK; t < n; ++t)
      fn(ctx, env, count, t);
    return SLUICE_STATUS_OK;
  }
  sluice_status_t readGlobal(const char *name, void *dst, size_t bytes,
                             size_t *size, sluice_error_t *error) override {
    const auto *info = static_cast<const int64_t *>(symbol(user, name));
    if (!info)
      return fail(error, SLUICE_STATUS_NOT_FOUND, {},
                  "no global " + quote(name) + " in the host build");
    // A kernel's `_info`: its length is in the header's last value (version
    // 2's header had 4 values).
    const size_t header = info[0] == SLUICE_ALGO_GPU_INFO_VERSION
                              ? SLUICE_ALGO_GPU_INFO_HEADER
                              : 4;
    size_t have =
        (header + static_cast<size_t>(std::max<int64_t>(info[header - 1], 0))) *
        8;
    if (size)
      *size = have;
    if (bytes > have)
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                  "the global " + quote(name) + " is smaller than asked");
    std::memcpy(dst, info, bytes);
    return SLUICE_STATUS_OK;
  }

private:
  sluice_algo_host_symbol_t symbol;
  void *user;
};

/// A property on the device and the host bytes it holds (valid: the device
/// copy equals `shadow`, which came from `host`; newer: a pass wrote it
/// and its `bytes` have not come back to `host` yet).
struct DeviceProp {
  DeviceBuffer buffer;
  void *host = nullptr;
  size_t bytes = 0;
  std::vector<unsigned char> shadow;
  bool valid = false;
  bool newer = false;
};

/// Vertices of a new frontier whose list comes back with its count in one
/// copy (more take a second).
constexpr uint64_t kListHead = 1024;

struct AlgoGpu {
  std::unique_ptr<AlgoBackend> backend;
  /// The view's arrays, the ids and the sluice_algo_gpu_ctx_t.
  DeviceBuffer outOffsets, outTargets, outWeights, inOffsets, inSources,
      inWeights, ids, gpuCtx;
  /// Per pass: the properties; one block with the environment, the property
  /// table, the new frontier's struct and bits, the list or bitmap read and
  /// the new frontier's count (`staging` is its host side), then the new
  /// frontier's list; partials.
  std::vector<DeviceProp> props;
  DeviceBuffer block, partials;
  std::vector<uint64_t> staging;
  std::vector<uint32_t> head;
  /// Few kernels an algorithm: looked up in order of binding.
  std::vector<std::pair<sluice_algo_range_fn_t, AlgoKernel>> kernels;
  sluice_algo_gpu_stats_t stats{};
  /// Between SLUICE_ALGO_GPU_SYNC_BEGIN and _END: written properties stay
  /// on the device until the host code asks for them.
  bool deferring = false;
  /// A kernel's `_lanes` twin runs when the items' average degree is at
  /// least this (sluice_algo_gpu_set_lanes_min_degree).
  double lanesMinDegree = SLUICE_ALGO_GPU_LANES_MIN_DEGREE;

  explicit AlgoGpu(std::unique_ptr<AlgoBackend> backend)
      : backend(std::move(backend)) {}
  ~AlgoGpu() {
    for (DeviceBuffer *b :
         {&outOffsets, &outTargets, &outWeights, &inOffsets, &inSources,
          &inWeights, &ids, &gpuCtx, &block, &partials})
      if (b->ptr)
        backend->release(b->ptr);
    for (DeviceProp &p : props)
      if (p.buffer.ptr)
        backend->release(p.buffer.ptr);
  }

  /// `b` with room for `bytes` (its contents are not kept).
  sluice_status_t reserve(DeviceBuffer &b, size_t bytes,
                          sluice_error_t *error) {
    if (b.ptr && b.bytes >= bytes)
      return SLUICE_STATUS_OK;
    if (b.ptr)
      backend->release(b.ptr);
    b = {};
    if (sluice_status_t s = backend->alloc(bytes, &b.ptr, error))
      return s;
    b.bytes = bytes;
    return SLUICE_STATUS_OK;
  }
  /// Timed copies (sluice_algo_gpu_stats): `copy()` moved `bytes`.
  template <typename Copy>
  sluice_status_t counted(uint64_t &copies, uint64_t &moved, size_t bytes,
                          Copy copy) {
    auto start = std::chrono::steady_clock::now();
    sluice_status_t s = copy();
    stats.copy_seconds += secondsSince(start);
    ++copies;
    moved += bytes;
    return s;
  }
  sluice_status_t toDevice(uint64_t dst, const void *src, size_t bytes,
                           sluice_error_t *error) {
    return counted(stats.copies_to_device, stats.bytes_to_device, bytes,
                   [&] { return backend->toDevice(dst, src, bytes, error); });
  }
  sluice_status_t fromDevice(void *dst, uint64_t src, size_t bytes,
                             sluice_error_t *error) {
    return counted(stats.copies_from_device, stats.bytes_from_device, bytes,
                   [&] { return backend->fromDevice(dst, src, bytes, error); });
  }
  static double secondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  }
  /// `b` holding `bytes` of `host`.
  sluice_status_t upload(DeviceBuffer &b, const void *host, size_t bytes,
                         sluice_error_t *error) {
    if (sluice_status_t s = reserve(b, bytes, error))
      return s;
    return toDevice(b.ptr, host, bytes, error);
  }
  /// Makes the device's copy of property `p` equal the host's `bytes` at
  /// `host`, copying only when they differ from what it holds.
  sluice_status_t syncProp(DeviceProp &p, void *host, size_t bytes,
                           sluice_error_t *error) {
    if (p.newer && p.host == host && p.bytes == bytes) {
      ++stats.properties_kept; // the device's are the newest
      return SLUICE_STATUS_OK;
    }
    if (p.newer) // another array at this index: the old one's first
      if (sluice_status_t s = bringBack(p, error))
        return s;
    if (p.valid && p.host == host && p.shadow.size() == bytes &&
        (bytes == 0 || std::memcmp(p.shadow.data(), host, bytes) == 0)) {
      ++stats.properties_kept;
      return SLUICE_STATUS_OK;
    }
    p.valid = false;
    if (sluice_status_t s = upload(p.buffer, host, bytes ? bytes : 1, error))
      return s;
    p.host = host;
    p.bytes = bytes;
    remember(p);
    return SLUICE_STATUS_OK;
  }
  /// Copies `p`'s device bytes back to its host array (and the shadow).
  sluice_status_t bringBack(DeviceProp &p, sluice_error_t *error) {
    p.valid = p.newer = false;
    if (sluice_status_t s = fromDevice(p.host, p.buffer.ptr, p.bytes, error))
      return s;
    remember(p);
    return SLUICE_STATUS_OK;
  }
  /// The host's and the device's bytes of `p` are equal: keep them.
  static void remember(DeviceProp &p) {
    const auto *bytesAt = static_cast<const unsigned char *>(p.host);
    p.shadow.assign(bytesAt, bytesAt + p.bytes);
    p.valid = true;
  }
  /// Every property a pass left on the device, back to the host.
  sluice_status_t bringBackAll(sluice_error_t *error) {
    for (DeviceProp &p : props)
      if (p.newer)
        if (sluice_status_t s = bringBack(p, error))
          return s;
    return SLUICE_STATUS_OK;
  }

  sluice_status_t runPass(sluice_algo_ctx_t *ctx, const AlgoKernel &k,
                          uint64_t n, const uint64_t *slots,
                          sluice_error_t *error);
};

void AlgoGpuDeleter::operator()(AlgoGpu *gpu) const { delete gpu; }

/// Bytes rounded up to whole 8-byte words.
static size_t words8(size_t bytes) { return (bytes + 7) / 8; }

sluice_status_t AlgoGpu::runPass(sluice_algo_ctx_t *ctx, const AlgoKernel &k,
                                 uint64_t n, const uint64_t *slots,
                                 sluice_error_t *error) {
  const uint64_t nv = ctx->view.num_vertices;
  const uint64_t words = (nv + 63) / 64;
  std::vector<uint64_t> dev(slots, slots + k.envSlots);
  // Properties: those the loop accesses on the device (copied only when
  // the host's differ), those it writes back (host code reads and writes
  // them between passes).
  void **hostProps = reinterpret_cast<void **>(slots[SLUICE_ALGO_ENV_PROPS]);
  props.resize(std::max(props.size(), k.props.size()));
  // One entry per property, plus a spare zero so that a loop without
  // properties still has a (non-empty) table.
  std::vector<uint64_t> table(k.props.size() + 1, 0);
  auto bytesOf = [&](size_t i) {
    return nv * (k.props[i] & SLUICE_ALGO_GPU_PROP_BYTES);
  };
  for (size_t i = 0; i < k.props.size(); ++i) {
    if (!(k.props[i] &
          (SLUICE_ALGO_GPU_PROP_READ | SLUICE_ALGO_GPU_PROP_WRITTEN)))
      continue;
    if (sluice_status_t s = syncProp(props[i], hostProps[i], bytesOf(i), error))
      return s;
    table[i] = props[i].buffer.ptr;
  }
  auto *out = reinterpret_cast<sluice_frontier_t *>(slots[SLUICE_ALGO_ENV_OUT]);
  if (out && sluice_algo_frontier_size(out) != 0)
    return fail(error, SLUICE_STATUS_UNSUPPORTED, {},
                "a GPU pass into a frontier that already has vertices");
  const auto *inList =
      reinterpret_cast<const uint32_t *>(slots[SLUICE_ALGO_ENV_LIST]);
  const auto *inBits =
      reinterpret_cast<const uint64_t *>(slots[SLUICE_ALGO_ENV_BITMAP]);
  // The block, in 8-byte words: environment, table, the new frontier's
  // struct and bits, the list or bitmap read, the new frontier's count
  // (the words copied up), then its list.
  const size_t envAt = 0, tableAt = envAt + dev.size(),
               frontierAt = tableAt + table.size(),
               bitsAt = frontierAt +
                        (out ? words8(sizeof(sluice_algo_gpu_frontier_t)) : 0),
               listAt = bitsAt + (out ? words + 1 : 0),
               bitmapAt = listAt + (inList ? words8(n * 4) : 0),
               countAt = bitmapAt + (inBits ? words : 0),
               blockWords = countAt + (out ? 1 : 0),
               outListWords = out ? words8(nv * 4 + 4) : 0;
  if (sluice_status_t s =
          reserve(block, (blockWords + outListWords) * 8, error))
    return s;
  const size_t partialBytes =
      static_cast<size_t>(k.locals) * slots[SLUICE_ALGO_ENV_BLOCKS] * 8;
  if (slots[SLUICE_ALGO_ENV_PARTIALS]) {
    if (sluice_status_t s = reserve(partials, partialBytes, error))
      return s;
    dev[SLUICE_ALGO_ENV_PARTIALS] = partials.ptr;
  }
  staging.assign(blockWords, 0);
  auto deviceAt = [&](size_t word) { return block.ptr + word * 8; };
  dev[SLUICE_ALGO_ENV_PROPS] = deviceAt(tableAt);
  if (out) {
    sluice_algo_gpu_frontier_t f{
        reinterpret_cast<uint64_t *>(deviceAt(bitsAt)),
        reinterpret_cast<uint32_t *>(deviceAt(blockWords)),
        reinterpret_cast<uint64_t *>(deviceAt(countAt))};
    std::memcpy(&staging[frontierAt], &f, sizeof f);
    dev[SLUICE_ALGO_ENV_OUT] = deviceAt(frontierAt);
  }
  if (inList) {
    std::memcpy(&staging[listAt], inList, n * 4);
    dev[SLUICE_ALGO_ENV_LIST] = deviceAt(listAt);
  }
  if (inBits) {
    std::memcpy(&staging[bitmapAt], inBits, words * 8);
    dev[SLUICE_ALGO_ENV_BITMAP] = deviceAt(bitmapAt);
  }
  std::memcpy(&staging[envAt], dev.data(), dev.size() * 8);
  std::memcpy(&staging[tableAt], table.data(), table.size() * 8);
  if (sluice_status_t s =
          toDevice(block.ptr, staging.data(), blockWords * 8, error))
    return s;

  // n items of threadsPerItem threads (n < 2^32: vertices, or blocks of
  // them, so the product does not overflow).
  const uint64_t threads = n * static_cast<uint64_t>(k.threadsPerItem);
  const uint64_t blocks =
      (threads + SLUICE_ALGO_GPU_BLOCK - 1) / SLUICE_ALGO_GPU_BLOCK;
  if (n > (uint64_t(1) << 40) || blocks > 0x7fffffffu)
    return fail(error, SLUICE_STATUS_UNSUPPORTED, {},
                "a GPU pass of " + std::to_string(n) + " items of " +
                    std::to_string(k.threadsPerItem) +
                    " threads needs more than 2^31 - 1 blocks");
  uint64_t count = n;
  uint64_t envPtr = deviceAt(envAt);
  void *args[] = {&gpuCtx.ptr, &envPtr, &count};
  auto start = std::chrono::steady_clock::now();
  if (sluice_status_t s = backend->launch(
          k.name.c_str(), static_cast<uint32_t>(blocks), args, error))
    return s;
  stats.kernel_seconds += secondsSince(start);
  ++stats.launches;

  for (size_t i = 0; i < k.props.size(); ++i)
    if (k.props[i] & SLUICE_ALGO_GPU_PROP_WRITTEN) {
      // Back now, or (between the host code's BEGIN and END) when it asks.
      DeviceProp &p = props[i];
      p.valid = false;
      p.newer = true;
      if (deferring) {
        ++stats.properties_deferred;
        continue;
      }
      if (sluice_status_t s = bringBack(p, error))
        return s;
    }
  if (slots[SLUICE_ALGO_ENV_PARTIALS])
    if (sluice_status_t s = fromDevice(
            reinterpret_cast<void *>(slots[SLUICE_ALGO_ENV_PARTIALS]),
            partials.ptr, partialBytes, error))
      return s;
  if (out) {
    // The count and the first kListHead vertices in one copy.
    const uint64_t first = std::min<uint64_t>(nv, kListHead);
    head.resize(2 + first);
    if (sluice_status_t s =
            fromDevice(head.data(), deviceAt(countAt), 8 + first * 4, error))
      return s;
    uint64_t inserted;
    std::memcpy(&inserted, head.data(), 8);
    if (inserted > nv)
      return fail(error, SLUICE_STATUS_INTERNAL, {},
                  "the kernel inserted " + std::to_string(inserted) +
                      " vertices into a frontier of " + std::to_string(nv));
    std::vector<uint32_t> vertices(
        head.begin() + 2, head.begin() + 2 + std::min(first, inserted));
    if (inserted > first) {
      vertices.resize(inserted);
      if (sluice_status_t s = fromDevice(vertices.data() + first,
                                         deviceAt(blockWords) + first * 4,
                                         (inserted - first) * 4, error))
        return s;
    }
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
  // A warp per item where the average item has edges for a good share of
  // the lanes (docs/algorithms.md, "A warp per item, by degree"): the
  // items of a round over a frontier's list (a push from its vertices) by
  // their out-degrees, the others by the graph's average degree.
  const sluice_algo_view_t &view = ctx->view;
  double degree = view.num_vertices
                      ? double(view.num_edges) / double(view.num_vertices)
                      : 0.0;
  const auto *slots = static_cast<const uint64_t *>(env);
  const auto *list =
      reinterpret_cast<const uint32_t *>(slots[SLUICE_ALGO_ENV_LIST]);
  if (kernel->lanes && list && n) {
    uint64_t edges = 0;
    for (uint64_t i = 0; i < n; ++i)
      edges += view.out_offsets[list[i] + 1] - view.out_offsets[list[i]];
    degree = double(edges) / double(n);
  }
  if (kernel->lanes && degree >= gpu.lanesMinDegree) {
    kernel = kernel->lanes.get();
    ++gpu.stats.lanes_launches;
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

namespace {

/// Attaches `backend` to `ctx`: uploads the view and the ids and builds the
/// kernels' sluice_algo_gpu_ctx_t.
sluice_status_t attach(sluice_algo_ctx_t *ctx,
                       std::unique_ptr<AlgoBackend> backend,
                       sluice_error_t *error) {
  std::unique_ptr<AlgoGpu, AlgoGpuDeleter> gpu(new AlgoGpu(std::move(backend)));
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
    if (sluice_status_t s = g.upload(g.outWeights, v.out_weights, m * 4, error))
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
}

/// The argument checks of both attach functions.
sluice_status_t checkAttach(sluice_algo_ctx_t *ctx, const void *what,
                            const char *fn, sluice_error_t *error) {
  if (!ctx || !what)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                std::string(fn) + ": NULL argument");
  if (ctx->gpu)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                std::string(fn) + ": the context has a GPU already");
  return SLUICE_STATUS_OK;
}

} // namespace

sluice_status_t sluice_algo_gpu_attach(sluice_algo_ctx_t *ctx, const char *ptx,
                                       sluice_error_t *error) {
  return guarded(error, {}, [&]() -> sluice_status_t {
    if (sluice_status_t s =
            checkAttach(ctx, ptx, "sluice_algo_gpu_attach", error))
      return s;
    auto cuda = std::make_unique<CudaBackend>();
    if (sluice_status_t s = cuda->open(ptx, error))
      return s;
    return attach(ctx, std::move(cuda), error);
  });
}

sluice_status_t sluice_algo_gpu_attach_host(sluice_algo_ctx_t *ctx,
                                            sluice_algo_host_symbol_t symbol,
                                            void *user, sluice_error_t *error) {
  return guarded(error, {}, [&]() -> sluice_status_t {
    if (sluice_status_t s =
            checkAttach(ctx, reinterpret_cast<const void *>(symbol),
                        "sluice_algo_gpu_attach_host", error))
      return s;
    return attach(ctx, std::make_unique<HostBackend>(symbol, user), error);
  });
}

/// Reads kernel `kernel`'s `_info` into `k` and checks that the module
/// has the kernel.
static sluice_status_t readKernel(AlgoGpu &g, const char *kernel, AlgoKernel &k,
                                  sluice_error_t *error) {
  std::string infoName = std::string(kernel) + "_info";
  constexpr size_t kHeader = SLUICE_ALGO_GPU_INFO_HEADER;
  constexpr size_t kMax = kHeader + SLUICE_ALGO_GPU_INFO_MAX_PROPS;
  int64_t head[kHeader] = {};
  size_t size = 0;
  if (sluice_status_t s = g.backend->readGlobal(infoName.c_str(), head,
                                                sizeof head, &size, error))
    return s;
  if (head[0] != SLUICE_ALGO_GPU_INFO_VERSION ||
      head[1] < SLUICE_ALGO_ENV_CAPTURED || head[2] < 0 ||
      (head[3] != 1 && head[3] != SLUICE_ALGO_GPU_LANES) || head[4] < 0 ||
      head[4] > SLUICE_ALGO_GPU_INFO_MAX_PROPS ||
      size != (kHeader + static_cast<size_t>(head[4])) * 8)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "the global '" + infoName +
                    "' is not a kernel description of version " +
                    std::to_string(SLUICE_ALGO_GPU_INFO_VERSION) +
                    " (compiled by another sluicec?)");
  int64_t info[kMax] = {};
  if (sluice_status_t s =
          g.backend->readGlobal(infoName.c_str(), info, size, nullptr, error))
    return s;
  k.name = kernel;
  k.envSlots = info[1];
  k.locals = info[2];
  k.threadsPerItem = info[3];
  k.props.assign(info + kHeader, info + kHeader + info[4]);
  for (int64_t v : k.props)
    if ((v & ~int64_t(SLUICE_ALGO_GPU_PROP_BYTES | SLUICE_ALGO_GPU_PROP_READ |
                      SLUICE_ALGO_GPU_PROP_WRITTEN)) ||
        !(v & SLUICE_ALGO_GPU_PROP_BYTES))
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                  "the global '" + infoName + "' describes a property as " +
                      std::to_string(v));
  // The kernel itself: a launch over no items does nothing.
  uint64_t none = 0, null = 0;
  void *args[] = {&null, &null, &none};
  return g.backend->launch(kernel, 1, args, error);
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
    AlgoKernel k;
    if (sluice_status_t s = readKernel(g, kernel, k, error))
      return s;
    // Its warp-per-item twin, when the module has one.
    const std::string lanesName = std::string(kernel) + "_lanes";
    auto lanes = std::make_unique<AlgoKernel>();
    sluice_status_t found = readKernel(g, lanesName.c_str(), *lanes, error);
    if (found != SLUICE_STATUS_OK && found != SLUICE_STATUS_NOT_FOUND)
      return found;
    if (found == SLUICE_STATUS_OK) {
      if (lanes->threadsPerItem != SLUICE_ALGO_GPU_LANES)
        return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                    "the kernel '" + lanesName +
                        "' is not a warp per item (threads per item: " +
                        std::to_string(lanes->threadsPerItem) + ")");
      k.lanes = std::move(lanes);
    }
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

void sluice_algo_gpu_sync(sluice_algo_ctx_t *ctx, int32_t phase) {
  if (!ctx || !ctx->gpu)
    return;
  AlgoGpu &gpu = *ctx->gpu;
  if (phase == SLUICE_ALGO_GPU_SYNC_BEGIN) {
    gpu.deferring = true;
    return;
  }
  if (phase == SLUICE_ALGO_GPU_SYNC_END)
    gpu.deferring = false;
  sluice_error_t error;
  sluice_error_clear(&error);
  if (gpu.bringBackAll(&error) != SLUICE_STATUS_OK)
    sluice_algo_fault(
        ctx, SLUICE_ALGO_GPU_FAULT_SITE,
        (std::string("GPU: copying the properties back: ") + error.message)
            .c_str());
}

void sluice_algo_gpu_sync_element(sluice_algo_ctx_t *ctx, int32_t property,
                                  uint32_t v) {
  if (!ctx || !ctx->gpu || property < 0 ||
      static_cast<size_t>(property) >= ctx->gpu->props.size())
    return;
  AlgoGpu &gpu = *ctx->gpu;
  DeviceProp &p = gpu.props[property];
  const uint64_t nv = ctx->view.num_vertices;
  if (!p.newer || v >= nv || nv == 0)
    return;
  // The element's bytes, host and device at the same offset; the rest of
  // the host's array stays stale (the property stays newer there).
  const size_t size = p.bytes / nv, at = size_t(v) * size;
  sluice_error_t error;
  sluice_error_clear(&error);
  if (gpu.fromDevice(static_cast<unsigned char *>(p.host) + at,
                     p.buffer.ptr + at, size, &error) != SLUICE_STATUS_OK)
    sluice_algo_fault(
        ctx, SLUICE_ALGO_GPU_FAULT_SITE,
        (std::string("GPU: copying a property element back: ") + error.message)
            .c_str());
}

uint64_t sluice_algo_gpu_launches(const sluice_algo_ctx_t *ctx) {
  return ctx && ctx->gpu ? ctx->gpu->stats.launches : 0;
}

void sluice_algo_gpu_stats(const sluice_algo_ctx_t *ctx,
                           sluice_algo_gpu_stats_t *stats) {
  if (!stats)
    return;
  *stats = ctx && ctx->gpu ? ctx->gpu->stats : sluice_algo_gpu_stats_t{};
}

void sluice_algo_gpu_set_lanes_min_degree(sluice_algo_ctx_t *ctx,
                                          double degree) {
  if (!ctx || !ctx->gpu)
    return;
  ctx->gpu->lanesMinDegree =
      degree >= 0 ? degree : SLUICE_ALGO_GPU_LANES_MIN_DEGREE;
}
