//===- PlanExecTest.cpp - The runtime executes planned schedules ----------===//
//
// From the fine-tune planner to the runtime: a small transformer job is
// planned on a small emulated machine under every combination of parameter
// home, optimizer home and optimizer order; the plan is exported as a
// schedule document, read back by the runtime's reader and executed by the
// offload trainer on the small MLP. After N steps the parameters equal,
// bit for bit, those of the all-in-memory reference trainer; every
// steady-state step moves exactly the payload bytes per home tier the
// exporter predicted; no tensor the plan moves is fetched on demand; the
// memory stays within the budgets the plan states (the tier manager fails
// the step otherwise).
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Offload/FinetunePlanner.h"
#include "compiler/Analysis/Offload/RuntimeSchedule.h"
#include "runtime/src/train/OffloadTrainer.h"
#include "runtime/src/train/ScheduleFile.h"

#include "test/Unit/Offload/TestDir.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>
#include <gtest/gtest.h>

using namespace sluice;
using namespace sluice::offload;
using namespace sluice::train;
using sluice::test::ScratchDir;

namespace {

struct Case {
  Tier paramHome;
  Tier optimizerHome;
  bool active;
};

std::string caseName(const testing::TestParamInfo<Case> &i) {
  return ("param_" + tierName(i.param.paramHome) + "_opt_" +
          tierName(i.param.optimizerHome) +
          (i.param.active ? "_active" : "_after"))
      .str();
}

/// The small emulated machine: Ratel's workstation with 64 MiB of GPU
/// memory.
Machine smallMachine() {
  Machine m = Machine::rtx4090With12Nvme();
  m.gpuMemory = 64.0 * 1024 * 1024;
  return m;
}

MlpConfig mlp() {
  MlpConfig c;
  c.widths = {24, 48, 40, 8};
  c.batch = 12;
  c.learningRate = 1e-2f;
  c.seed = 7;
  return c;
}

/// Plans the job and returns the schedule document as text.
std::string planned(const Case &c, const MlpConfig &config) {
  FinetuneJob job{model::TransformerConfig::gpt(3, 256, 4, 128, 1000), 4, 0};
  FinetuneOptions o;
  o.paramHome = c.paramHome;
  o.optimizerHome = c.optimizerHome;
  o.activeGradientOffload = c.active;
  auto plan = planFinetune(job, smallMachine(), o);
  EXPECT_TRUE(bool(plan));
  if (!plan)
    return "";
  EXPECT_TRUE(plan->feasible) << plan->infeasibleReason;
  RuntimeModel rm;
  for (uint32_t w : config.widths)
    rm.widths.push_back(w);
  rm.batch = config.batch;
  auto doc = finetuneRuntimeSchedule(*plan, job, o, rm);
  EXPECT_TRUE(bool(doc)) << (doc ? "" : llvm::toString(doc.takeError()));
  return doc ? llvm::formatv("{0:2}", *doc).str() : "";
}

class PlanExec : public testing::TestWithParam<Case> {};

TEST_P(PlanExec, BitExactAndMovesWhatThePlanPredicts) {
  const Case c = GetParam();
  const MlpConfig config = mlp();
  std::string text = planned(c, config);
  ASSERT_FALSE(text.empty());
  OffloadSchedule schedule;
  std::string error;
  ASSERT_TRUE(parseSchedule(text, "plan.json", schedule, error)) << error;
  ASSERT_TRUE(schedule.hasPrediction);
  ASSERT_EQ(scheduleLayers(schedule), config.layers());

  // The decisions are in the schedule.
  bool paramsMove = false, adamMoves = false;
  for (const ScheduleEntry &e : schedule.entries)
    for (const TensorRef &r : e.swapOut) {
      paramsMove |= r.slot == Slot::Param;
      adamMoves |= r.slot == Slot::AdamM;
    }
  EXPECT_EQ(paramsMove, c.paramHome != Tier::Gpu);
  EXPECT_EQ(adamMoves, c.optimizerHome == Tier::Nvme);
  EXPECT_EQ(schedule.entries[config.layers() + 1].phase,
            c.active ? Phase::Optimizer : Phase::Backward);
  uint64_t deviceTensors = 0;
  for (uint32_t l = 0; l < config.layers(); ++l)
    for (unsigned s = 0; s < kSlotCount; ++s)
      if (schedule.homes[s] == SLUICE_TIER_DEVICE)
        deviceTensors +=
            (4 * (s == unsigned(Slot::Activation) ? config.activationCount(l)
                                                  : config.paramCount(l)) +
             4095) /
            4096 * 4096;
  if (paramsMove) {
    EXPECT_LT(schedule.deviceBudget, deviceTensors)
        << "the plan keeps less than the whole model on the device";
  }

  ScratchDir dir;
  sluice_io_options_t io;
  sluice_io_options_init(&io);
  io.backend = SLUICE_IO_BACKEND_THREADS;
  sluice_io_engine_t *engine = nullptr;
  ASSERT_EQ(sluice_io_engine_create(&io, &engine, nullptr), SLUICE_STATUS_OK);
  OffloadOptions options;
  options.swapDir = dir.path;
  options.engine = engine;
  options.schedule = schedule; // its budgets apply
  std::unique_ptr<OffloadTrainer> trainer;
  sluice_error_t err;
  ASSERT_EQ(OffloadTrainer::create(config, options, trainer, &err),
            SLUICE_STATUS_OK)
      << err.message;

  ReferenceTrainer ref(config);
  const int steps = 4;
  for (int s = 1; s <= steps; ++s) {
    sluice_tier_stats_t before, after;
    sluice_tier_stats(trainer->manager(), &before);
    uint64_t demandBefore = trainer->stats().demandFetches;
    float loss = 0;
    ASSERT_EQ(trainer->step(&loss, &err), SLUICE_STATUS_OK) << err.message;
    EXPECT_EQ(loss, ref.step()) << "step " << s;
    sluice_tier_stats(trainer->manager(), &after);
    if (s == 1)
      continue; // starts from the set-up state, not a steady one
    EXPECT_EQ(trainer->stats().demandFetches, demandBefore)
        << "step " << s << ": a tensor the plan moves was not prefetched";
    for (sluice_tier_t tier : {SLUICE_TIER_DEVICE, SLUICE_TIER_HOST}) {
      // The trainer's step counter (8 bytes, host) is read and written
      // once per step besides the plan.
      const uint64_t counter = tier == SLUICE_TIER_HOST ? 8 : 0;
      const char *name = tier == SLUICE_TIER_HOST ? "host" : "device";
      EXPECT_EQ(after.tier_bytes_written[tier] - before.tier_bytes_written[tier],
                schedule.predicted[tier].written + counter)
          << "step " << s << ", " << name << " tier, bytes written";
      EXPECT_EQ(after.tier_bytes_read[tier] + after.tier_bytes_reused[tier] -
                    before.tier_bytes_read[tier] -
                    before.tier_bytes_reused[tier],
                schedule.predicted[tier].read + counter)
          << "step " << s << ", " << name << " tier, bytes read back";
    }
  }
  sluice_tier_stats_t st;
  sluice_tier_stats(trainer->manager(), &st);
  EXPECT_LE(st.device_peak, schedule.deviceBudget);
  EXPECT_LE(st.host_peak, schedule.hostBudget);
  if (paramsMove || adamMoves) {
    EXPECT_GT(schedule.predicted[paramsMove ? SLUICE_TIER_DEVICE
                                            : SLUICE_TIER_HOST]
                  .read,
              0u);
  }
  for (uint32_t l = 0; l < config.layers(); ++l) {
    std::vector<float> got;
    ASSERT_EQ(trainer->params(l, got, &err), SLUICE_STATUS_OK) << err.message;
    const std::vector<float> &want = ref.params(l);
    ASSERT_EQ(got.size(), want.size());
    EXPECT_EQ(std::memcmp(got.data(), want.data(), 4 * got.size()), 0)
        << "layer " << l << " differs after " << steps << " steps";
  }
  trainer.reset();
  sluice_io_engine_destroy(engine);
}

INSTANTIATE_TEST_SUITE_P(
    Plans, PlanExec,
    testing::Values(Case{Tier::Gpu, Tier::Host, true},
                    Case{Tier::Host, Tier::Host, true},
                    Case{Tier::Host, Tier::Host, false},
                    Case{Tier::Host, Tier::Nvme, true},
                    Case{Tier::Nvme, Tier::Nvme, false},
                    Case{Tier::Gpu, Tier::Nvme, false}),
    caseName);

TEST(PlanExport, Errors) {
  FinetuneJob job{model::TransformerConfig::gpt(3, 256, 4, 128, 1000), 4, 0};
  FinetuneOptions o;
  auto plan = planFinetune(job, smallMachine(), o);
  ASSERT_TRUE(bool(plan));
  auto bad = finetuneRuntimeSchedule(*plan, job, o, {{8, 8}, 4});
  ASSERT_FALSE(bool(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "the runtime MLP has 1 layers, the plan 3 (one MLP layer per "
            "transformer layer)");
  FinetunePlan infeasible = *plan;
  infeasible.feasible = false;
  infeasible.infeasibleReason = "GPU memory: need 2 GiB, have 1 GiB usable";
  auto none = finetuneRuntimeSchedule(infeasible, job, o, {{8, 8, 8, 8}, 4});
  ASSERT_FALSE(bool(none));
  EXPECT_EQ(llvm::toString(none.takeError()),
            "no schedule: the plan is infeasible (GPU memory: need 2 GiB, "
            "have 1 GiB usable)");
  FinetunePlan csd = *plan;
  csd.updateOnCsd = true;
  auto near = finetuneRuntimeSchedule(csd, job, o, {{8, 8, 8, 8}, 4});
  ASSERT_FALSE(bool(near));
  EXPECT_NE(llvm::toString(near.takeError()).find("no near-storage optimizer"),
            std::string::npos);
  auto widths = parseWidths("64,x");
  ASSERT_FALSE(bool(widths));
  EXPECT_EQ(llvm::toString(widths.takeError()),
            "bad layer width 'x' in '64,x' (expected integers in 1..65536, "
            "comma-separated)");
}

} // namespace
