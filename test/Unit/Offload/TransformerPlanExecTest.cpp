//===- TransformerPlanExecTest.cpp - Planned schedules on the transformer ===//
//
// The planner's schedules executed on the runtime's transformer: a small
// GPT job (2 layers, hidden 32, 4 heads, seq 16, vocab 64, batch 4) is
// planned on a 64 MiB-GPU machine under the decision sets PlanExecTest
// uses for the MLP, exported with transformerRuntimeModel (the planned
// model itself, fp32, 4 runtime layers: embedding, 2 blocks, head), read
// back and executed by the offload trainer: parameters and losses
// bit-identical to InMemoryTrainer after 4 steps; every steady-state step
// moves exactly the payload bytes per home tier the exporter predicted;
// no demand fetches; peaks within the planned budgets.
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

FinetuneJob job() {
  return {model::TransformerConfig::gpt(2, 32, 4, 16, 64), 4, 0};
}

/// The runtime's transformer for job(): the same shape, fp32.
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

std::string planned(const Case &c) {
  Machine m = Machine::rtx4090With12Nvme();
  m.gpuMemory = 64.0 * 1024 * 1024;
  FinetuneOptions o;
  o.paramHome = c.paramHome;
  o.optimizerHome = c.optimizerHome;
  o.activeGradientOffload = c.active;
  auto plan = planFinetune(job(), m, o);
  EXPECT_TRUE(bool(plan));
  if (!plan)
    return "";
  EXPECT_TRUE(plan->feasible) << plan->infeasibleReason;
  auto rm = transformerRuntimeModel(job().model, job().batch);
  if (!rm) {
    ADD_FAILURE() << llvm::toString(rm.takeError());
    return "";
  }
  auto doc = finetuneRuntimeSchedule(*plan, job(), o, *rm);
  EXPECT_TRUE(bool(doc)) << (doc ? "" : llvm::toString(doc.takeError()));
  return doc ? llvm::formatv("{0:2}", *doc).str() : "";
}

class TransformerPlanExec : public testing::TestWithParam<Case> {};

TEST_P(TransformerPlanExec, BitExactAndMovesWhatThePlanPredicts) {
  const Case c = GetParam();
  const TransformerConfig config = runtimeTransformer();
  const TransformerModel model(config);
  std::string text = planned(c);
  ASSERT_FALSE(text.empty());
  OffloadSchedule schedule;
  std::string error;
  ASSERT_TRUE(parseSchedule(text, "plan.json", schedule, error)) << error;
  ASSERT_TRUE(schedule.hasPrediction);
  ASSERT_EQ(scheduleLayers(schedule), config.layers());
  bool paramsMove = false, adamMoves = false;
  for (const ScheduleEntry &e : schedule.entries)
    for (const TensorRef &r : e.swapOut) {
      paramsMove |= r.slot == Slot::Param;
      adamMoves |= r.slot == Slot::AdamM;
    }
  EXPECT_EQ(paramsMove, c.paramHome != Tier::Gpu);
  EXPECT_EQ(adamMoves, c.optimizerHome == Tier::Nvme);

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
  ASSERT_EQ(OffloadTrainer::create(model, options, trainer, &err),
            SLUICE_STATUS_OK)
      << err.message;
  InMemoryTrainer ref(model);
  const int steps = 4;
  for (int s = 1; s <= steps; ++s) {
    sluice_tier_stats_t before, after;
    sluice_tier_stats(trainer->manager(), &before);
    uint64_t demandBefore = trainer->stats().demandFetches;
    float loss = 0;
    ASSERT_EQ(trainer->step(&loss, &err), SLUICE_STATUS_OK) << err.message;
    float want = ref.step();
    EXPECT_EQ(std::memcmp(&loss, &want, sizeof loss), 0) << "step " << s;
    sluice_tier_stats(trainer->manager(), &after);
    if (s == 1)
      continue;
    EXPECT_EQ(trainer->stats().demandFetches, demandBefore) << "step " << s;
    for (sluice_tier_t tier : {SLUICE_TIER_DEVICE, SLUICE_TIER_HOST}) {
      const uint64_t counter = tier == SLUICE_TIER_HOST ? 8 : 0;
      EXPECT_EQ(after.tier_bytes_written[tier] -
                    before.tier_bytes_written[tier],
                schedule.predicted[tier].written + counter)
          << "step " << s << ", tier " << tier << ", bytes written";
      EXPECT_EQ(after.tier_bytes_read[tier] + after.tier_bytes_reused[tier] -
                    before.tier_bytes_read[tier] -
                    before.tier_bytes_reused[tier],
                schedule.predicted[tier].read + counter)
          << "step " << s << ", tier " << tier << ", bytes read back";
    }
  }
  sluice_tier_stats_t st;
  sluice_tier_stats(trainer->manager(), &st);
  EXPECT_LE(st.device_peak, schedule.deviceBudget);
  EXPECT_LE(st.host_peak, schedule.hostBudget);
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

INSTANTIATE_TEST_SUITE_P(Plans, TransformerPlanExec,
                         testing::Values(Case{Tier::Gpu, Tier::Host, true},
                                         Case{Tier::Host, Tier::Host, true},
                                         Case{Tier::Host, Tier::Host, false},
                                         Case{Tier::Host, Tier::Nvme, true},
                                         Case{Tier::Nvme, Tier::Nvme, false},
                                         Case{Tier::Gpu, Tier::Nvme, false}),
                         caseName);

TEST(TransformerPlanExport, Errors) {
  FinetuneJob j = job();
  // The runtime model must have the plan's layers plus embedding and head.
  auto rm = transformerRuntimeModel(j.model, j.batch);
  ASSERT_TRUE(bool(rm));
  EXPECT_EQ(rm->layers(), 4);
  EXPECT_EQ(rm->paramCount(1), int64_t(runtimeTransformer().paramCount(1)));
  EXPECT_EQ(rm->paramCount(0), int64_t(runtimeTransformer().paramCount(0)));
  EXPECT_EQ(rm->paramCount(3), int64_t(runtimeTransformer().paramCount(3)));
  EXPECT_EQ(rm->actCount(0), int64_t(runtimeTransformer().activationCount(0)));
  EXPECT_EQ(rm->actCount(2), int64_t(runtimeTransformer().activationCount(2)));
  Machine m = Machine::rtx4090With12Nvme();
  m.gpuMemory = 64.0 * 1024 * 1024;
  FinetuneJob other = j;
  other.model.layers = 3;
  auto plan = planFinetune(other, m, {});
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
