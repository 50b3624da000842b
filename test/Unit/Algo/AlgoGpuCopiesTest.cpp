//===- AlgoGpuCopiesTest.cpp - what a GPU pass copies, runtime only -------===//
//
// sluice_algo_gpu_attach_host with kernels written here by hand (C++ as
// sluice_algo_host_kernel_t, their `_info` arrays as graph-to-gpu writes
// them): the copies of runtime/src/algo/AlgoGpu.cpp without a compiler or
// a GPU. A property read on the device follows the host's writes between
// passes and is not copied while they leave it alone; the block carries
// the environment, the list and the bitmap read; a new frontier of more
// than the first copy's vertices comes back whole; a kernel of a warp per
// item gets 32 threads per item and no more items. (The compiled kernels
// run through the same code in SluiceAlgoGpuEmulationTests.)
//
//===----------------------------------------------------------------------===//
#include "sluice/algo.h"
#include "sluice/algo_gpu.h"
#include "sluice/graph.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

namespace {

constexpr uint64_t kVertices = 5000;

// The kernels' `_info`: {version, env slots, locals, threads per item,
// properties, each property's bytes | read | written}.
constexpr int64_t kRead = SLUICE_ALGO_GPU_PROP_READ;
constexpr int64_t kWritten = SLUICE_ALGO_GPU_PROP_WRITTEN;
const int64_t kAddInfo[] = {SLUICE_ALGO_GPU_INFO_VERSION,
                            SLUICE_ALGO_ENV_CAPTURED + 1,
                            0,
                            1,
                            2,
                            8 | kRead | kWritten,
                            8 | kRead};
const int64_t kMarkInfo[] = {
    SLUICE_ALGO_GPU_INFO_VERSION, SLUICE_ALGO_ENV_CAPTURED, 0, 1, 2, 8, 8};
const int64_t kLanesInfo[] = {SLUICE_ALGO_GPU_INFO_VERSION,
                              SLUICE_ALGO_ENV_CAPTURED,
                              0,
                              SLUICE_ALGO_GPU_LANES,
                              2,
                              8 | kRead | kWritten,
                              8};

// x[v] += 1 (a thread per item), and its twin `inc_lanes` (lanesKernel);
// `odd` has a twin that is not a warp per item.
const int64_t kIncInfo[] = {SLUICE_ALGO_GPU_INFO_VERSION,
                            SLUICE_ALGO_ENV_CAPTURED,
                            0,
                            1,
                            2,
                            8 | kRead | kWritten,
                            8};

const uint64_t *envOf(void *env) { return static_cast<const uint64_t *>(env); }
template <typename T> T *propOf(void *env, int k) {
  auto *table = reinterpret_cast<void **>(envOf(env)[SLUICE_ALGO_ENV_PROPS]);
  return static_cast<T *>(table[k]);
}

/// x[v] += y[v] + captured, for each item v.
void addKernel(const sluice_algo_gpu_ctx_t *, void *env, uint64_t count,
               int64_t thread) {
  if (uint64_t(thread) >= count)
    return;
  int64_t captured = int64_t(envOf(env)[SLUICE_ALGO_ENV_CAPTURED]);
  propOf<int64_t>(env, 0)[thread] += propOf<int64_t>(env, 1)[thread] + captured;
}

/// Inserts the item's vertex (list[i] with a list, i otherwise) into the
/// new frontier when the bitmap (if any) has it and it is a multiple of 3.
void markKernel(const sluice_algo_gpu_ctx_t *, void *env, uint64_t count,
                int64_t thread) {
  if (uint64_t(thread) >= count)
    return;
  const uint64_t *slots = envOf(env);
  auto *list = reinterpret_cast<const uint32_t *>(slots[SLUICE_ALGO_ENV_LIST]);
  auto *bits =
      reinterpret_cast<const uint64_t *>(slots[SLUICE_ALGO_ENV_BITMAP]);
  uint32_t v = list ? list[thread] : uint32_t(thread);
  if (bits && !(bits[v / 64] >> (v % 64) & 1))
    return;
  if (v % 3)
    return;
  auto *f = reinterpret_cast<sluice_algo_gpu_frontier_t *>(
      slots[SLUICE_ALGO_ENV_OUT]);
  uint64_t bit = uint64_t(1) << (v % 64);
  if (f->bits[v / 64] & bit)
    return;
  f->bits[v / 64] |= bit;
  f->list[(*f->count)++] = v;
}

/// A warp per item: each lane adds 1 << lane to x[item].
void lanesKernel(const sluice_algo_gpu_ctx_t *, void *env, uint64_t count,
                 int64_t thread) {
  uint64_t item = uint64_t(thread) / SLUICE_ALGO_GPU_LANES;
  uint64_t lane = uint64_t(thread) % SLUICE_ALGO_GPU_LANES;
  if (item >= count)
    return;
  propOf<int64_t>(env, 0)[item] += int64_t(1) << lane;
}

/// x[item] += 1.
void incKernel(const sluice_algo_gpu_ctx_t *, void *env, uint64_t count,
               int64_t thread) {
  if (uint64_t(thread) < count)
    propOf<int64_t>(env, 0)[thread] += 1;
}

void *symbol(void *, const char *name) {
  static const std::map<std::string, void *> symbols = {
      {"add", reinterpret_cast<void *>(&addKernel)},
      {"add_info", const_cast<int64_t *>(kAddInfo)},
      {"mark", reinterpret_cast<void *>(&markKernel)},
      {"mark_info", const_cast<int64_t *>(kMarkInfo)},
      {"lanes", reinterpret_cast<void *>(&lanesKernel)},
      {"lanes_info", const_cast<int64_t *>(kLanesInfo)},
      {"inc", reinterpret_cast<void *>(&incKernel)},
      {"inc_info", const_cast<int64_t *>(kIncInfo)},
      {"inc_lanes", reinterpret_cast<void *>(&lanesKernel)},
      {"inc_lanes_info", const_cast<int64_t *>(kLanesInfo)},
      {"odd", reinterpret_cast<void *>(&incKernel)},
      {"odd_info", const_cast<int64_t *>(kIncInfo)},
      {"odd_lanes", reinterpret_cast<void *>(&incKernel)},
      {"odd_lanes_info", const_cast<int64_t *>(kIncInfo)}};
  auto it = symbols.find(name);
  return it == symbols.end() ? nullptr : it->second;
}

// The CPU functions the kernels stand for (never run: bound).
void addFn(sluice_algo_ctx_t *, void *, uint64_t, uint64_t) { FAIL(); }
void markFn(sluice_algo_ctx_t *, void *, uint64_t, uint64_t) { FAIL(); }
void lanesFn(sluice_algo_ctx_t *, void *, uint64_t, uint64_t) { FAIL(); }
void incFn(sluice_algo_ctx_t *, void *, uint64_t, uint64_t) { FAIL(); }
void oddFn(sluice_algo_ctx_t *, void *, uint64_t, uint64_t) { FAIL(); }

class AlgoGpuCopies : public ::testing::Test {
protected:
  void SetUp() override {
    std::vector<uint32_t> src, dst;
    for (uint32_t v = 0; v + 1 < kVertices; ++v)
      src.push_back(v), dst.push_back(v + 1);
    sluice_error_t error;
    sluice_graph_t *g = nullptr;
    ASSERT_EQ(sluice_graph_create_from_edges(kVertices, src.size(), src.data(),
                                             dst.data(), nullptr, nullptr,
                                             nullptr, 0, &g, &error),
              SLUICE_STATUS_OK)
        << error.message;
    graph.reset(g);
    sluice_algo_options_t options;
    sluice_algo_options_init(&options);
    options.quiet = 1;
    options.threads = 2;
    sluice_algo_ctx_t *c = nullptr;
    ASSERT_EQ(sluice_algo_ctx_create(g, &options, &c, &error),
              SLUICE_STATUS_OK);
    ctx.reset(c);
    ASSERT_EQ(sluice_algo_gpu_attach_host(c, symbol, nullptr, &error),
              SLUICE_STATUS_OK)
        << error.message;
    for (auto [fn, name] :
         {std::pair{&addFn, "add"}, std::pair{&markFn, "mark"},
          std::pair{&lanesFn, "lanes"}})
      ASSERT_EQ(sluice_algo_gpu_bind(c, fn, name, &error), SLUICE_STATUS_OK)
          << name << ": " << error.message;
  }
  /// A pass of `fn` over `n` items with `slots` (the environment).
  void pass(sluice_algo_range_fn_t fn, uint64_t n, std::vector<uint64_t> &env) {
    sluice_algo_parallel_for(ctx.get(), n, SLUICE_ALGO_STATIC, 1, fn,
                             env.data());
    const char *message = nullptr;
    ASSERT_EQ(sluice_algo_fault_site(ctx.get(), &message), -1) << message;
  }
  sluice_algo_gpu_stats_t stats() const {
    sluice_algo_gpu_stats_t s;
    sluice_algo_gpu_stats(ctx.get(), &s);
    return s;
  }
  std::unique_ptr<sluice_graph_t, void (*)(sluice_graph_t *)> graph{
      nullptr, sluice_graph_release};
  std::unique_ptr<sluice_algo_ctx_t, void (*)(sluice_algo_ctx_t *)> ctx{
      nullptr, sluice_algo_ctx_release};
};

TEST_F(AlgoGpuCopies, APropertyFollowsTheHostAndStaysWhileUntouched) {
  std::vector<int64_t> x(kVertices, 0), y(kVertices, 1);
  void *props[] = {x.data(), y.data()};
  std::vector<uint64_t> env(SLUICE_ALGO_ENV_CAPTURED + 1, 0);
  env[SLUICE_ALGO_ENV_PROPS] = reinterpret_cast<uint64_t>(props);
  env[SLUICE_ALGO_ENV_CAPTURED] = 10;
  pass(addFn, kVertices, env);
  EXPECT_EQ(x, std::vector<int64_t>(kVertices, 11));
  const uint64_t kept = stats().properties_kept;
  // Untouched by the host: neither goes up again.
  pass(addFn, kVertices, env);
  EXPECT_EQ(x, std::vector<int64_t>(kVertices, 22));
  EXPECT_EQ(stats().properties_kept, kept + 2);
  // The host writes one element of each between passes: both go up.
  y[4321] = 1000;
  x[7] = -5;
  pass(addFn, kVertices, env);
  EXPECT_EQ(x[4321], 22 + 1000 + 10);
  EXPECT_EQ(x[7], -5 + 1 + 10);
  EXPECT_EQ(x[8], 33);
  EXPECT_EQ(stats().properties_kept, kept + 2);
  // A captured value travels in the block every pass.
  env[SLUICE_ALGO_ENV_CAPTURED] = 0;
  pass(addFn, kVertices, env);
  EXPECT_EQ(x[8], 34);
  EXPECT_EQ(stats().launches, 4u);
  // One block up a pass (plus the first copies of x and y and the view at
  // attach), x back.
  EXPECT_EQ(stats().copies_from_device, 4u);
}

// Between the host code's BEGIN and END (what compiled algorithms call), a
// written property stays on the device: the host sees it only after a
// HOST or END sync, and the next pass neither copies it up nor back.
TEST_F(AlgoGpuCopies, WrittenPropertiesComeBackWhenTheHostCodeAsks) {
  std::vector<int64_t> x(kVertices, 0), y(kVertices, 1);
  void *props[] = {x.data(), y.data()};
  std::vector<uint64_t> env(SLUICE_ALGO_ENV_CAPTURED + 1, 0);
  env[SLUICE_ALGO_ENV_PROPS] = reinterpret_cast<uint64_t>(props);
  env[SLUICE_ALGO_ENV_CAPTURED] = 10;
  sluice_algo_gpu_sync(ctx.get(), SLUICE_ALGO_GPU_SYNC_BEGIN);
  pass(addFn, kVertices, env);
  pass(addFn, kVertices, env);
  EXPECT_EQ(x, std::vector<int64_t>(kVertices, 0)); // still on the device
  EXPECT_EQ(stats().copies_from_device, 0u);
  EXPECT_EQ(stats().properties_deferred, 2u);
  // One element read by the host code: that element comes back alone.
  sluice_algo_gpu_sync_element(ctx.get(), 0, 4999);
  EXPECT_EQ(x[4999], 22);
  EXPECT_EQ(x[4998], 0);
  sluice_algo_gpu_sync_element(ctx.get(), 1, 3);    // y: not on the device
  sluice_algo_gpu_sync_element(ctx.get(), 0, 5000); // past the end: nothing
  sluice_algo_gpu_sync_element(ctx.get(), 7, 0);    // no such property
  EXPECT_EQ(stats().copies_from_device, 1u);
  sluice_algo_gpu_sync(ctx.get(), SLUICE_ALGO_GPU_SYNC_HOST);
  EXPECT_EQ(x, std::vector<int64_t>(kVertices, 22));
  EXPECT_EQ(stats().copies_from_device, 2u);
  // The host writes after its sync: the next pass takes it up.
  x[9] = 100;
  pass(addFn, kVertices, env);
  sluice_algo_gpu_sync(ctx.get(), SLUICE_ALGO_GPU_SYNC_END);
  EXPECT_EQ(x[9], 111);
  EXPECT_EQ(x[10], 33);
  // After END each pass brings its writes back again.
  pass(addFn, kVertices, env);
  EXPECT_EQ(x[10], 44);
  EXPECT_EQ(stats().copies_from_device, 4u);
  // Without a GPU (or a context) the call does nothing.
  sluice_algo_gpu_sync(nullptr, SLUICE_ALGO_GPU_SYNC_END);
}

TEST_F(AlgoGpuCopies, ListsAndBitmapsGoUpAndLongFrontiersComeBackWhole) {
  std::vector<int64_t> a(kVertices), b(kVertices);
  void *props[] = {a.data(), b.data()};
  std::vector<uint64_t> env(SLUICE_ALGO_ENV_CAPTURED, 0);
  env[SLUICE_ALGO_ENV_PROPS] = reinterpret_cast<uint64_t>(props);
  auto collect = [&](uint64_t n) {
    sluice_frontier_t *out = sluice_algo_frontier_new(ctx.get());
    env[SLUICE_ALGO_ENV_OUT] = reinterpret_cast<uint64_t>(out);
    pass(markFn, n, env);
    sluice_algo_frontier_seal(out);
    const uint32_t *list = sluice_algo_frontier_list(out);
    std::vector<uint32_t> got(list, list + sluice_algo_frontier_size(out));
    sluice_algo_frontier_release(out);
    return got;
  };
  // Every vertex: 1,667 multiples of 3, more than the first copy's 1,024.
  std::vector<uint32_t> every;
  for (uint32_t v = 0; v < kVertices; v += 3)
    every.push_back(v);
  EXPECT_EQ(collect(kVertices), every);
  // A list read: 4999, 4998, ... 2000.
  std::vector<uint32_t> list;
  for (uint32_t v = kVertices - 1; v >= 2000; --v)
    list.push_back(v);
  env[SLUICE_ALGO_ENV_LIST] = reinterpret_cast<uint64_t>(list.data());
  std::vector<uint32_t> fromList;
  for (uint32_t v = 2001; v < kVertices; v += 3)
    fromList.push_back(v);
  EXPECT_EQ(collect(list.size()), fromList);
  env[SLUICE_ALGO_ENV_LIST] = 0;
  // A bitmap read: vertices 0..999 only.
  std::vector<uint64_t> bits((kVertices + 63) / 64, 0);
  for (uint32_t v = 0; v < 1000; ++v)
    bits[v / 64] |= uint64_t(1) << (v % 64);
  env[SLUICE_ALGO_ENV_BITMAP] = reinterpret_cast<uint64_t>(bits.data());
  std::vector<uint32_t> fromBits;
  for (uint32_t v = 0; v < 1000; v += 3)
    fromBits.push_back(v);
  EXPECT_EQ(collect(kVertices), fromBits);
}

TEST_F(AlgoGpuCopies, AWarpPerItemRunsThirtyTwoLanesPerItem) {
  std::vector<int64_t> x(kVertices, 0), unused(kVertices, 0);
  void *props[] = {x.data(), unused.data()};
  std::vector<uint64_t> env(SLUICE_ALGO_ENV_CAPTURED, 0);
  env[SLUICE_ALGO_ENV_PROPS] = reinterpret_cast<uint64_t>(props);
  // 77 items: 2,464 threads, 10 blocks of 256; the threads past item 76
  // find no item.
  pass(lanesFn, 77, env);
  for (uint64_t v = 0; v < kVertices; ++v)
    ASSERT_EQ(x[v], v < 77 ? int64_t(0xffffffff) : 0) << v;
}

// A kernel K bound with its twin K_lanes: the twin runs from the average
// degree threshold (the path graph's is 4,999 / 5,000), the default 8 runs
// K; a twin that is not a warp per item is refused at bind.
TEST_F(AlgoGpuCopies, ATwinWithAWarpPerItemRunsFromTheDegreeThreshold) {
  sluice_error_t error;
  ASSERT_EQ(sluice_algo_gpu_bind(ctx.get(), incFn, "inc", &error),
            SLUICE_STATUS_OK)
      << error.message;
  std::vector<int64_t> x(kVertices, 0), unused(kVertices, 0);
  void *props[] = {x.data(), unused.data()};
  std::vector<uint64_t> env(SLUICE_ALGO_ENV_CAPTURED, 0);
  env[SLUICE_ALGO_ENV_PROPS] = reinterpret_cast<uint64_t>(props);
  pass(incFn, 10, env); // degree 1 < 8: a thread per item
  EXPECT_EQ(stats().lanes_launches, 0u);
  sluice_algo_gpu_set_lanes_min_degree(ctx.get(), 0.5);
  pass(incFn, 10, env); // the twin: each lane adds 1 << lane
  EXPECT_EQ(stats().lanes_launches, 1u);
  sluice_algo_gpu_set_lanes_min_degree(ctx.get(), -1); // the default again
  pass(incFn, 10, env);
  EXPECT_EQ(stats().lanes_launches, 1u);
  for (uint64_t v = 0; v < kVertices; ++v)
    ASSERT_EQ(x[v], v < 10 ? 2 + int64_t(0xffffffff) : 0) << v;
  EXPECT_EQ(sluice_algo_gpu_bind(ctx.get(), oddFn, "odd", &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(error.message, "the kernel 'odd_lanes' is not a warp per item "
                              "(threads per item: 1)");
}

// A round over a frontier's list is judged by its vertices' out-degrees:
// on a star (0 -> 1..100, average degree 0.99) the list {0} (degree 100)
// runs the twin, the list {5} (degree 0) the kernel.
TEST(AlgoGpuCopiesTwin, AFrontierListIsJudgedByItsVerticesDegrees) {
  std::vector<uint32_t> src(100, 0), dst(100);
  std::iota(dst.begin(), dst.end(), 1u);
  sluice_graph_t *g = nullptr;
  sluice_error_t error;
  ASSERT_EQ(sluice_graph_create_from_edges(101, 100, src.data(), dst.data(),
                                           nullptr, nullptr, nullptr, 0, &g,
                                           &error),
            SLUICE_STATUS_OK);
  std::unique_ptr<sluice_graph_t, void (*)(sluice_graph_t *)> graph(
      g, sluice_graph_release);
  sluice_algo_options_t options;
  sluice_algo_options_init(&options);
  options.quiet = 1;
  sluice_algo_ctx_t *ctx = nullptr;
  ASSERT_EQ(sluice_algo_ctx_create(g, &options, &ctx, &error),
            SLUICE_STATUS_OK);
  std::unique_ptr<sluice_algo_ctx_t, void (*)(sluice_algo_ctx_t *)> owner(
      ctx, sluice_algo_ctx_release);
  ASSERT_EQ(sluice_algo_gpu_attach_host(ctx, symbol, nullptr, &error),
            SLUICE_STATUS_OK);
  ASSERT_EQ(sluice_algo_gpu_bind(ctx, incFn, "inc", &error), SLUICE_STATUS_OK)
      << error.message;
  std::vector<int64_t> x(101, 0), unused(101, 0);
  void *props[] = {x.data(), unused.data()};
  std::vector<uint64_t> env(SLUICE_ALGO_ENV_CAPTURED, 0);
  env[SLUICE_ALGO_ENV_PROPS] = reinterpret_cast<uint64_t>(props);
  uint32_t hub = 0, leaf = 5;
  env[SLUICE_ALGO_ENV_LIST] = reinterpret_cast<uint64_t>(&hub);
  sluice_algo_parallel_for(ctx, 1, SLUICE_ALGO_STATIC, 1, incFn, env.data());
  sluice_algo_gpu_stats_t st;
  sluice_algo_gpu_stats(ctx, &st);
  EXPECT_EQ(st.lanes_launches, 1u);
  env[SLUICE_ALGO_ENV_LIST] = reinterpret_cast<uint64_t>(&leaf);
  sluice_algo_parallel_for(ctx, 1, SLUICE_ALGO_STATIC, 1, incFn, env.data());
  sluice_algo_gpu_stats(ctx, &st);
  EXPECT_EQ(st.lanes_launches, 1u);
  EXPECT_EQ(st.launches, 2u);
  ASSERT_EQ(sluice_algo_fault_site(ctx, nullptr), -1);
  EXPECT_EQ(x[0], int64_t(0xffffffff) + 1); // the twin's lanes, then one
}

TEST(AlgoGpuCopiesInfo, AnUnknownThreadsPerItemIsRefused) {
  static const int64_t bad[] = {SLUICE_ALGO_GPU_INFO_VERSION,
                                SLUICE_ALGO_ENV_CAPTURED, 0, 7, 0};
  auto lookup = [](void *, const char *name) -> void * {
    if (std::string(name) == "k_info")
      return const_cast<int64_t *>(bad);
    if (std::string(name) == "k")
      return reinterpret_cast<void *>(&lanesKernel);
    return nullptr;
  };
  const uint32_t src[] = {0}, dst[] = {1};
  sluice_graph_t *g = nullptr;
  sluice_error_t error;
  ASSERT_EQ(sluice_graph_create_from_edges(2, 1, src, dst, nullptr, nullptr,
                                           nullptr, 0, &g, &error),
            SLUICE_STATUS_OK);
  std::unique_ptr<sluice_graph_t, void (*)(sluice_graph_t *)> graph(
      g, sluice_graph_release);
  sluice_algo_options_t options;
  sluice_algo_options_init(&options);
  options.quiet = 1;
  sluice_algo_ctx_t *ctx = nullptr;
  ASSERT_EQ(sluice_algo_ctx_create(g, &options, &ctx, &error),
            SLUICE_STATUS_OK);
  std::unique_ptr<sluice_algo_ctx_t, void (*)(sluice_algo_ctx_t *)> owner(
      ctx, sluice_algo_ctx_release);
  ASSERT_EQ(sluice_algo_gpu_attach_host(ctx, lookup, nullptr, &error),
            SLUICE_STATUS_OK);
  EXPECT_EQ(sluice_algo_gpu_bind(ctx, lanesFn, "k", &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(error.message,
               "the global 'k_info' is not a kernel description of version 3 "
               "(compiled by another sluicec?)");
}

} // namespace
