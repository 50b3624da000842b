//===- PlanExecTest.cpp - The runtime executes planned schedules ----------===//
//
// From the fine-tune planner to the runtime, on each runtime model: a
// small transformer job is planned on a small emulated machine under every
// combination of parameter home, optimizer home and optimizer order; the
// plan is exported as a schedule document (for the small MLP: one MLP
// layer per planned layer; for the runtime's transformer: the planned
// model itself, fp32, with its embedding and head), read back by the
// runtime's reader and executed by the offload trainer. After N steps the
// parameters and every loss equal, bit for bit, those of the all-in-memory
// trainer; every steady-state step moves exactly the payload bytes per
// home tier the exporter predicted; no tensor the plan moves is fetched on
// demand; the memory stays within the budgets the plan states (the tier
// manager fails the step otherwise). A schedule exported with ABFT on
// turns the trainer's GEMM checks on. Export errors of each model.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Offload/FinetunePlanner.h"
#include "compiler/Analysis/Offload/RuntimeSchedule.h"
#include "runtime/src/train/OffloadTrainer.h"
#include "runtime/src/train/ScheduleFile.h"
#include "runtime/src/train/Transformer.h"

#include "test/Unit/Offload/TestDir.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>
#include <gtest/gtest.h>
#include <tuple>

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

FinetuneJob mlpJob() {
  return {model::TransformerConfig::gpt(3, 256, 4, 128, 1000), 4, 0};
}

/// A small GPT job (2 layers, hidden 32, 4 heads, seq 16, vocab 64, batch
/// 4) and the runtime's transformer of the same shape.
FinetuneJob transformerJob() {
  return {model::TransformerConfig::gpt(2, 32, 4, 16, 64), 4, 0};
}

TransformerConfig runtimeTransformer() {
  TransformerConfig c;
  c.blocks = 2;
  c.dModel = 32;
  c.heads = 4;
  c.seq = 16;
  c.vocab = 64;
  c.batch = 4;
  c.seed = 11;
  return c;
}

/// A runtime model with the job planned for it.
struct PlanModel {
  const char *name;
  FinetuneJob (*job)();
  /// The exporter's description of the runtime model.
  llvm::Expected<RuntimeModel> (*runtime)();
  std::unique_ptr<TrainModel> (*make)();
};

const PlanModel kPlanModels[] = {
    {"mlp", mlpJob,
     []() -> llvm::Expected<RuntimeModel> {
       RuntimeModel rm;
       for (uint32_t w : mlp().widths)
         rm.widths.push_back(w);
       rm.batch = mlp().batch;
       return rm;
     },
     [] { return std::unique_ptr<TrainModel>(new MlpModel(mlp())); }},
    {"transformer", transformerJob,
     [] {
       return transformerRuntimeModel(transformerJob().model,
                                      transformerJob().batch);
     },
     [] {
       return std::unique_ptr<TrainModel>(
           new TransformerModel(runtimeTransformer()));
     }},
};

/// Plans the job and returns the schedule document as text (with ABFT
/// `abft` when not empty).
std::string planned(const Case &c, const PlanModel &pm,
                    const std::string &abft = "") {
  FinetuneOptions o;
  o.paramHome = c.paramHome;
  o.optimizerHome = c.optimizerHome;
  o.activeGradientOffload = c.active;
  auto plan = planFinetune(pm.job(), smallMachine(), o);
  EXPECT_TRUE(bool(plan));
  if (!plan)
    return "";
  EXPECT_TRUE(plan->feasible) << plan->infeasibleReason;
  auto rm = pm.runtime();
  if (!rm) {
    ADD_FAILURE() << llvm::toString(rm.takeError());
    return "";
  }
  rm->abft = abft;
  auto doc = finetuneRuntimeSchedule(*plan, pm.job(), o, *rm);
  EXPECT_TRUE(bool(doc)) << (doc ? "" : llvm::toString(doc.takeError()));
  return doc ? llvm::formatv("{0:2}", *doc).str() : "";
}

/// The trainer over `schedule` (its budgets apply), its engine.
struct PlannedRun {
  PlannedRun(const TrainModel &model, const OffloadSchedule &schedule,
             const ScratchDir &dir, const FaultInjection &faults = {}) {
    sluice_io_options_t io;
    sluice_io_options_init(&io);
    io.backend = SLUICE_IO_BACKEND_THREADS;
    EXPECT_EQ(sluice_io_engine_create(&io, &engine, nullptr), SLUICE_STATUS_OK);
    OffloadOptions options;
    options.swapDir = dir.path;
    options.engine = engine;
    options.schedule = schedule;
    options.faults = faults;
    options.abftRetries = 8;
    sluice_error_t err;
    EXPECT_EQ(OffloadTrainer::create(model, options, trainer, &err),
              SLUICE_STATUS_OK)
        << err.message;
  }
  ~PlannedRun() {
    trainer.reset();
    sluice_io_engine_destroy(engine);
  }
  sluice_io_engine_t *engine = nullptr;
  std::unique_ptr<OffloadTrainer> trainer;
};

