//===- OffloadExportTest.cpp - Traces, DeepSpeed configs, summaries -------===//
#include "compiler/Analysis/Offload/OffloadExport.h"
#include "compiler/Analysis/Offload/OffloadPresets.h"

#include "gtest/gtest.h"

#include <set>

using namespace sluice;
using namespace sluice::offload;
using llvm::json::Object;

namespace {

struct Fixture {
  FinetuneJob job;
  Machine machine;
  FinetunePlan plan;
};

Fixture finetune(const char *model, int64_t batch) {
  Fixture f{{*modelPreset(model), batch, 0}, Machine::rtx4090With12Nvme(), {}};
  auto p = planFinetune(f.job, f.machine);
  EXPECT_TRUE(static_cast<bool>(p));
  f.plan = *p;
  return f;
}

/// Serialises and parses back, as a consumer would.
llvm::json::Value roundTrip(const llvm::json::Value &v) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << v;
  auto parsed = llvm::json::parse(text);
  EXPECT_TRUE(static_cast<bool>(parsed));
  return parsed ? std::move(*parsed) : llvm::json::Value(nullptr);
}

TEST(Export, ChromeTraceHasOneCompleteEventPerAction) {
  Fixture f = finetune("gpt3-175b", 8);
  ASSERT_TRUE(f.plan.feasible);
  llvm::json::Value v = roundTrip(finetuneTrace(f.plan));
  const llvm::json::Array *ev = v.getAsObject()->getArray("traceEvents");
  ASSERT_TRUE(ev);
  size_t complete = 0;
  std::set<std::string> threads;
  double lastEnd = 0;
  for (const llvm::json::Value &e : *ev) {
    const Object *o = e.getAsObject();
    llvm::StringRef ph = *o->getString("ph");
    // Every event has a category (trace loaders such as tracerbench need
    // one), metadata events Chrome's "__metadata".
    ASSERT_TRUE(o->getString("cat").has_value())
        << o->getString("name").value_or("").str();
    if (ph == "M") {
      EXPECT_EQ(*o->getString("cat"), "__metadata");
    }
    if (ph == "M" && *o->getString("name") == "thread_name")
      threads.insert(o->getObject("args")->getString("name")->str());
    if (ph != "X")
      continue;
    ++complete;
    double ts = *o->getNumber("ts"), dur = *o->getNumber("dur");
    EXPECT_GE(ts, 0);
    EXPECT_GE(dur, 0);
    lastEnd = std::max(lastEnd, ts + dur);
  }
  EXPECT_EQ(complete, f.plan.schedule.size());
  EXPECT_NEAR(lastEnd, f.plan.iterationTime * 1e6, 1);
  for (const char *t : {"GPU compute", "H2D", "D2H", "SSD read", "SSD write",
                        "CPU optimizer"})
    EXPECT_TRUE(threads.count(t)) << t;
}

TEST(Export, DeepSpeedConfigMatchesThePlan) {
  Fixture f = finetune("gpt3-175b", 8);
  ASSERT_TRUE(f.plan.feasible);
  auto ds = deepSpeedConfig(f.plan, f.job, f.machine);
  ASSERT_TRUE(static_cast<bool>(ds));
  llvm::json::Value v = roundTrip(*ds);
  const Object &o = *v.getAsObject();
  EXPECT_EQ(*o.getInteger("train_micro_batch_size_per_gpu"), 8);
  const Object *z = o.getObject("zero_optimization");
  ASSERT_TRUE(z);
  EXPECT_EQ(*z->getInteger("stage"), 3);
  EXPECT_EQ(*z->getObject("offload_param")->getString("device"), "nvme");
  EXPECT_EQ(*z->getObject("offload_optimizer")->getString("device"), "nvme");
  EXPECT_EQ(*z->getObject("offload_optimizer")->getString("nvme_path"),
            "/local_nvme");
  EXPECT_EQ(*z->getObject("offload_optimizer")->getBoolean("pipeline_read"),
            true);
  // Buffers hold the largest tensor (the 50257 x 12288 embedding).
  EXPECT_GE(*z->getObject("offload_param")->getInteger("buffer_size"),
            50257LL * 12288);
  ASSERT_TRUE(o.getObject("aio"));
  EXPECT_EQ(*o.getObject("aio")->getInteger("block_size"), 1048576);

  Fixture small = finetune("gpt3-13b", 8);
  ASSERT_TRUE(small.plan.feasible);
  auto ds2 = deepSpeedConfig(small.plan, small.job, small.machine);
  ASSERT_TRUE(static_cast<bool>(ds2));
  const Object &o2 = *ds2->getAsObject();
  EXPECT_EQ(*o2.getObject("zero_optimization")
                 ->getObject("offload_optimizer")
                 ->getString("device"),
            small.plan.optimizerHome == Tier::Host ? "cpu" : "nvme");
}

TEST(Export, InfeasiblePlansSayWhy) {
  Fixture f = finetune("gpt3-175b", 32);
  ASSERT_FALSE(f.plan.feasible);
  auto ds = deepSpeedConfig(f.plan, f.job, f.machine);
  ASSERT_FALSE(static_cast<bool>(ds));
  EXPECT_NE(llvm::toString(ds.takeError()).find("GPU memory: need"),
            std::string::npos);
  std::string s = finetuneSummary(f.plan, f.job, f.machine);
  EXPECT_NE(s.find("infeasible: GPU memory: need"), std::string::npos) << s;
  llvm::json::Value j = roundTrip(finetunePlanToJson(f.plan, f.job, f.machine));
  EXPECT_EQ(*j.getAsObject()->getBoolean("feasible"), false);
  EXPECT_TRUE(j.getAsObject()->getString("binding_constraint"));
}

TEST(Export, SummaryAndPlanJson) {
  Fixture f = finetune("gpt3-13b", 16);
  ASSERT_TRUE(f.plan.feasible);
  std::string s = finetuneSummary(f.plan, f.job, f.machine);
  EXPECT_NE(s.find("TFLOPS"), std::string::npos);
  EXPECT_NE(s.find("CPU optimizer"), std::string::npos);
  llvm::json::Value j = roundTrip(finetunePlanToJson(f.plan, f.job, f.machine));
  const Object &o = *j.getAsObject();
  EXPECT_NEAR(*o.getNumber("tflops"), f.plan.tflops(), 1e-9);
  EXPECT_EQ(o.getArray("schedule")->size(), f.plan.schedule.size());
}

TEST(Export, FlexGenPolicyFields) {
  InferenceJob job{*modelPreset("opt-30b"), 512, 32};
  Machine m = Machine::t4FlexGen();
  auto p = planInference(job, m);
  ASSERT_TRUE(static_cast<bool>(p));
  llvm::json::Value j = roundTrip(inferencePlanToJson(*p, job, m));
  const Object *q = j.getAsObject()->getObject("flexgen_policy");
  ASSERT_TRUE(q);
  EXPECT_EQ(*q->getInteger("gpu_batch_size"), p->policy.gpuBatch);
  EXPECT_EQ(*q->getInteger("num_gpu_batches"), p->policy.numGpuBatches);
  EXPECT_LE(*q->getInteger("w_gpu_percent") + *q->getInteger("w_cpu_percent"),
            100);
  std::string s = inferenceSummary(*p, job, m);
  EXPECT_NE(s.find("tokens/s"), std::string::npos);
}

} // namespace
