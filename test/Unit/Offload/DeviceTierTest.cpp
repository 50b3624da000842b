//===- DeviceTierTest.cpp - The tier manager's device tier in GPU memory
//---===//
//
// The MLP (and the transformer) trained with its device tensors in GPU memory
// (OffloadOptions:: cudaDevice, sluice_tier_options_t::device_cuda): parameters
// bit-identical to the all-in-memory reference after N steps, GPU memory within
// the planned device budget, and (under the fake driver) I/O faults, failed GPU
// copies and a full GPU failing the step with a clear error and leaving the
// committed state to resume from, bit for bit.
//
// Built twice: into SluiceOffloadRuntimeTests (runtime only; the real-GPU
// test SKIPs when no CUDA driver or GPU is there), and with
// SLUICE_FAKE_CUDA into SluiceOffloadFakeCudaTests, which loads the fake
// driver test/Unit/Offload/FakeCuda from the build tree (through
// $SLUICE_CUDA_DRIVER).
//
//===----------------------------------------------------------------------===//
#include "runtime/src/train/OffloadTrainer.h"
#include "runtime/src/train/Transformer.h"

#include "test/Unit/Offload/TestDir.h"
#include "test/Unit/Offload/TrainModels.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <functional>
#include <gtest/gtest.h>

using namespace sluice::train;
using sluice::test::ScratchDir;

