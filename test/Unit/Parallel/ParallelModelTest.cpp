//===- ParallelModelTest.cpp - Memory and time of 3D-parallel configs -----===//
#include "compiler/Analysis/Parallel/ParallelModel.h"

#include "compiler/Analysis/TopoGraph.h"
#include "gtest/gtest.h"

using namespace sluice;
using namespace sluice::parallel;
using model::Recompute;

namespace {

constexpr double GiB = 1024.0 * 1024.0 * 1024.0;

/// A small GPT: 4 layers, h 1024, 16 heads, s 2048, V 51200.
TrainJob smallGpt(int64_t batch) {
  TrainJob j;
  j.model = model::TransformerConfig::gpt(4, 1024, 16, 2048, 51200);
  j.globalBatch = batch;
  return j;
}

ParallelCluster a100Hosts(int64_t hosts, int64_t perHost) {
  return ParallelCluster::uniform(hosts, perHost, 80 * GiB, 312e12, 2039e9,
                                  300e9, 25e9);
}

ParallelConfig cfg(int64_t t, int64_t p, int64_t d, int64_t b) {
  ParallelConfig c;
  c.tp = t;
  c.pp = p;
  c.dp = d;
  c.microBatch = b;
  return c;
}

// Korthikanti, TP 2, no SP, no recomputation: s*b*h*(10 + 24/t +
// 5*a*s/(h*t)) = 2048*2*1024*(10 + 12 + 80) = 427,819,008 B per layer; the
// first of 2 stages holds 2 layers x min(p, m) = 2 micro-batches.
TEST(ParallelMemory, KorthikantiTensorParallelFirstStage) {
  TrainJob job = smallGpt(8);
  ParallelCluster cl = a100Hosts(1, 4);
  MemoryEstimate m = estimateMemory(job, cl, cfg(2, 2, 1, 2));
  EXPECT_DOUBLE_EQ(m.activations, 427819008.0 * 2 * 2);
  // States of the first stage: 2 layers x (12h^2 + 13h) / t + V*h/t + s*h
  // = 12,596,224 + 26,214,400 + 2,097,152 = 40,907,776 parameters at
  // Megatron's 2 + 4 + 12 bytes.
  EXPECT_DOUBLE_EQ(m.params, 2.0 * 40907776);
  EXPECT_DOUBLE_EQ(m.grads, 4.0 * 40907776);
  EXPECT_DOUBLE_EQ(m.optimizer, 12.0 * 40907776);
  EXPECT_DOUBLE_EQ(m.calibrated, 1.10 * (18.0 * 40907776 + 427819008.0 * 4));
  EXPECT_DOUBLE_EQ(m.available, 78 * GiB);
}

// TP + SP + selective: 34*s*b*h/t; full recomputation: 2*s*b*h/t (with SP)
// per layer plus one layer's full working set s*b*h*(34 + 5as/h)/t. (A
// small vocabulary: with V 51200 the last stage's fp32 logits, 4*b*s*V/t,
// would outweigh the first stage's activations.)
TEST(ParallelMemory, SequenceParallelAndRecompute) {
  TrainJob job = smallGpt(8);
  job.model.vocab = 1024;
  ParallelCluster cl = a100Hosts(1, 4);
  ParallelConfig c = cfg(2, 2, 1, 2);
  c.sequenceParallel = true;
  c.recompute = Recompute::Selective;
  const double sbh = 2048.0 * 2 * 1024;
  EXPECT_DOUBLE_EQ(estimateMemory(job, cl, c).activations,
                   34.0 * sbh / 2 * 2 * 2);
  c.recompute = Recompute::Full;
  EXPECT_DOUBLE_EQ(estimateMemory(job, cl, c).activations,
                   2.0 * sbh / 2 * 2 * 2 + sbh / 2 * (34.0 + 5.0 * 16 * 2));
}

// The distributed optimizer (ZeRO-1 with Megatron's fp32 gradients):
// 6 + 12/d bytes per parameter.
TEST(ParallelMemory, DistributedOptimizer) {
  TrainJob job = smallGpt(8);
  ParallelCluster cl = a100Hosts(1, 4);
  ParallelConfig c = cfg(2, 1, 2, 1);
  c.zeroStage = 1;
  MemoryEstimate m = estimateMemory(job, cl, c);
  // pp 1: all 4 layers, embedding and positions (tied head).
  const double n = 4.0 * 12596224 / 2 + 26214400 + 2097152 + 2048;
  EXPECT_DOUBLE_EQ(m.params + m.grads + m.optimizer, n * (6.0 + 12.0 / 2));
}

// Interleaving multiplies the first stage's activations by
// 1 + (p-1)/(p*v).
TEST(ParallelMemory, Interleaved) {
  TrainJob job = smallGpt(16);
  ParallelCluster cl = a100Hosts(1, 4);
  ParallelConfig c = cfg(1, 2, 2, 1);
  const double plain = estimateMemory(job, cl, c).activations;
  c.virtualStages = 2;
  EXPECT_DOUBLE_EQ(estimateMemory(job, cl, c).activations,
                   plain * (1.0 + 1.0 / 4.0));
}

TEST(ParallelTime, PipetteCriticalPath) {
  // m >= p: floor(m/p)(p(F+B) + C) + (p-1)(F+B).
  EXPECT_DOUBLE_EQ(pipetteCriticalPath(4, 8, 1, 1, 2, 0.5),
                   2 * (4 * 3 + 0.5) + 3 * 3);
  // m < p: p(F+B) + C + (m-1)(F+B).
  EXPECT_DOUBLE_EQ(pipetteCriticalPath(4, 2, 1, 1, 2, 0.5), 12 + 0.5 + 3);
  // Interleaved: the bubble / v, the round's p2p v times.
  EXPECT_DOUBLE_EQ(pipetteCriticalPath(4, 8, 2, 1, 2, 0.5),
                   2 * (12 + 2 * 0.5) + 3 * 3 / 2.0);
  // No pipeline: m (F + B).
  EXPECT_DOUBLE_EQ(pipetteCriticalPath(1, 8, 1, 1, 2, 0.5), 24);
}

TEST(ParallelTime, RingAllReduceUsesSlowestLink) {
  ParallelCluster cl =
      ParallelCluster::uniform(1, 4, 80 * GiB, 312e12, 0, 100e9, 100e9, 0, 0);
  // (The matrix holds floats: 1e-7 relative.)
  EXPECT_NEAR(ringAllReduce(cl, {0, 1, 2, 3}, 1e9, 1.0),
              2.0 * 3 / 4 * 1e9 / 100e9, 1e-9);
  // One slow pair on the ring bounds it.
  cl.link(1, 2).bandwidth = 10e9;
  EXPECT_DOUBLE_EQ(ringAllReduce(cl, {0, 1, 2, 3}, 1e9, 1.0),
                   2.0 * 3 / 4 * 1e9 / 10e9);
  // A ring that avoids it does not see it.
  EXPECT_NEAR(ringAllReduce(cl, {0, 2, 1, 3}, 1e9, 1.0),
              2.0 * 3 / 4 * 1e9 / 100e9, 1e-9);
  EXPECT_EQ(ringAllReduce(cl, {0}, 1e9, 1.0), 0);
}

// Communication follows the placement: TP over a slow pair costs more.
TEST(ParallelTime, TensorGroupOnItsLinks) {
  TrainJob job = smallGpt(8);
  ParallelCluster cl = a100Hosts(2, 2);
  ParallelConfig c = cfg(2, 1, 2, 1);
  CommTimes fast = commTimes(job, cl, c, Placement::identity(4));
  Placement split;
  split.gpuOfRank = {0, 2, 1, 3}; // each TP pair across the hosts
  CommTimes slow = commTimes(job, cl, c, split);
  EXPECT_GT(slow.tensor, fast.tensor * 5);
  // ... and DP then runs inside the hosts.
  EXPECT_LT(slow.data, fast.data);
}

TEST(ParallelTime, ModelFlopsAndThroughput) {
  TrainJob job = smallGpt(8);
  ParallelCluster cl = a100Hosts(1, 4);
  Estimate e = evaluate(job, cl, cfg(1, 1, 4, 2), Placement::identity(4));
  ASSERT_EQ(e.rejected, Constraint::None);
  EXPECT_DOUBLE_EQ(e.time.modelFlops,
                   model::trainingFlops(job.model, 8).model());
  EXPECT_NEAR(e.time.tflopsPerGpu * 1e12 * 4 * e.time.iteration,
              e.time.modelFlops, 1e-6 * e.time.modelFlops);
  EXPECT_GT(e.time.mfu, 0.05);
  EXPECT_LT(e.time.mfu, 0.75); // never above the kernel efficiency
  EXPECT_GT(e.time.dataComm, 0);
  EXPECT_EQ(e.time.p2p, 0);
}

TEST(ParallelShape, Rejections) {
  TrainJob job = smallGpt(8);
  ParallelCluster cl = a100Hosts(2, 2);
  std::string why;
  EXPECT_EQ(checkShape(job, cl, cfg(4, 1, 1, 1), &why), Constraint::TensorSpan);
  EXPECT_EQ(why, "tp 4 spans hosts of 2 gpus");
  EXPECT_EQ(checkShape(job, cl, cfg(1, 4, 1, 3), &why),
            Constraint::Divisibility);
  EXPECT_EQ(why, "dp 1 x micro-batch 3 does not divide batch 8");
  job.model.heads = 3;
  job.model.hidden = 1023;
  EXPECT_EQ(checkShape(job, cl, cfg(2, 1, 2, 1), &why),
            Constraint::Divisibility);
  EXPECT_EQ(why, "tp 2 does not divide heads 3 (kv heads 3, ffn 4092)");
}

// The cluster view of a topology: hosts from groups, measured pairs over
// widest paths.
TEST(ParallelCluster, FromTopology) {
  analysis::TopoGraph g;
  unsigned gpus[4], sw[2];
  for (unsigned h = 0; h < 2; ++h) {
    std::string host = "s[" + std::to_string(h) + "]";
    sw[h] = g.addDevice(host + ".nic", "nic");
    for (unsigned l = 0; l < 2; ++l) {
      unsigned d = g.addDevice(host + ".gpu[" + std::to_string(l) + "]", "gpu");
      g.addQuantity(d, "memory", 80 * GiB, Dim::bytes());
      g.addQuantity(d, "compute", 312e12, Dim::compute());
      gpus[h * 2 + l] = d;
    }
    g.addLink(gpus[h * 2], gpus[h * 2 + 1], 300e9, 1e-6, true);
    g.addLink(gpus[h * 2], sw[h], 25e9, 1e-6, true);
    g.addLink(gpus[h * 2 + 1], sw[h], 25e9, 1e-6, true);
  }
  g.addLink(sw[0], sw[1], 50e9, 2e-6, true);
  g.addMeasured(gpus[0], gpus[1], 250e9);
  auto cl = clusterFromTopo(g, "pair");
  ASSERT_TRUE(static_cast<bool>(cl)) << llvm::toString(cl.takeError());
  EXPECT_EQ(cl->hosts, 2);
  EXPECT_EQ(cl->gpusPerHost, 2);
  EXPECT_EQ(cl->hostNames[1], "s[1]");
  EXPECT_EQ(cl->measuredPairs, 1);
  EXPECT_FLOAT_EQ(cl->bw(0, 1), 250e9); // measured
  // Modeled, inside a host: the max flow (the link and the detour through
  // the NIC, 300 + 25 GB/s).
  EXPECT_FLOAT_EQ(cl->bw(1, 0), 325e9);
  EXPECT_FLOAT_EQ(cl->bw(2, 3), 325e9);
  EXPECT_FLOAT_EQ(cl->bw(0, 2), 25e9); // other hosts: the widest path
  EXPECT_FLOAT_EQ(cl->lat(0, 2), 4e-6);

  // A host with fewer GPUs is an error that names it.
  unsigned extra = g.addDevice("s[2].gpu[0]", "gpu");
  g.addQuantity(extra, "memory", 80 * GiB, Dim::bytes());
  g.addQuantity(extra, "compute", 312e12, Dim::compute());
  auto bad = clusterFromTopo(g, "pair");
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "host 's[2]' has 1 gpus but 's[0]' has 2 (the parallel planner "
            "needs the same number of gpus in every host)");
}

