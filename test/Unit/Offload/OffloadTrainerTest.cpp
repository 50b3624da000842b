//===- OffloadTrainerTest.cpp - Training with swapped tensors, every model
//-===//
//
// The offload trainer on each model of TrainModels.h (the MLP and the
// transformer) and each I/O backend: parameters and every loss
// bit-identical (memcmp) to InMemoryTrainer under keepAll, swapAll
// (lookahead 0, 1, 2), a mixed hand-written schedule (first and last
// layers' parameters and the Adam moments resident, the rest swapped), an
// interleaved one (each optimizer entry right after its backward) and a
// tight device budget; injected I/O faults at every request of a step
// fail the step, leave the committed state (checked bit for bit) and let
// training resume to the same bits; a commit whose fsync fails is not
// committed; a flipped byte in a swap file is caught. The MLP model also
// against the MLP's own ReferenceTrainer.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/train/OffloadTrainer.h"

#include "test/Unit/Offload/IoBackends.h"
#include "test/Unit/Offload/TestDir.h"
#include "test/Unit/Offload/TrainModels.h"
#include "test/Unit/Support/SyscallFaults.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <gtest/gtest.h>
#include <tuple>

using namespace sluice::train;
using namespace sluice::test;

namespace {

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

/// swapAll with the first and last layers' parameters and every Adam
/// moment kept in memory (moments homed on the host tier): only the other
/// layers' parameters, the gradients and the saved inputs move.
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

using TrainerParam = std::tuple<ModelCase, sluice_io_backend_t>;

class TrainerTest : public testing::TestWithParam<TrainerParam> {
protected:
  const ModelCase &modelCase() const { return std::get<0>(GetParam()); }
  sluice_io_backend_t backend() const { return std::get<1>(GetParam()); }
  std::unique_ptr<TrainModel> model() const { return modelCase().make(); }
};

std::string trainerName(const testing::TestParamInfo<TrainerParam> &i) {
  return std::string(std::get<0>(i.param).name) + "_" +
         (std::get<1>(i.param) == SLUICE_IO_BACKEND_URING ? "uring"
                                                          : "threads");
}

TEST_P(TrainerTest, BitExactUnderEverySchedule) {
  const auto m = model();
  const uint32_t L = m->layers();
  const int steps = 4;
  std::vector<float> losses;
  auto want = referenceRun(*m, steps, &losses);
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
    Engine e(backend());
    std::unique_ptr<OffloadTrainer> t;
    sluice_error_t err;
    ASSERT_EQ(OffloadTrainer::create(*m, optionsFor(dir, e.engine, sc.schedule),
                                     t, &err),
              SLUICE_STATUS_OK)
        << err.message;
    for (int s = 1; s <= steps; ++s) {
      float loss = 0;
      ASSERT_EQ(t->step(&loss, &err), SLUICE_STATUS_OK)
          << sc.name << ": " << err.message;
      EXPECT_EQ(std::memcmp(&loss, &losses[s - 1], sizeof(float)), 0)
          << sc.name << " step " << s;
    }
    EXPECT_EQ(t->steps(), uint64_t(steps));
    expectBitEqual(*t, want[steps], sc.name);
    if (std::string(sc.name).rfind("keepAll", 0) == 0)
      continue;
    // Device tensors really went to disk and came back, as planned.
    sluice_tier_stats_t stats;
    sluice_tier_stats(t->manager(), &stats);
    EXPECT_GT(stats.tier_bytes_read[SLUICE_TIER_DEVICE] +
                  stats.tier_bytes_reused[SLUICE_TIER_DEVICE],
              uint64_t(steps) * m->paramCount(1) * 4)
        << sc.name;
    if (std::string(sc.name) == "swapAll lookahead 1") {
      EXPECT_GT(stats.prefetches, uint64_t(steps) * L * 3);
    }
    // The mixed plan never prefetches what it keeps resident: those
    // tensors (the first and last parameters, 2L moments) come from the
    // initial state on disk once, in step 1, and stay.
    if (std::string(sc.name) == "mixed") {
      EXPECT_EQ(t->stats().demandFetches, 2u + 2 * L);
    } else if (std::string(sc.name).find("lookahead 0") == std::string::npos) {
      EXPECT_EQ(t->stats().demandFetches, 0u)
          << sc.name << ": the plan prefetches all";
    }
  }
}