namespace {

/// The suites' small MLP (TrainModels.h).
MlpConfig model() { return sluice::test::smallMlpConfig(); }

std::vector<std::vector<float>> referenceAfter(const MlpConfig &c, int steps) {
  ReferenceTrainer ref(c);
  for (int s = 0; s < steps; ++s)
    ref.step();
  std::vector<std::vector<float>> out;
  for (uint32_t l = 0; l < c.layers(); ++l)
    out.push_back(ref.params(l));
  return out;
}

void expectBits(OffloadTrainer &t, const std::vector<std::vector<float>> &want,
                const std::string &what) {
  for (uint32_t l = 0; l < want.size(); ++l) {
    std::vector<float> got;
    sluice_error_t err;
    ASSERT_EQ(t.params(l, got, &err), SLUICE_STATUS_OK) << err.message;
    ASSERT_EQ(got.size(), want[l].size());
    EXPECT_EQ(std::memcmp(got.data(), want[l].data(), 4 * got.size()), 0)
        << what << ": layer " << l << " differs";
  }
}

struct Engine {
  Engine() {
    sluice_io_options_t o;
    sluice_io_options_init(&o);
    o.backend = SLUICE_IO_BACKEND_THREADS;
    EXPECT_EQ(sluice_io_engine_create(&o, &engine, nullptr), SLUICE_STATUS_OK);
  }
  ~Engine() { sluice_io_engine_destroy(engine); }
  sluice_io_engine_t *engine = nullptr;
};

/// The suites' small transformer (TrainModels.h): a block's parameters
/// are 3,280 floats (4 pages).
TransformerConfig transformer() {
  return sluice::test::smallTransformerConfig();
}

/// Trains the transformer 4 steps on the GPU tier under swapAll; false
/// (with `skip`) when there is no CUDA driver or GPU.
bool transformerOnGpu(const ScratchDir &dir, sluice_io_engine_t *engine,
                      sluice_tier_stats_t &st, uint64_t &budget,
                      std::string &skip) {
  const TransformerConfig c = transformer();
  OffloadOptions o;
  o.swapDir = dir.path;
  o.engine = engine;
  o.schedule = OffloadSchedule::swapAll(c.layers(), 1);
  o.cudaDevice = true;
  o.durable = false;
  o.deviceBudget = budget = 48 * 4096;
  std::unique_ptr<OffloadTrainer> t;
  sluice_error_t err;
  sluice_status_t s = OffloadTrainer::create(TransformerModel(c), o, t, &err);
  if (s == SLUICE_STATUS_UNSUPPORTED) {
    skip = err.message;
    return false;
  }
  EXPECT_EQ(s, SLUICE_STATUS_OK) << err.message;
  if (!t)
    return true;
  InMemoryTrainer ref{TransformerModel(c)};
  for (int step = 0; step < 4; ++step) {
    float loss = 0, want = ref.step();
    EXPECT_EQ(t->step(&loss, &err), SLUICE_STATUS_OK) << err.message;
    EXPECT_EQ(std::memcmp(&loss, &want, sizeof loss), 0) << "step " << step;
  }
  sluice_tier_stats(t->manager(), &st);
  std::vector<std::vector<float>> want;
  for (uint32_t l = 0; l < c.layers(); ++l)
    want.push_back(ref.params(l));
  expectBits(*t, want, "the transformer on the GPU");
  return true;
}

OffloadOptions gpuOptions(const ScratchDir &dir, sluice_io_engine_t *engine,
                          OffloadSchedule schedule) {
  OffloadOptions o;
  o.swapDir = dir.path;
  o.engine = engine;
  o.schedule = std::move(schedule);
  o.cudaDevice = true;
  o.durable = false;
  // Largest layer: 48*40+40 floats = 7840 B -> 8 KiB pages.
  o.deviceBudget = 10 * 8192;
  return o;
}

#ifdef SLUICE_FAKE_CUDA
/// The fake driver (built next to this test): the tier manager loads it
/// through $SLUICE_CUDA_DRIVER, the test reaches its hooks with dlsym.
struct Fake {
  Fake() {
    setenv("SLUICE_CUDA_DRIVER", SLUICE_FAKE_CUDA_PATH, 1);
    handle = dlopen(SLUICE_FAKE_CUDA_PATH, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      return;
    stats = reinterpret_cast<void (*)(unsigned long long *)>(
        dlsym(handle, "fakecuda_stats"));
    setLimit = reinterpret_cast<void (*)(unsigned long long)>(
        dlsym(handle, "fakecuda_set_limit"));
    failCopy = reinterpret_cast<void (*)(unsigned long long)>(
        dlsym(handle, "fakecuda_fail_copy"));
    resetPeak = reinterpret_cast<void (*)()>(dlsym(handle, "fakecuda_reset_peak"));
  }
  bool ok() const { return stats && setLimit && failCopy && resetPeak; }
  void *handle = nullptr;
  void (*stats)(unsigned long long *) = nullptr;
  void (*setLimit)(unsigned long long) = nullptr;
  void (*failCopy)(unsigned long long) = nullptr;
  void (*resetPeak)() = nullptr;
};

/// Skips where the build tree (and so the fake) is not there, e.g. a
/// staged copy of the binary on another machine.
#define REQUIRE_FAKE(fake)                                                     \
  if (!(fake).handle)                                                          \
    GTEST_SKIP() << "the fake driver " SLUICE_FAKE_CUDA_PATH " is not here";   \
  ASSERT_TRUE((fake).ok()) << SLUICE_FAKE_CUDA_PATH " lacks the test hooks"

TEST(FakeCudaTier, BitExactWithTensorsInGpuMemoryUnderTheBudget) {
  Fake fake;
  REQUIRE_FAKE(fake);
  const MlpConfig c = model();
  auto want = referenceAfter(c, 4);
  for (bool swapEverything : {true, false}) {
    ScratchDir dir;
    Engine e;
    OffloadOptions o = gpuOptions(dir, e.engine,
                                  swapEverything
                                      ? OffloadSchedule::swapAll(3, 1)
                                      : OffloadSchedule::keepAll(3));
    if (!swapEverything)
      o.deviceBudget = UINT64_MAX;
    fake.resetPeak();
    std::unique_ptr<OffloadTrainer> t;
    sluice_error_t err;
    ASSERT_EQ(OffloadTrainer::create(c, o, t, &err), SLUICE_STATUS_OK)
        << err.message;
    for (int s = 0; s < 4; ++s)
      ASSERT_EQ(t->step(nullptr, &err), SLUICE_STATUS_OK) << err.message;
    unsigned long long f[4];
    fake.stats(f);
    sluice_tier_stats_t st;
    sluice_tier_stats(t->manager(), &st);
    // The driver saw what the tier manager reports.
    EXPECT_EQ(st.gpu_allocated, f[0]);
    EXPECT_GT(st.gpu_bytes_h2d, 0u);
    EXPECT_GT(st.gpu_bytes_d2h, 0u);
    EXPECT_LE(f[1], st.device_peak);
    if (swapEverything) {
      EXPECT_LE(f[1], o.deviceBudget) << "GPU memory beyond the budget";
    } else {
      // Everything stays: the parameters of every layer live in GPU memory
      // between steps (the device tier holds params, grads, activations).
      uint64_t params = 0;
      for (uint32_t l = 0; l < c.layers(); ++l)
        params += 4 * c.paramCount(l);
      EXPECT_GE(f[0], params);
      for (uint32_t l = 0; l < c.layers(); ++l)
        EXPECT_EQ(sluice_tier_tensor_state(t->manager(),
                                           t->tensor({l, Slot::Param})),
                  SLUICE_TENSOR_RESIDENT);
    }
    expectBits(*t, want, swapEverything ? "swapAll on the GPU" : "keepAll on the GPU");
    t.reset();
    fake.stats(f);
    EXPECT_EQ(f[0], 0u) << "GPU memory left allocated";
  }
}

TEST(FakeCudaTier, TransformerBitExactWithTensorsInGpuMemory) {
  Fake fake;
  REQUIRE_FAKE(fake);
  ScratchDir dir;
  Engine e;
  fake.resetPeak();
  sluice_tier_stats_t st;
  uint64_t budget = 0;
  std::string skip;
  ASSERT_TRUE(transformerOnGpu(dir, e.engine, st, budget, skip)) << skip;
  unsigned long long f[4];
  fake.stats(f);
  EXPECT_GT(st.gpu_bytes_h2d, 0u);
  EXPECT_GT(st.gpu_bytes_d2h, 0u);
  EXPECT_LE(f[1], budget) << "GPU memory beyond the budget";
  EXPECT_GT(f[1], 0u);
}

/// Step 3 fails by `inject`; the committed state of step 2 is intact and
/// training resumes to the reference bits.
void failThenResume(const std::function<void(sluice_io_engine_t *)> &inject,
                    const std::function<void(sluice_io_engine_t *)> &clear,
                    sluice_status_t expected, const std::string &message) {
  const MlpConfig c = model();
  ScratchDir dir;
  Engine e;
  OffloadOptions o = gpuOptions(dir, e.engine, OffloadSchedule::swapAll(3, 1));
  std::unique_ptr<OffloadTrainer> t;
  sluice_error_t err;
  ASSERT_EQ(OffloadTrainer::create(c, o, t, &err), SLUICE_STATUS_OK)
      << err.message;
  for (int s = 0; s < 2; ++s)
    ASSERT_EQ(t->step(nullptr, &err), SLUICE_STATUS_OK) << err.message;
  inject(e.engine);
  sluice_status_t s = t->step(nullptr, &err);
  clear(e.engine);
  ASSERT_EQ(s, expected) << err.message;
  std::string m = err.message;
  EXPECT_NE(m.find("training step 3 failed (the committed state of step 2 is "
                   "intact)"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find(message), std::string::npos) << m;
  t.reset();
  ASSERT_EQ(OffloadTrainer::restore(c, o, t, &err), SLUICE_STATUS_OK)
      << err.message;
  expectBits(*t, referenceAfter(c, 2), "committed state");
  for (int step = 3; step <= 4; ++step)
    ASSERT_EQ(t->step(nullptr, &err), SLUICE_STATUS_OK) << err.message;
  expectBits(*t, referenceAfter(c, 4), "resumed");
}

TEST(FakeCudaTier, FaultsFailTheStepAndCorruptNothing) {
  Fake fake;
  REQUIRE_FAKE(fake);
  // I/O faults, as without a GPU.
  for (sluice_io_fault_t fault : {SLUICE_IO_FAULT_EIO, SLUICE_IO_FAULT_ENOSPC})
    for (uint64_t nth : {0, 3, 9})
      failThenResume(
          [&](sluice_io_engine_t *e) {
            sluice_io_engine_inject_fault(e, nth, fault);
          },
          [](sluice_io_engine_t *e) {
            sluice_io_engine_inject_fault(e, 0, SLUICE_IO_FAULT_NONE);
          },
          SLUICE_STATUS_IO_ERROR, "offset");
  // A failed GPU copy, in either direction.
  for (unsigned long long nth : {1ull, 4ull, 11ull})
    failThenResume([&](sluice_io_engine_t *) { fake.failCopy(nth); },
                   [&](sluice_io_engine_t *) { fake.failCopy(0); },
                   SLUICE_STATUS_IO_ERROR, "an illegal memory access");
  // A full GPU.
  failThenResume([&](sluice_io_engine_t *) { fake.setLimit(8192); },
                 [&](sluice_io_engine_t *) { fake.setLimit(~0ull); },
                 SLUICE_STATUS_OUT_OF_MEMORY, "cuMemAlloc failed");
}
#endif

/// The real GPU (runtime-only binary; staged on the GPU machine).
TEST(GpuTier, BitExactWithTensorsInGpuMemory) {
#ifdef SLUICE_FAKE_CUDA
  GTEST_SKIP() << "covered by FakeCudaTier under the fake driver";
#endif
  const MlpConfig c = model();
  ScratchDir dir;
  Engine e;
  OffloadOptions o = gpuOptions(dir, e.engine, OffloadSchedule::swapAll(3, 1));
  std::unique_ptr<OffloadTrainer> t;
  sluice_error_t err;
  sluice_status_t s = OffloadTrainer::create(c, o, t, &err);
  if (s == SLUICE_STATUS_UNSUPPORTED)
    GTEST_SKIP() << err.message;
  ASSERT_EQ(s, SLUICE_STATUS_OK) << err.message;
  for (int step = 0; step < 4; ++step)
    ASSERT_EQ(t->step(nullptr, &err), SLUICE_STATUS_OK) << err.message;
  sluice_tier_stats_t st;
  sluice_tier_stats(t->manager(), &st);
  EXPECT_GT(st.gpu_peak, 0u);
  EXPECT_LE(st.gpu_peak, o.deviceBudget);
  EXPECT_GT(st.gpu_bytes_h2d, 0u);
  expectBits(*t, referenceAfter(c, 4), "on the GPU");
}

TEST(GpuTier, TransformerBitExactWithTensorsInGpuMemory) {
#ifdef SLUICE_FAKE_CUDA
  GTEST_SKIP() << "covered by FakeCudaTier under the fake driver";
#endif
  ScratchDir dir;
  Engine e;
  sluice_tier_stats_t st;
  uint64_t budget = 0;
  std::string skip;
  if (!transformerOnGpu(dir, e.engine, st, budget, skip))
    GTEST_SKIP() << skip;
  EXPECT_GT(st.gpu_peak, 0u);
  EXPECT_LE(st.gpu_peak, budget);
}

} // namespace
