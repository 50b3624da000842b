//===- OffloadTrainerTest.cpp - MLP training with swapped tensors ----------===//
//
// Bit-exactness against the all-in-memory trainer under several schedules
// and both backends; injected I/O faults at every request of a step fail
// the step, leave the committed state (checked bit for bit) and let training
// resume to the same bits; a flipped byte in a swap file is caught.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/train/OffloadTrainer.h"

#include "test/Unit/Offload/IoBackends.h"
#include "test/Unit/Offload/TestDir.h"
#include "test/Unit/Support/SyscallFaults.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <gtest/gtest.h>

using namespace sluice::train;
using sluice::test::ioBackendName;
using sluice::test::ioBackends;
using sluice::test::ScratchDir;

namespace {

MlpConfig smallModel() {
  MlpConfig c;
  c.widths = {24, 48, 40, 8};
  c.batch = 12;
  c.learningRate = 1e-2f;
  c.seed = 42;
  return c;
}

struct EngineHolder {
  explicit EngineHolder(sluice_io_backend_t backend) {
    sluice_io_options_t o;
    sluice_io_options_init(&o);
    o.backend = backend;
    o.block_size = 8192;
    EXPECT_EQ(sluice_io_engine_create(&o, &engine, nullptr), SLUICE_STATUS_OK);
  }
  ~EngineHolder() { sluice_io_engine_destroy(engine); }
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

/// The reference parameters after each number of steps.
std::vector<std::vector<std::vector<float>>> referenceRun(const MlpConfig &c,
                                                          int steps) {
  ReferenceTrainer ref(c);
  std::vector<std::vector<std::vector<float>>> out;
  for (int s = 0; s <= steps; ++s) {
    if (s)
      ref.step();
    std::vector<std::vector<float>> params;
    for (uint32_t l = 0; l < c.layers(); ++l)
      params.push_back(ref.params(l));
    out.push_back(params);
  }
  return out;
}

void expectBitEqual(OffloadTrainer &t, const std::vector<std::vector<float>> &want,
                    const std::string &what) {
  for (uint32_t l = 0; l < want.size(); ++l) {
    std::vector<float> got;
    sluice_error_t err;
    ASSERT_EQ(t.params(l, got, &err), SLUICE_STATUS_OK) << err.message;
    ASSERT_EQ(got.size(), want[l].size());
    EXPECT_EQ(std::memcmp(got.data(), want[l].data(),
                          sizeof(float) * got.size()),
              0)
        << what << ": layer " << l << " differs";
  }
}

struct ScheduleCase {
  const char *name;
  OffloadSchedule (*make)(uint32_t);
};

class TrainerTest : public testing::TestWithParam<sluice_io_backend_t> {};

TEST_P(TrainerTest, BitExactUnderEverySchedule) {
  const MlpConfig c = smallModel();
  const int steps = 6;
  auto want = referenceRun(c, steps);
  // The loss goes down: the model really trains.
  ReferenceTrainer probe(c);
  float first = probe.step(), last = first;
  for (int i = 0; i < 30; ++i)
    last = probe.step();
  EXPECT_LT(last, 0.8f * first);
  const ScheduleCase cases[] = {
      {"keepAll", [](uint32_t L) { return OffloadSchedule::keepAll(L); }},
      {"swapAll", [](uint32_t L) { return OffloadSchedule::swapAll(L, 1); }},
      {"swapAll2", [](uint32_t L) { return OffloadSchedule::swapAll(L, 2); }},
      {"swapAll0", [](uint32_t L) { return OffloadSchedule::swapAll(L, 0); }},
  };
  for (const ScheduleCase &sc : cases) {
    ScratchDir dir;
    EngineHolder e(GetParam());
    std::unique_ptr<OffloadTrainer> t;
    sluice_error_t err;
    ASSERT_EQ(OffloadTrainer::create(c, optionsFor(dir, e.engine,
                                                   sc.make(c.layers())),
                                     t, &err),
              SLUICE_STATUS_OK)
        << err.message;
    ReferenceTrainer ref(c);
    for (int s = 1; s <= steps; ++s) {
      float loss = 0;
      ASSERT_EQ(t->step(&loss, &err), SLUICE_STATUS_OK) << err.message;
      float refLoss = ref.step();
      EXPECT_EQ(std::memcmp(&loss, &refLoss, sizeof(float)), 0) << sc.name;
    }
    EXPECT_EQ(t->steps(), uint64_t(steps));
    expectBitEqual(*t, want[steps], sc.name);
    if (std::string(sc.name) == "swapAll") {
      // Tensors really went to disk and came back.
      sluice_tier_stats_t stats;
      sluice_tier_stats(t->manager(), &stats);
      EXPECT_GT(stats.prefetches, uint64_t(steps) * c.layers() * 3);
      EXPECT_EQ(t->stats().demandFetches, 0u) << "the plan prefetches all";
    }
  }
}

TEST_P(TrainerTest, TightDeviceBudgetStillBitExact) {
  const MlpConfig c = smallModel();
  auto want = referenceRun(c, 4);
  ScratchDir dir;
  EngineHolder e(GetParam());
  OffloadOptions o = optionsFor(dir, e.engine, OffloadSchedule::swapAll(3, 1));
  // Largest layer: params 48*40+40 floats = 7840 B -> 8 KiB; acts 12*48*4.
  o.deviceBudget = 10 * 8192;
  std::unique_ptr<OffloadTrainer> t;
  sluice_error_t err;
  ASSERT_EQ(OffloadTrainer::create(c, o, t, &err), SLUICE_STATUS_OK)
      << err.message;
  for (int s = 0; s < 4; ++s)
    ASSERT_EQ(t->step(nullptr, &err), SLUICE_STATUS_OK) << err.message;
  expectBitEqual(*t, want[4], "tight budget");
  sluice_tier_stats_t stats;
  sluice_tier_stats(t->manager(), &stats);
  EXPECT_LE(stats.device_peak, o.deviceBudget);
  // Too small for one layer: a clear error, not a crash.
  ScratchDir dir2;
  o.swapDir = dir2.path;
  o.deviceBudget = 8192;
  sluice_status_t s = OffloadTrainer::create(c, o, t, &err);
  if (s == SLUICE_STATUS_OK)
    s = t->step(nullptr, &err);
  EXPECT_EQ(s, SLUICE_STATUS_OUT_OF_MEMORY);
  EXPECT_NE(std::string(err.message).find("device budget exceeded"),
            std::string::npos)
      << err.message;
}

/// Fails step 3 with `fault` at its request `nth`. Returns false when the
/// step had fewer requests (it then succeeded).
bool failThirdStep(const MlpConfig &c, sluice_io_backend_t backend,
                   sluice_io_fault_t fault, uint64_t nth,
                   const std::vector<std::vector<std::vector<float>>> &want) {
  ScratchDir dir;
  EngineHolder e(backend);
  OffloadOptions o = optionsFor(dir, e.engine, OffloadSchedule::swapAll(3, 1));
  o.durable = false; // the fault paths do not depend on it; much faster
  std::unique_ptr<OffloadTrainer> t;
  sluice_error_t err;
  EXPECT_EQ(OffloadTrainer::create(c, o, t, &err), SLUICE_STATUS_OK);
  for (int s = 0; s < 2; ++s)
    EXPECT_EQ(t->step(nullptr, &err), SLUICE_STATUS_OK) << err.message;
  sluice_io_engine_inject_fault(e.engine, nth, fault);
  sluice_status_t s = t->step(nullptr, &err);
  sluice_io_engine_inject_fault(e.engine, 0, SLUICE_IO_FAULT_NONE);
  std::string what = "fault " + std::to_string(fault) + " at request " +
                     std::to_string(nth);
  if (s == SLUICE_STATUS_OK) {
    // Past the step's last request, or a short transfer: retried.
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
  EXPECT_NE(m.find("offset"), std::string::npos) << m;
  EXPECT_EQ(t->committedSteps(), 2u);
  EXPECT_EQ(t->step(nullptr, &err), SLUICE_STATUS_FAILED_PRECONDITION);
  t.reset();
  // What is on disk is step 2, bit for bit; training resumes to the same
  // bits as an uninterrupted run.
  EXPECT_EQ(OffloadTrainer::restore(c, o, t, &err), SLUICE_STATUS_OK)
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
  const MlpConfig c = smallModel();
  auto want = referenceRun(c, 4);
  // EIO at every other request of the step (the even ones on one backend,
  // the odd ones on the other: together, every request); a spread of
  // positions for the other faults.
  uint64_t failures = 0, nth = GetParam() == SLUICE_IO_BACKEND_URING ? 1 : 0;
  for (;; nth += 2) {
    if (!failThirdStep(c, GetParam(), SLUICE_IO_FAULT_EIO, nth, want))
      break;
    ++failures;
    ASSERT_LT(nth, 1000u);
  }
  EXPECT_GT(failures, 5u); // a step issues many requests
  for (uint64_t nth : {uint64_t(0), uint64_t(5), failures / 2, failures - 1}) {
    EXPECT_TRUE(failThirdStep(c, GetParam(), SLUICE_IO_FAULT_ENOSPC, nth, want));
    EXPECT_TRUE(failThirdStep(c, GetParam(), SLUICE_IO_FAULT_ZERO, nth, want));
    EXPECT_FALSE(failThirdStep(c, GetParam(), SLUICE_IO_FAULT_SHORT, nth, want));
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
  const MlpConfig c = smallModel();
  auto want = referenceRun(c, 3);
  ScratchDir dir;
  char real[PATH_MAX];
  ASSERT_NE(realpath(dir.path.c_str(), real), nullptr);
  EngineHolder e(GetParam());
  OffloadOptions o = optionsFor(dir, e.engine, OffloadSchedule::swapAll(3, 1));
  std::unique_ptr<OffloadTrainer> t;
  sluice_error_t err;
  ASSERT_EQ(OffloadTrainer::create(c, o, t, &err), SLUICE_STATUS_OK);
  for (int s = 0; s < 2; ++s)
    ASSERT_EQ(t->step(nullptr, &err), SLUICE_STATUS_OK) << err.message;
  // Before the manifest: step 2 stays the committed state.
  failSyscall(Syscall::Fsync, EIO, real, 0, PathMatch::Exactly);
  EXPECT_EQ(t->step(nullptr, &err), SLUICE_STATUS_IO_ERROR);
  std::string m = err.message;
  EXPECT_NE(m.find("training step 3 failed (the committed state of step 2 is "
                   "intact): committing step 3: cannot flush the swap "
                   "directory to disk (fsync): Input/output error"),
            std::string::npos)
      << m;
  EXPECT_EQ(t->committedSteps(), 2u);
  t.reset();
  ASSERT_EQ(OffloadTrainer::restore(c, o, t, &err), SLUICE_STATUS_OK)
      << err.message;
  EXPECT_EQ(t->steps(), 2u);
  expectBitEqual(*t, want[2], "restored after a failed directory fsync");
  // After the manifest is renamed into place: the step fails too, and says
  // that a restore finds step 3 (or step 2 after a crash).
  failSyscall(Syscall::Fsync, EIO, real, 1, PathMatch::Exactly);
  EXPECT_EQ(t->step(nullptr, &err), SLUICE_STATUS_IO_ERROR);
  m = err.message;
  EXPECT_NE(m.find("training step 3 failed (its manifest is in place but may "
                   "not be durable: a restore finds step 3, or step 2 after a "
                   "crash; both are kept)"),
            std::string::npos)
      << m;
  EXPECT_EQ(t->committedSteps(), 2u);
  t.reset();
  ASSERT_EQ(OffloadTrainer::restore(c, o, t, &err), SLUICE_STATUS_OK)
      << err.message;
  EXPECT_EQ(t->steps(), 3u);
  expectBitEqual(*t, want[3], "restored after a failed post-rename fsync");
}

TEST_P(TrainerTest, CorruptSwapFileIsCaught) {
  const MlpConfig c = smallModel();
  ScratchDir dir;
  EngineHolder e(GetParam());
  OffloadOptions o = optionsFor(dir, e.engine, OffloadSchedule::swapAll(3, 1));
  std::unique_ptr<OffloadTrainer> t;
  sluice_error_t err;
  ASSERT_EQ(OffloadTrainer::create(c, o, t, &err), SLUICE_STATUS_OK);
  ASSERT_EQ(t->step(nullptr, &err), SLUICE_STATUS_OK);
  sluice_tensor_t id = t->tensor({1, Slot::AdamV});
  ASSERT_EQ(sluice_tier_tensor_state(t->manager(), id), SLUICE_TENSOR_ON_DISK);
  std::string path = sluice_tier_tensor_disk_path(t->manager(), id);
  sluice::test::flipByte(path, 4096 + 100);
  EXPECT_EQ(t->step(nullptr, &err), SLUICE_STATUS_DATA_CORRUPT);
  std::string m = err.message;
  EXPECT_NE(m.find("prefetching tensor 'L1.adam_v' failed; it stays on disk: "
                   "checksum mismatch"),
            std::string::npos)
      << m;
  // The file is the committed copy of step 1: no claim that it is intact,
  // and a restore refuses it, naming the tensor and the file.
  EXPECT_NE(m.find("training step 2 failed (a swap file is corrupt; a restore "
                   "verifies whether the committed state of step 1 is "
                   "intact)"),
            std::string::npos)
      << m;
  t.reset();
  EXPECT_EQ(OffloadTrainer::restore(c, o, t, &err), SLUICE_STATUS_DATA_CORRUPT);
  EXPECT_EQ(t, nullptr);
  EXPECT_EQ(std::string(err.path), path);
  EXPECT_NE(std::string(err.message)
                .find("restoring the committed state: the committed copy of "
                      "tensor 'L1.adam_v' is corrupt: checksum mismatch"),
            std::string::npos)
      << err.message;
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
  EngineHolder e(SLUICE_IO_BACKEND_THREADS);
  std::unique_ptr<OffloadTrainer> t;
  sluice_error_t err;
  MlpConfig c = smallModel();
  EXPECT_EQ(OffloadTrainer::create(c, optionsFor(dir, e.engine, s), t, &err),
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

INSTANTIATE_TEST_SUITE_P(Backends, TrainerTest, testing::ValuesIn(ioBackends()),
                         ioBackendName);

} // namespace