TEST_P(TrainerTest, TightDeviceBudgetStillBitExact) {
  const auto m = model();
  auto want = referenceRun(*m, 3);
  ScratchDir dir;
  Engine e(backend());
  OffloadOptions o =
      optionsFor(dir, e.engine, OffloadSchedule::swapAll(m->layers(), 1));
  o.deviceBudget = modelCase().tightBudget;
  std::unique_ptr<OffloadTrainer> t;
  sluice_error_t err;
  ASSERT_EQ(OffloadTrainer::create(*m, o, t, &err), SLUICE_STATUS_OK)
      << err.message;
  for (int s = 0; s < 3; ++s)
    ASSERT_EQ(t->step(nullptr, &err), SLUICE_STATUS_OK) << err.message;
  expectBitEqual(*t, want[3], "tight budget");
  sluice_tier_stats_t stats;
  sluice_tier_stats(t->manager(), &stats);
  EXPECT_LE(stats.device_peak, o.deviceBudget);
  // Too small for one entry: a clear error, not a crash.
  ScratchDir dir2;
  o.swapDir = dir2.path;
  o.deviceBudget = 8192;
  sluice_status_t s = OffloadTrainer::create(*m, o, t, &err);
  if (s == SLUICE_STATUS_OK)
    s = t->step(nullptr, &err);
  EXPECT_EQ(s, SLUICE_STATUS_OUT_OF_MEMORY);
  EXPECT_NE(std::string(err.message).find("device budget exceeded"),
            std::string::npos)
      << err.message;
}

TEST_P(TrainerTest, AScheduleForAnotherModelIsRefused) {
  const auto m = model();
  const uint32_t L = m->layers();
  ScratchDir dir;
  Engine e(backend());
  std::unique_ptr<OffloadTrainer> t;
  sluice_error_t err;
  EXPECT_EQ(OffloadTrainer::create(
                *m, optionsFor(dir, e.engine, OffloadSchedule::keepAll(L - 1)),
                t, &err),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(err.message),
            "expected " + std::to_string(3 * L) +
                " entries (forward, backward, optimizer of " +
                std::to_string(L) + " layers), got " +
                std::to_string(3 * (L - 1)));
  EXPECT_EQ(t, nullptr);
}