// Optimizer offload (ZeRO-Offload): the optimizer shard leaves the GPU for
// the host (every GPU of a host its own), and the step is the gradient
// shard down, the host CPUs' update of all its GPUs' shards, and the fp16
// parameters up.
TEST(ParallelOffload, MemoryAndStepByHand) {
  TrainJob job = smallGpt(8);
  ParallelCluster cl = a100Hosts(1, 4);
  ASSERT_FALSE(cl.canOffload());
  cl.hostMemory = 512 * GiB;
  cl.hostAdamRate = 1e9;
  cl.hostLinkBandwidth = 20e9;
  ParallelConfig c = cfg(2, 1, 2, 1);
  c.zeroStage = 1;
  MemoryEstimate on = estimateMemory(job, cl, c);
  c.offloadOptimizer = false;
  MemoryEstimate off = estimateMemory(job, cl, c);
  const double n = 4.0 * 12596224 / 2 + 26214400 + 2097152 + 2048;
  c.offloadOptimizer = true;
  on = estimateMemory(job, cl, c);
  EXPECT_EQ(on.optimizer, 0.0);
  EXPECT_DOUBLE_EQ(on.params + on.grads, n * 6.0);
  EXPECT_DOUBLE_EQ(on.hostNeed, 4 * off.optimizer); // 4 GPUs per host
  EXPECT_DOUBLE_EQ(on.hostNeed, 4 * n * 12.0 / 2);
  EXPECT_DOUBLE_EQ(on.hostAvailable, 0.9 * 512 * GiB);
  EXPECT_LT(on.calibrated, off.calibrated);
  // The step: fp32 gradient shard (Megatron) down, update of 4 shards,
  // fp16 shard up.
  Estimate e = evaluate(job, cl, c, Placement::identity(4));
  ASSERT_EQ(e.rejected, Constraint::None) << e.reason;
  const double shard = n / 2;
  EXPECT_NEAR(e.time.optimizer,
              4.0 * shard / 20e9 + 4 * shard / 1e9 + 2.0 * shard / 20e9, 1e-12);
  // ZeRO-3's gradients are fp16.
  c.zeroStage = 3;
  e = evaluate(job, cl, c, Placement::identity(4));
  ASSERT_EQ(e.rejected, Constraint::None) << e.reason;
  EXPECT_NEAR(e.time.optimizer,
              2.0 * shard / 20e9 + 4 * shard / 1e9 + 2.0 * shard / 20e9, 1e-12);
}