void expectParamsEqual(OffloadTrainer &trainer, const InMemoryTrainer &ref,
                       uint32_t layers, const std::string &what) {
  for (uint32_t l = 0; l < layers; ++l) {
    std::vector<float> got;
    sluice_error_t err;
    ASSERT_EQ(trainer.params(l, got, &err), SLUICE_STATUS_OK) << err.message;
    const std::vector<float> &want = ref.params(l);
    ASSERT_EQ(got.size(), want.size());
    EXPECT_EQ(std::memcmp(got.data(), want.data(), 4 * got.size()), 0)
        << what << ": layer " << l << " differs";
  }
}

using PlanParam = std::tuple<PlanModel, Case>;

class PlanExec : public testing::TestWithParam<PlanParam> {};

std::string planName(const testing::TestParamInfo<PlanParam> &i) {
  return std::string(std::get<0>(i.param).name) + "_" +
         caseName(testing::TestParamInfo<Case>(std::get<1>(i.param), 0));
}

TEST_P(PlanExec, BitExactAndMovesWhatThePlanPredicts) {
  const PlanModel &pm = std::get<0>(GetParam());
  const Case c = std::get<1>(GetParam());
  const auto model = pm.make();
  const uint32_t L = model->layers();
  std::string text = planned(c, pm);
  ASSERT_FALSE(text.empty());
  OffloadSchedule schedule;
  std::string error;
  ASSERT_TRUE(parseSchedule(text, "plan.json", schedule, error)) << error;
  ASSERT_TRUE(schedule.hasPrediction);
  ASSERT_EQ(scheduleLayers(schedule), L);
  EXPECT_EQ(schedule.abft, AbftMode::Off);

  // The decisions are in the schedule.
  bool paramsMove = false, adamMoves = false;
  for (const ScheduleEntry &e : schedule.entries)
    for (const TensorRef &r : e.swapOut) {
      paramsMove |= r.slot == Slot::Param;
      adamMoves |= r.slot == Slot::AdamM;
    }
  EXPECT_EQ(paramsMove, c.paramHome != Tier::Gpu);
  EXPECT_EQ(adamMoves, c.optimizerHome == Tier::Nvme);
  EXPECT_EQ(schedule.entries[L + 1].phase,
            c.active ? Phase::Optimizer : Phase::Backward);
  uint64_t deviceTensors = 0;
  for (uint32_t l = 0; l < L; ++l)
    for (unsigned s = 0; s < kSlotCount; ++s)
      if (schedule.homes[s] == SLUICE_TIER_DEVICE)
        deviceTensors +=
            (4 * (s == unsigned(Slot::Activation) ? model->activationCount(l)
                                                  : model->paramCount(l)) +
             4095) /
            4096 * 4096;
  if (paramsMove) {
    EXPECT_LT(schedule.deviceBudget, deviceTensors)
        << "the plan keeps less than the whole model on the device";
  }

  ScratchDir dir;
  PlannedRun run(*model, schedule, dir);
  ASSERT_NE(run.trainer, nullptr);
  OffloadTrainer &trainer = *run.trainer;
  InMemoryTrainer ref(*model);
  const int steps = 4;
  sluice_error_t err;
  for (int s = 1; s <= steps; ++s) {
    sluice_tier_stats_t before, after;
    sluice_tier_stats(trainer.manager(), &before);
    uint64_t demandBefore = trainer.stats().demandFetches;
    float loss = 0;
    ASSERT_EQ(trainer.step(&loss, &err), SLUICE_STATUS_OK) << err.message;
    const float want = ref.step();
    EXPECT_EQ(std::memcmp(&loss, &want, sizeof loss), 0) << "step " << s;
    sluice_tier_stats(trainer.manager(), &after);
    if (s == 1)
      continue; // starts from the set-up state, not a steady one
    EXPECT_EQ(trainer.stats().demandFetches, demandBefore)
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
  sluice_tier_stats(trainer.manager(), &st);
  EXPECT_LE(st.device_peak, schedule.deviceBudget);
  EXPECT_LE(st.host_peak, schedule.hostBudget);
  if (paramsMove || adamMoves) {
    EXPECT_GT(schedule.predicted[paramsMove ? SLUICE_TIER_DEVICE
                                            : SLUICE_TIER_HOST]
                  .read,
              0u);
  }
  expectParamsEqual(trainer, ref, L, "after " + std::to_string(steps));
}

INSTANTIATE_TEST_SUITE_P(
    Plans, PlanExec,
    testing::Combine(testing::ValuesIn(kPlanModels),
                     testing::Values(Case{Tier::Gpu, Tier::Host, true},
                                     Case{Tier::Host, Tier::Host, true},
                                     Case{Tier::Host, Tier::Host, false},
                                     Case{Tier::Host, Tier::Nvme, true},
                                     Case{Tier::Nvme, Tier::Nvme, false},
                                     Case{Tier::Gpu, Tier::Nvme, false})),
    planName);

/// sluice-plan-offload --abft: the schedule's "abft" turns the GEMM checks
/// on; with faults injected into 30% of the GEMMs, `recompute` trains the
/// planned model to the in-memory bits.
class PlanExecAbft : public testing::TestWithParam<PlanModel> {};

TEST_P(PlanExecAbft, TheExportedScheduleTurnsTheChecksOn) {
  const PlanModel &pm = GetParam();
  const auto model = pm.make();
  std::string text = planned({Tier::Host, Tier::Host, true}, pm, "recompute");
  ASSERT_FALSE(text.empty());
  EXPECT_NE(text.find("\"abft\": \"recompute\""), std::string::npos);
  OffloadSchedule schedule;
  std::string error;
  ASSERT_TRUE(parseSchedule(text, "plan.json", schedule, error)) << error;
  EXPECT_EQ(schedule.abft, AbftMode::Recompute);
  FaultInjection faults;
  faults.probability = 0.3;
  faults.minBit = 23; // sign and exponent: above any threshold
  ScratchDir dir;
  PlannedRun run(*model, schedule, dir, faults);
  ASSERT_NE(run.trainer, nullptr);
  InMemoryTrainer ref(*model);
  sluice_error_t err;
  for (int s = 1; s <= 3; ++s) {
    float loss = 0;
    ASSERT_EQ(run.trainer->step(&loss, &err), SLUICE_STATUS_OK) << err.message;
    const float want = ref.step();
    EXPECT_EQ(std::memcmp(&loss, &want, sizeof loss), 0) << "step " << s;
  }
  const AbftStats &st = run.trainer->stats().abft;
  EXPECT_GT(st.injected, 3u);
  EXPECT_GT(st.detected, 0u);
  EXPECT_EQ(st.recomputed, st.detected);
  EXPECT_EQ(st.detectedInjected, st.injectedDetectable);
  expectParamsEqual(*run.trainer, ref, model->layers(), "checked");
}

INSTANTIATE_TEST_SUITE_P(Models, PlanExecAbft, testing::ValuesIn(kPlanModels),
                         [](const testing::TestParamInfo<PlanModel> &i) {
                           return std::string(i.param.name);
                         });

TEST(PlanExport, Errors) {
  FinetuneJob job = mlpJob();
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

TEST(TransformerPlanExport, Errors) {
  FinetuneJob j = transformerJob();
  // The runtime model must have the plan's layers plus embedding and head.
  auto rm = transformerRuntimeModel(j.model, j.batch);
  ASSERT_TRUE(bool(rm));
  EXPECT_EQ(rm->layers(), 4);
  EXPECT_EQ(rm->paramCount(1), int64_t(runtimeTransformer().paramCount(1)));
  EXPECT_EQ(rm->paramCount(0), int64_t(runtimeTransformer().paramCount(0)));
  EXPECT_EQ(rm->paramCount(3), int64_t(runtimeTransformer().paramCount(3)));
  EXPECT_EQ(rm->actCount(0), int64_t(runtimeTransformer().activationCount(0)));
  EXPECT_EQ(rm->actCount(2), int64_t(runtimeTransformer().activationCount(2)));
  FinetuneJob other = j;
  other.model.layers = 3;
  auto plan = planFinetune(other, smallMachine(), {});
  ASSERT_TRUE(bool(plan));
  auto bad = finetuneRuntimeSchedule(*plan, other, {}, *rm);
  ASSERT_FALSE(bool(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "the runtime " + rm->name +
                " has 4 layers, the plan 3 (expected 5)");
  auto llama = transformerRuntimeModel(
      model::TransformerConfig::llama(2, 32, 4, 2, 64, 16, 64), 4);
  ASSERT_FALSE(bool(llama));
  EXPECT_EQ(llvm::toString(llama.takeError()),
            "the runtime's transformer has no grouped-query attention (kv "
            "heads 2, heads 4); not supported yet");
  model::TransformerConfig big = j.model;
  big.vocab = 100000;
  auto tooBig = transformerRuntimeModel(big, 4);
  ASSERT_FALSE(bool(tooBig));
  EXPECT_NE(llvm::toString(tooBig.takeError()).find("got vocab 100000"),
            std::string::npos);
}

} // namespace
