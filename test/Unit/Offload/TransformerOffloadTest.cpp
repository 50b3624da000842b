//===- TransformerOffloadTest.cpp - The transformer under offload schedules
//===//
//
// The transformer of runtime/src/train/Transformer.h trained by the offload
// trainer, with its parameters, gradients, Adam moments and saved layer
// inputs moved between the emulated device, host memory and swap files:
// parameters and every loss bit-identical (memcmp) to InMemoryTrainer
// under keepAll, swapAll (lookahead 0, 1, 2), a mixed hand-written schedule
// (embedding, head and Adam moments resident, blocks swapped), an
// interleaved one (each optimizer entry right after its backward) and a
// tight device budget; the MLP trainer's fault tests on the transformer:
// EIO at every request of a step, ENOSPC and zero transfers at a spread,
// short transfers retried, a commit whose fsync fails, a corrupt swap file.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/train/OffloadTrainer.h"
#include "runtime/src/train/Transformer.h"

#include "test/Unit/Offload/IoBackends.h"
#include "test/Unit/Offload/TestDir.h"
#include "test/Unit/Support/SyscallFaults.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <gtest/gtest.h>

using namespace sluice::train;
using sluice::test::ioBackends;
using sluice::test::ScratchDir;

namespace {

TransformerConfig smallTransformer() {
  TransformerConfig c;
  c.vocab = 13;
  c.seq = 8;
  c.dModel = 16;
  c.heads = 2;
  c.blocks = 2;
  c.batch = 3;
  c.adam.learningRate = 5e-3f;
  c.seed = 5;
  return c;
}

struct Engine {
  explicit Engine(sluice_io_backend_t backend) {
    sluice_io_options_t o;
    sluice_io_options_init(&o);
    o.backend = backend;
    o.block_size = 8192;
    EXPECT_EQ(sluice_io_engine_create(&o, &engine, nullptr), SLUICE_STATUS_OK);
  }
  ~Engine() { sluice_io_engine_destroy(engine); }
  sluice_io_engine_t *engine = nullptr;
};

OffloadOptions optionsFor(const ScratchDir &dir, sluice_io_engine_t *engine,
                          OffloadSchedule schedule) {
  OffloadOptions o;
  o.swapDir = dir.path;
  o.engine = engine;
  o.schedule = std::move(schedule);
  return o;
}

using Params = std::vector<std::vector<float>>;

/// The in-memory parameters after 0..steps steps, and the losses.
std::vector<Params> referenceRun(const TransformerConfig &c, int steps,
                                 std::vector<float> *losses = nullptr) {
  InMemoryTrainer ref{TransformerModel(c)};
  std::vector<Params> out;
  for (int s = 0; s <= steps; ++s) {
    if (s) {
      float loss = ref.step();
      if (losses)
        losses->push_back(loss);
    }
    Params p;
    for (uint32_t l = 0; l < c.layers(); ++l)
      p.push_back(ref.params(l));
    out.push_back(p);
  }
  return out;
}

void expectBitEqual(OffloadTrainer &t, const Params &want,
                    const std::string &what) {
  for (uint32_t l = 0; l < want.size(); ++l) {
    std::vector<float> got;
    sluice_error_t err;
    ASSERT_EQ(t.params(l, got, &err), SLUICE_STATUS_OK) << err.message;
    ASSERT_EQ(got.size(), want[l].size());
    EXPECT_EQ(
        std::memcmp(got.data(), want[l].data(), sizeof(float) * got.size()), 0)
        << what << ": layer " << l << " differs";
  }
}

bool contains(const std::vector<TensorRef> &v, TensorRef r) {
  return std::find(v.begin(), v.end(), r) != v.end();
}

/// Every tensor swapped out after its use and prefetched one entry ahead,
/// with each optimizer entry right after its layer's backward (the order
/// of active gradient offloading), written out entry by entry.
OffloadSchedule interleaved(uint32_t L) {
  OffloadSchedule s;
  for (uint32_t l = 0; l < L; ++l)
    s.entries.push_back({l, Phase::Forward, {}, {}, {}, {}, true});
  for (uint32_t l = L; l-- > 0;) {
    s.entries.push_back({l, Phase::Backward, {}, {}, {}, {}, true});
    s.entries.push_back({l, Phase::Optimizer, {}, {}, {}, {}, true});
  }
  const size_t n = s.entries.size();
  auto used = [&](size_t k) {
    std::vector<TensorRef> reads, writes;
    entryTensors(s.entries[k].layer, s.entries[k].phase, L, reads, writes);
    for (TensorRef w : writes)
      if (!contains(reads, w))
        reads.push_back(w);
    return reads;
  };
  for (size_t k = 0; k < n; ++k) {
    ScheduleEntry &e = s.entries[k];
    for (size_t j = k; j <= k + 1 && j < n; ++j)
      for (TensorRef r : used(j))
        if (!contains(e.prefetch, r))
          e.prefetch.push_back(r);
    std::vector<TensorRef> next =
        k + 1 < n ? used(k + 1) : std::vector<TensorRef>();
    for (TensorRef r : used(k)) {
      bool dead = (e.phase == Phase::Backward && r.slot == Slot::Activation) ||
                  (e.phase == Phase::Optimizer && r.slot == Slot::Grad);
      if (contains(next, r))
        e.keep.push_back(r);
      else
        (dead ? e.discard : e.swapOut).push_back(r);
    }
  }
  return s;
}

/// swapAll with the embedding's and the head's parameters and every Adam
/// moment kept in memory (moments homed on the host tier): only the blocks'
/// parameters, the gradients and the saved inputs move.
OffloadSchedule mixed(uint32_t L) {
  OffloadSchedule s = OffloadSchedule::swapAll(L, 1);
  auto stays = [&](TensorRef r) {
    return (r.slot == Slot::Param && (r.layer == 0 || r.layer + 1 == L)) ||
           r.slot == Slot::AdamM || r.slot == Slot::AdamV;
  };
  for (ScheduleEntry &e : s.entries) {
    for (std::vector<TensorRef> *list : {&e.prefetch, &e.swapOut})
      list->erase(std::remove_if(list->begin(), list->end(), stays),
                  list->end());
  }
  s.homes[static_cast<unsigned>(Slot::AdamM)] = SLUICE_TIER_HOST;
  s.homes[static_cast<unsigned>(Slot::AdamV)] = SLUICE_TIER_HOST;
  return s;
}

class TransformerOffload : public testing::TestWithParam<sluice_io_backend_t> {
};

TEST_P(TransformerOffload, BitExactUnderEverySchedule) {
  const TransformerConfig c = smallTransformer();
  const uint32_t L = c.layers();
  const int steps = 4;
  std::vector<float> losses;
  auto want = referenceRun(c, steps, &losses);
  struct Case {
    const char *name;
    OffloadSchedule schedule;
  } cases[] = {
      {"keepAll (all on device)", OffloadSchedule::keepAll(L)},
      {"swapAll lookahead 0 (all on disk)", OffloadSchedule::swapAll(L, 0)},
      {"swapAll lookahead 1", OffloadSchedule::swapAll(L, 1)},
      {"swapAll lookahead 2", OffloadSchedule::swapAll(L, 2)},
      {"mixed", mixed(L)},
      {"interleaved optimizer", interleaved(L)}};
  for (Case &sc : cases) {
    ASSERT_EQ(validate(sc.schedule, L), "") << sc.name;
    ScratchDir dir;
    Engine e(GetParam());
    std::unique_ptr<OffloadTrainer> t;
    sluice_error_t err;
    ASSERT_EQ(OffloadTrainer::create(TransformerModel(c),
                                     optionsFor(dir, e.engine, sc.schedule), t,
                                     &err),
              SLUICE_STATUS_OK)
        << err.message;
    for (int s = 1; s <= steps; ++s) {
      float loss = 0;
      ASSERT_EQ(t->step(&loss, &err), SLUICE_STATUS_OK)
          << sc.name << ": " << err.message;
      EXPECT_EQ(std::memcmp(&loss, &losses[s - 1], sizeof(float)), 0)
          << sc.name << " step " << s;
    }
    expectBitEqual(*t, want[steps], sc.name);
    if (std::string(sc.name).rfind("keepAll", 0) != 0) {
      // Device tensors really went to disk and came back, as planned.
      sluice_tier_stats_t stats;
      sluice_tier_stats(t->manager(), &stats);
      EXPECT_GT(stats.tier_bytes_read[SLUICE_TIER_DEVICE] +
                    stats.tier_bytes_reused[SLUICE_TIER_DEVICE],
                uint64_t(steps) * c.paramCount(1) * 4)
          << sc.name;
      // The mixed plan never prefetches what it keeps resident: those
      // tensors (the embedding's and head's parameters, 2L moments) come
      // from the initial state on disk once, in step 1, and stay.
      if (std::string(sc.name) == "mixed") {
        EXPECT_EQ(t->stats().demandFetches, 2u + 2 * L);
      } else if (std::string(sc.name).find("lookahead 0") ==
                 std::string::npos) {
        EXPECT_EQ(t->stats().demandFetches, 0u) << sc.name;
      }
    }
  }
}

TEST_P(TransformerOffload, TightDeviceBudgetStillBitExact) {
  const TransformerConfig c = smallTransformer();
  auto want = referenceRun(c, 3);
  ScratchDir dir;
  Engine e(GetParam());
  OffloadOptions o =
      optionsFor(dir, e.engine, OffloadSchedule::swapAll(c.layers(), 1));
  // The biggest tensor is a block's parameters (3,280 floats: 4 pages);
  // an entry holds up to four such tensors and the window prefetches the
  // next entry's: 12 pages is far below the model (~30 tensors).
  o.deviceBudget = 12 * 4096 * 4;
  std::unique_ptr<OffloadTrainer> t;
  sluice_error_t err;
  ASSERT_EQ(OffloadTrainer::create(TransformerModel(c), o, t, &err),
            SLUICE_STATUS_OK)
      << err.message;
  for (int s = 0; s < 3; ++s)
    ASSERT_EQ(t->step(nullptr, &err), SLUICE_STATUS_OK) << err.message;
  expectBitEqual(*t, want[3], "tight budget");
  sluice_tier_stats_t stats;
  sluice_tier_stats(t->manager(), &stats);
  EXPECT_LE(stats.device_peak, o.deviceBudget);
}

TEST(TransformerOffloadOptions, AbftIsNotSupportedYet) {
  ScratchDir dir;
  Engine e(SLUICE_IO_BACKEND_THREADS);
  const TransformerConfig c = smallTransformer();
  OffloadOptions o =
      optionsFor(dir, e.engine, OffloadSchedule::keepAll(c.layers()));
  o.abft = AbftMode::Fail;
  std::unique_ptr<OffloadTrainer> t;
  sluice_error_t err;
  EXPECT_EQ(OffloadTrainer::create(TransformerModel(c), o, t, &err),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(err.message,
               "not supported yet: ABFT checks and injected GEMM faults on "
               "the transformer (only the MLP's GEMMs are checked)");
  // A schedule made for another model is refused before anything is made.
  o.abft = AbftMode::Off;
  o.schedule = OffloadSchedule::keepAll(3);
  EXPECT_EQ(OffloadTrainer::create(TransformerModel(c), o, t, &err),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(err.message, "expected 12 entries (forward, backward, "
                            "optimizer of 4 layers), got 9");
}

/// Fails step 3 with `fault` at its request `nth`; false when the step had
/// fewer requests (it then succeeded).
bool failThirdStep(const TransformerConfig &c, sluice_io_backend_t backend,
                   sluice_io_fault_t fault, uint64_t nth,
                   const std::vector<Params> &want) {
  ScratchDir dir;
  Engine e(backend);
  OffloadOptions o =
      optionsFor(dir, e.engine, OffloadSchedule::swapAll(c.layers(), 1));
  o.durable = false; // the fault paths do not depend on it; much faster
  const TransformerModel model(c);
  std::unique_ptr<OffloadTrainer> t;
  sluice_error_t err;
  EXPECT_EQ(OffloadTrainer::create(model, o, t, &err), SLUICE_STATUS_OK);
  for (int s = 0; s < 2; ++s)
    EXPECT_EQ(t->step(nullptr, &err), SLUICE_STATUS_OK) << err.message;
  sluice_io_engine_inject_fault(e.engine, nth, fault);
  sluice_status_t s = t->step(nullptr, &err);
  sluice_io_engine_inject_fault(e.engine, 0, SLUICE_IO_FAULT_NONE);
  std::string what =
      "fault " + std::to_string(fault) + " at request " + std::to_string(nth);
  if (s == SLUICE_STATUS_OK) {
    expectBitEqual(*t, want[3], what + " (no failure)");
    return false;
  }
  EXPECT_NE(fault, SLUICE_IO_FAULT_SHORT) << what << ": " << err.message;
  EXPECT_EQ(s, SLUICE_STATUS_IO_ERROR) << what;
  std::string m = err.message;
  EXPECT_NE(m.find("training step 3 failed (the committed state of step 2 is "
                   "intact)"),
            std::string::npos)
      << m;
  EXPECT_EQ(t->committedSteps(), 2u);
  EXPECT_EQ(t->step(nullptr, &err), SLUICE_STATUS_FAILED_PRECONDITION);
  t.reset();
  EXPECT_EQ(OffloadTrainer::restore(model, o, t, &err), SLUICE_STATUS_OK)
      << what << ": " << err.message;
  if (!t)
    return true;
  EXPECT_EQ(t->steps(), 2u);
  expectBitEqual(*t, want[2], what + " (committed state)");
  for (int step = 3; step <= 4; ++step)
    EXPECT_EQ(t->step(nullptr, &err), SLUICE_STATUS_OK) << err.message;
  expectBitEqual(*t, want[4], what + " (resumed)");
  return true;
}

TEST_P(TransformerOffload, FaultsFailTheStepAndCorruptNothing) {
  const TransformerConfig c = smallTransformer();
  auto want = referenceRun(c, 4);
  // EIO at every other request (even on one backend, odd on the other).
  uint64_t failures = 0, nth = GetParam() == SLUICE_IO_BACKEND_URING ? 1 : 0;
  for (;; nth += 2) {
    if (!failThirdStep(c, GetParam(), SLUICE_IO_FAULT_EIO, nth, want))
      break;
    ++failures;
    ASSERT_LT(nth, 2000u);
  }
  EXPECT_GT(failures, 10u);
  for (uint64_t nth : {uint64_t(0), uint64_t(7), failures / 2, failures - 1}) {
    EXPECT_TRUE(
        failThirdStep(c, GetParam(), SLUICE_IO_FAULT_ENOSPC, nth, want));
    EXPECT_TRUE(failThirdStep(c, GetParam(), SLUICE_IO_FAULT_ZERO, nth, want));
    EXPECT_FALSE(
        failThirdStep(c, GetParam(), SLUICE_IO_FAULT_SHORT, nth, want));
  }
}

TEST_P(TransformerOffload, AStepWhoseCommitCannotBeFlushedIsNotCommitted) {
  using sluice::test::failSyscall;
  using sluice::test::PathMatch;
  using sluice::test::Syscall;
  sluice::test::SyscallFaultScope scope;
  const TransformerConfig c = smallTransformer();
  const TransformerModel model(c);
  auto want = referenceRun(c, 3);
  ScratchDir dir;
  char real[PATH_MAX];
  ASSERT_NE(realpath(dir.path.c_str(), real), nullptr);
  Engine e(GetParam());
  OffloadOptions o =
      optionsFor(dir, e.engine, OffloadSchedule::swapAll(c.layers(), 1));
  std::unique_ptr<OffloadTrainer> t;
  sluice_error_t err;
  ASSERT_EQ(OffloadTrainer::create(model, o, t, &err), SLUICE_STATUS_OK);
  for (int s = 0; s < 2; ++s)
    ASSERT_EQ(t->step(nullptr, &err), SLUICE_STATUS_OK) << err.message;
  failSyscall(Syscall::Fsync, EIO, real, 0, PathMatch::Exactly);
  EXPECT_EQ(t->step(nullptr, &err), SLUICE_STATUS_IO_ERROR);
  EXPECT_NE(std::string(err.message)
                .find("training step 3 failed (the committed state of step 2 "
                      "is intact): committing step 3: cannot flush the swap "
                      "directory to disk (fsync): Input/output error"),
            std::string::npos)
      << err.message;
  t.reset();
  ASSERT_EQ(OffloadTrainer::restore(model, o, t, &err), SLUICE_STATUS_OK)
      << err.message;
  EXPECT_EQ(t->steps(), 2u);
  expectBitEqual(*t, want[2], "restored after a failed directory fsync");
  failSyscall(Syscall::Fsync, EIO, real, 1, PathMatch::Exactly);
  EXPECT_EQ(t->step(nullptr, &err), SLUICE_STATUS_IO_ERROR);
  EXPECT_NE(std::string(err.message)
                .find("training step 3 failed (its manifest is in place but "
                      "may not be durable: a restore finds step 3, or step 2 "
                      "after a crash; both are kept)"),
            std::string::npos)
      << err.message;
  t.reset();
  ASSERT_EQ(OffloadTrainer::restore(model, o, t, &err), SLUICE_STATUS_OK)
      << err.message;
  EXPECT_EQ(t->steps(), 3u);
  expectBitEqual(*t, want[3], "restored after a failed post-rename fsync");
}

TEST_P(TransformerOffload, CorruptSwapFileIsCaught) {
  const TransformerConfig c = smallTransformer();
  const TransformerModel model(c);
  ScratchDir dir;
  Engine e(GetParam());
  OffloadOptions o =
      optionsFor(dir, e.engine, OffloadSchedule::swapAll(c.layers(), 1));
  std::unique_ptr<OffloadTrainer> t;
  sluice_error_t err;
  ASSERT_EQ(OffloadTrainer::create(model, o, t, &err), SLUICE_STATUS_OK);
  ASSERT_EQ(t->step(nullptr, &err), SLUICE_STATUS_OK);
  // A block's attention and MLP weights: layer 1's parameters.
  sluice_tensor_t id = t->tensor({1, Slot::Param});
  ASSERT_EQ(sluice_tier_tensor_state(t->manager(), id), SLUICE_TENSOR_ON_DISK);
  std::string path = sluice_tier_tensor_disk_path(t->manager(), id);
  sluice::test::flipByte(path, 4096 + 1000);
  EXPECT_EQ(t->step(nullptr, &err), SLUICE_STATUS_DATA_CORRUPT);
  std::string m = err.message;
  EXPECT_NE(m.find("prefetching tensor 'L1.param' failed; it stays on disk: "
                   "checksum mismatch"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("training step 2 failed (a swap file is corrupt; a restore "
                   "verifies whether the committed state of step 1 is "
                   "intact)"),
            std::string::npos)
      << m;
  t.reset();
  EXPECT_EQ(OffloadTrainer::restore(model, o, t, &err),
            SLUICE_STATUS_DATA_CORRUPT);
  EXPECT_EQ(t, nullptr);
  EXPECT_EQ(std::string(err.path), path);
}

INSTANTIATE_TEST_SUITE_P(Backends, TransformerOffload,
                         testing::ValuesIn(ioBackends()),
                         sluice::test::ioBackendName);

} // namespace