TEST(ParallelOffload, HostMemoryBindsAndShapeNeedsZero) {
  TrainJob job = smallGpt(8);
  ParallelCluster cl = a100Hosts(1, 4);
  cl.hostMemory = 1 * GiB;
  cl.hostAdamRate = 1e9;
  cl.hostLinkBandwidth = 20e9;
  ParallelConfig c = cfg(2, 1, 2, 1);
  c.zeroStage = 1;
  c.offloadOptimizer = true;
  Estimate e = evaluate(job, cl, c, Placement::identity(4));
  EXPECT_EQ(e.rejected, Constraint::Memory);
  EXPECT_EQ(e.reason.rfind("host memory: need ", 0), 0u) << e.reason;
  c.zeroStage = 0;
  std::string why;
  EXPECT_EQ(checkShape(job, cl, c, &why), Constraint::Divisibility);
  EXPECT_EQ(why, "optimizer offload needs ZeRO stage 1 or more");
}

// clusterFromTopo reads the host figures from the CPUs of each host: the
// link share is the min cut over the host's GPUs.
TEST(ParallelOffload, HostFiguresFromTopology) {
  analysis::TopoGraph g;
  unsigned cpu = g.addDevice("cpu", "cpu");
  g.addQuantity(cpu, "memory", 512 * GiB, Dim::bytes());
  g.addQuantity(cpu, "memory_bandwidth", 204.8e9, Dim::bandwidth());
  unsigned sw = g.addDevice("plx", "switch");
  g.addLink(cpu, sw, 32e9, 0, true);
  for (int i = 0; i < 4; ++i) {
    unsigned d = g.addDevice("gpu[" + std::to_string(i) + "]", "gpu");
    g.addQuantity(d, "memory", 24 * GiB, Dim::bytes());
    g.addQuantity(d, "compute", 165.2e12, Dim::compute());
    g.addLink(sw, d, 25e9, 0, true);
  }
  auto cl = clusterFromTopo(g, "box");
  ASSERT_TRUE(static_cast<bool>(cl)) << llvm::toString(cl.takeError());
  EXPECT_TRUE(cl->canOffload());
  EXPECT_DOUBLE_EQ(cl->hostMemory, 512 * GiB);
  EXPECT_DOUBLE_EQ(cl->hostLinkBandwidth, 8e9);
  EXPECT_DOUBLE_EQ(cl->hostAdamRate, 204.8e9 * 0.15 / 28);
}

} // namespace