/// Fails step 3 with `fault` at its request `nth`. Returns false when the
/// step had fewer requests (it then succeeded).
bool failThirdStep(const TrainModel &m, sluice_io_backend_t backend,
                   sluice_io_fault_t fault, uint64_t nth,
                   const std::vector<Params> &want) {
  ScratchDir dir;
  Engine e(backend);
  OffloadOptions o =
      optionsFor(dir, e.engine, OffloadSchedule::swapAll(m.layers(), 1));
  o.durable = false; // the fault paths do not depend on it; much faster
  std::unique_ptr<OffloadTrainer> t;
  sluice_error_t err;
  EXPECT_EQ(OffloadTrainer::create(m, o, t, &err), SLUICE_STATUS_OK);
  for (int s = 0; s < 2; ++s)
    EXPECT_EQ(t->step(nullptr, &err), SLUICE_STATUS_OK) << err.message;
  sluice_io_engine_inject_fault(e.engine, nth, fault);
  sluice_status_t s = t->step(nullptr, &err);
  sluice_io_engine_inject_fault(e.engine, 0, SLUICE_IO_FAULT_NONE);
  std::string what =
      "fault " + std::to_string(fault) + " at request " + std::to_string(nth);
  if (s == SLUICE_STATUS_OK) {
    // Past the step's last request, or a short transfer: retried.
    expectBitEqual(*t, want[3], what + " (no failure)");
    return false;
  }
  EXPECT_NE(fault, SLUICE_IO_FAULT_SHORT) << what << ": " << err.message;
  EXPECT_EQ(s, SLUICE_STATUS_IO_ERROR) << what;
  std::string msg = err.message;
  EXPECT_NE(msg.find("training step 3 failed (the committed state of step 2 "
                     "is intact)"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("offset"), std::string::npos) << msg;
  EXPECT_EQ(t->committedSteps(), 2u);
  EXPECT_EQ(t->step(nullptr, &err), SLUICE_STATUS_FAILED_PRECONDITION);
  t.reset();
  // What is on disk is step 2, bit for bit; training resumes to the same
  // bits as an uninterrupted run.
  EXPECT_EQ(OffloadTrainer::restore(m, o, t, &err), SLUICE_STATUS_OK)
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

TEST_P(TrainerTest, FaultsFailTheStepAndCorruptNothing) {
  const auto m = model();
  auto want = referenceRun(*m, 4);
  // EIO at every other request of the step (the even ones on one backend,
  // the odd ones on the other: together, every request); a spread of
  // positions for the other faults.
  uint64_t failures = 0, nth = backend() == SLUICE_IO_BACKEND_URING ? 1 : 0;
  for (;; nth += 2) {
    if (!failThirdStep(*m, backend(), SLUICE_IO_FAULT_EIO, nth, want))
      break;
    ++failures;
    ASSERT_LT(nth, 2000u);
  }
  EXPECT_GT(failures, modelCase().minFailingRequests); // many requests
  for (uint64_t nth :
       {uint64_t(0), uint64_t(5), uint64_t(7), failures / 2, failures - 1}) {
    EXPECT_TRUE(
        failThirdStep(*m, backend(), SLUICE_IO_FAULT_ENOSPC, nth, want));
    EXPECT_TRUE(failThirdStep(*m, backend(), SLUICE_IO_FAULT_ZERO, nth, want));
    EXPECT_FALSE(
        failThirdStep(*m, backend(), SLUICE_IO_FAULT_SHORT, nth, want));
  }
}

/// The end-of-step commit flushes the swap directory before and after the
/// manifest: an fsync error there fails the step, which is then not
/// reported committed, and the message says which state a restore finds.
TEST_P(TrainerTest, AStepWhoseCommitCannotBeFlushedIsNotCommitted) {
  using sluice::test::failSyscall;
  using sluice::test::PathMatch;
  using sluice::test::Syscall;
  sluice::test::SyscallFaultScope scope;
  const auto m = model();
  auto want = referenceRun(*m, 3);
  ScratchDir dir;
  char real[PATH_MAX];
  ASSERT_NE(realpath(dir.path.c_str(), real), nullptr);
  Engine e(backend());
  OffloadOptions o =
      optionsFor(dir, e.engine, OffloadSchedule::swapAll(m->layers(), 1));
  std::unique_ptr<OffloadTrainer> t;
  sluice_error_t err;
  ASSERT_EQ(OffloadTrainer::create(*m, o, t, &err), SLUICE_STATUS_OK);
  for (int s = 0; s < 2; ++s)
    ASSERT_EQ(t->step(nullptr, &err), SLUICE_STATUS_OK) << err.message;
  // Before the manifest: step 2 stays the committed state.
  failSyscall(Syscall::Fsync, EIO, real, 0, PathMatch::Exactly);
  EXPECT_EQ(t->step(nullptr, &err), SLUICE_STATUS_IO_ERROR);
  std::string msg = err.message;
  EXPECT_NE(msg.find("training step 3 failed (the committed state of step 2 "
                     "is intact): committing step 3: cannot flush the swap "
                     "directory to disk (fsync): Input/output error"),
            std::string::npos)
      << msg;
  EXPECT_EQ(t->committedSteps(), 2u);
  t.reset();
  ASSERT_EQ(OffloadTrainer::restore(*m, o, t, &err), SLUICE_STATUS_OK)
      << err.message;
  EXPECT_EQ(t->steps(), 2u);
  expectBitEqual(*t, want[2], "restored after a failed directory fsync");
  // After the manifest is renamed into place: the step fails too, and says
  // that a restore finds step 3 (or step 2 after a crash).
  failSyscall(Syscall::Fsync, EIO, real, 1, PathMatch::Exactly);
  EXPECT_EQ(t->step(nullptr, &err), SLUICE_STATUS_IO_ERROR);
  msg = err.message;
  EXPECT_NE(msg.find("training step 3 failed (its manifest is in place but "
                     "may not be durable: a restore finds step 3, or step 2 "
                     "after a crash; both are kept)"),
            std::string::npos)
      << msg;
  EXPECT_EQ(t->committedSteps(), 2u);
  t.reset();
  ASSERT_EQ(OffloadTrainer::restore(*m, o, t, &err), SLUICE_STATUS_OK)
      << err.message;
  EXPECT_EQ(t->steps(), 3u);
  expectBitEqual(*t, want[3], "restored after a failed post-rename fsync");
}

TEST_P(TrainerTest, CorruptSwapFileIsCaught) {
  const auto m = model();
  // A moment and a parameter tensor of layer 1 (a transformer block).
  for (Slot slot : {Slot::AdamV, Slot::Param}) {
    const std::string name = std::string("L1.") + slotName(slot);
    ScratchDir dir;
    Engine e(backend());
    OffloadOptions o =
        optionsFor(dir, e.engine, OffloadSchedule::swapAll(m->layers(), 1));
    std::unique_ptr<OffloadTrainer> t;
    sluice_error_t err;
    ASSERT_EQ(OffloadTrainer::create(*m, o, t, &err), SLUICE_STATUS_OK);
    ASSERT_EQ(t->step(nullptr, &err), SLUICE_STATUS_OK);
    sluice_tensor_t id = t->tensor({1, slot});
    ASSERT_EQ(sluice_tier_tensor_state(t->manager(), id),
              SLUICE_TENSOR_ON_DISK);
    std::string path = sluice_tier_tensor_disk_path(t->manager(), id);
    sluice::test::flipByte(path, 4096 + 100);
    EXPECT_EQ(t->step(nullptr, &err), SLUICE_STATUS_DATA_CORRUPT);
    std::string msg = err.message;
    EXPECT_NE(msg.find("prefetching tensor '" + name +
                       "' failed; it stays on disk: checksum mismatch"),
              std::string::npos)
        << msg;
    // The file is the committed copy of step 1: no claim that it is
    // intact, and a restore refuses it, naming the tensor and the file.
    EXPECT_NE(msg.find("training step 2 failed (a swap file is corrupt; a "
                       "restore verifies whether the committed state of "
                       "step 1 is intact)"),
              std::string::npos)
        << msg;
    t.reset();
    EXPECT_EQ(OffloadTrainer::restore(*m, o, t, &err),
              SLUICE_STATUS_DATA_CORRUPT);
    EXPECT_EQ(t, nullptr);
    EXPECT_EQ(std::string(err.path), path);
    EXPECT_NE(std::string(err.message)
                  .find("restoring the committed state: the committed copy "
                        "of tensor '" +
                        name + "' is corrupt: checksum mismatch"),
              std::string::npos)
        << err.message;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, TrainerTest,
                         testing::Combine(testing::ValuesIn(trainModels()),
                                          testing::ValuesIn(ioBackends())),
                         trainerName);

/// The MLP model is the MLP's own in-memory trainer (ReferenceTrainer,
/// Mlp.h), and it trains.
TEST(MlpModel, SameBitsAsReferenceTrainerAndTrains) {
  const MlpConfig c = smallMlpConfig();
  ReferenceTrainer ref(c);
  InMemoryTrainer mem{MlpModel(c)};
  float first = 0, last = 0;
  for (int s = 1; s <= 31; ++s) {
    last = ref.step();
    const float loss = mem.step();
    if (s == 1)
      first = last;
    ASSERT_EQ(std::memcmp(&loss, &last, sizeof loss), 0) << "step " << s;
  }
  // The loss goes down: the model really trains.
  EXPECT_LT(last, 0.8f * first);
  for (uint32_t l = 0; l < c.layers(); ++l)
    EXPECT_EQ(std::memcmp(ref.params(l).data(), mem.params(l).data(),
                          4 * ref.params(l).size()),
              0)
        << "layer " << l;
}

TEST(TrainerSchedule, Validation) {
  EXPECT_EQ(validate(OffloadSchedule::swapAll(4, 1), 4), "");
  OffloadSchedule s = OffloadSchedule::keepAll(2);
  std::swap(s.entries[0], s.entries[1]);
  EXPECT_EQ(validate(s, 2),
            "entry 0: expected forward of layer 0, got forward of layer 1");
  s = OffloadSchedule::keepAll(2);
  s.entries[2].prefetch.push_back({5, Slot::Grad});
  EXPECT_EQ(validate(s, 2),
            "entry 2: tensor of layer 5 (slot 1) does not exist");
  s = OffloadSchedule::keepAll(2);
  s.entries[4].discard.push_back({0, Slot::AdamM});
  EXPECT_EQ(validate(s, 2), "entry 4: layer 0 adam_m is persistent state and "
                            "cannot be discarded");
  EXPECT_NE(validate(OffloadSchedule::keepAll(2), 3), "");
  // The trainer refuses a bad schedule.
  ScratchDir dir;
  Engine e(SLUICE_IO_BACKEND_THREADS);
  std::unique_ptr<OffloadTrainer> t;
  sluice_error_t err;
  EXPECT_EQ(OffloadTrainer::create(smallMlpConfig(),
                                   optionsFor(dir, e.engine, s), t, &err),
            SLUICE_STATUS_INVALID_ARGUMENT);
}

TEST(TrainerSchedule, SwapAllShape) {
  OffloadSchedule s = OffloadSchedule::swapAll(2, 1);
  ASSERT_EQ(s.entries.size(), 6u);
  // Forward of layer 0 prefetches its own and layer 1's inputs, swaps its
  // parameters out and keeps the activation layer 1 reads next.
  const ScheduleEntry &f0 = s.entries[0];
  EXPECT_EQ(f0.prefetch.size(), 4u);
  EXPECT_EQ(f0.swapOut, (std::vector<TensorRef>{{0, Slot::Param},
                                                {0, Slot::Activation}}));
  EXPECT_EQ(f0.keep, (std::vector<TensorRef>{{1, Slot::Activation}}));
  // The backward of layer 0 discards its activation; the optimizer its
  // gradient.
  EXPECT_EQ(s.entries[3].discard,
            (std::vector<TensorRef>{{0, Slot::Activation}}));
  EXPECT_EQ(s.entries[5].discard, (std::vector<TensorRef>{{1, Slot::Grad}}));
}

} // namespace
