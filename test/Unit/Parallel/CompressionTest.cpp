//===- CompressionTest.cpp - Optimus-CC in the 3D-parallel cost model -----===//
//
// Hand-computed values of the compressed traffic, its compute, the
// epilogue-only critical path and the selective stage compression of the
// gradient reduction (docs/parallel.md, "Optimus-CC compression").
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Parallel/ParallelModel.h"
#include "compiler/Analysis/Parallel/ParallelSearch.h"

#include "gtest/gtest.h"

using namespace sluice;
using namespace sluice::parallel;

namespace {

constexpr double GiB = 1024.0 * 1024.0 * 1024.0;

/// A small GPT: 4 layers, h 1024, 16 heads, s 2048, V 51200.
TrainJob smallGpt(int64_t batch) {
  TrainJob j;
  j.model = model::TransformerConfig::gpt(4, 1024, 16, 2048, 51200);
  j.globalBatch = batch;
  return j;
}

/// `hosts` A100s, one per host, linked at `inter` bytes/s.
ParallelCluster a100s(int64_t hosts, double inter) {
  return ParallelCluster::uniform(hosts, 1, 80 * GiB, 312e12, 2039e9, 300e9,
                                  inter);
}

ParallelConfig cfg(int64_t t, int64_t p, int64_t d, int64_t b) {
  ParallelConfig c;
  c.tp = t;
  c.pp = p;
  c.dp = d;
  c.microBatch = b;
  return c;
}

// (rows + cols) r elements, capped at the matrix itself.
TEST(OptimusCC, LowRankBytes) {
  EXPECT_DOUBLE_EQ(lowRankBytes(2048, 1024, 16, 2), 2.0 * (2048 + 1024) * 16);
  EXPECT_DOUBLE_EQ(lowRankBytes(8, 8, 16, 2), 2.0 * 64);
}

// The backward send of one micro-batch (b s x h = 2048 x 1024 bf16, 4 MiB)
// at rank 16 is 2 (2048 + 1024) 16 = 98,304 B; compressing and
// decompressing are three thin GEMMs, each moving 2 (2048*1024 + 2048*16 +
// 1024*16) = 4,292,608 B at 2039 GB/s (memory-bound on an A100).
TEST(OptimusCC, CompressedBackwardSend) {
  TrainJob job = smallGpt(8);
  ParallelCluster cl = a100s(2, 1e9);
  ModelOptions o;
  o.compressRank = 16;
  CommTimes ct = commTimes(job, cl, cfg(1, 2, 1, 1), Placement::identity(2), o);
  const double bw = cl.bw(1, 0) * 0.85, lat = cl.lat(1, 0);
  EXPECT_DOUBLE_EQ(ct.p2pBackward, 4194304.0 / bw + lat);
  EXPECT_NEAR(ct.p2pBackwardCompressed,
              98304.0 / bw + lat + 3.0 * 4292608.0 / 2039e9, 1e-12);
  EXPECT_DOUBLE_EQ(ct.p2p, 2.0 * (4194304.0 / bw + lat));
  // Off: nothing of it is computed.
  CommTimes off =
      commTimes(job, cl, cfg(1, 2, 1, 1), Placement::identity(2), {});
  EXPECT_EQ(off.p2pBackward, 0.0);
  EXPECT_TRUE(off.dataPerStage.empty());
}

// Pipette's path less v (Cb - Cb'): p 4, m 8, F 1, B 2, C 0.4:
// 2 (4 x 3 + 0.4) + 3 x 3 = 33.8, less 0.15; interleaved (v 2)
// 2 (12 + 0.8) + 9 / 2 = 30.1, less 0.3; one stage: m (F + B).
TEST(OptimusCC, EpilogueCriticalPath) {
  EXPECT_DOUBLE_EQ(epilogueCriticalPath(4, 8, 1, 1, 2, 0.4, 0.2, 0.05),
                   33.8 - 0.15);
  EXPECT_DOUBLE_EQ(epilogueCriticalPath(4, 8, 2, 1, 2, 0.4, 0.2, 0.05),
                   30.1 - 0.3);
  EXPECT_DOUBLE_EQ(epilogueCriticalPath(4, 2, 1, 1, 2, 0.4, 0.2, 0.05),
                   4 * 3 + 0.4 + 3 - 0.15);
  EXPECT_DOUBLE_EQ(epilogueCriticalPath(1, 8, 1, 1, 2, 0, 0, 0), 24.0);
}

// target = max_s min(D_s, D'_s) = 4; only the stages above it (1 and 3)
// are compressed, not stage 0 although compression would shorten it.
TEST(OptimusCC, SelectiveStageCompression) {
  double time = 0;
  EXPECT_EQ(selectDataStages({3, 5, 2, 5}, {2, 1, 1.5, 4}, time),
            (std::vector<int64_t>{1, 3}));
  EXPECT_DOUBLE_EQ(time, 4.0);
  // Compression that costs more than it saves: none, the plain maximum.
  EXPECT_TRUE(selectDataStages({1, 1}, {2, 2}, time).empty());
  EXPECT_DOUBLE_EQ(time, 1.0);
}

// The gradient all-reduce compressed: each layer's four weight matrices
// (h x 3h, h x h, h x 4h, 4h x h) at rank 64, the rest of the stage's
// parameters (embedding, biases, norms) in fp32; on 2 GPUs a ring moves
// 2 (k-1)/k = 1 x the bytes.
TEST(OptimusCC, CompressedGradients) {
  TrainJob job = smallGpt(8);
  ParallelCluster cl = a100s(2, 1e9);
  ModelOptions o;
  o.compressRank = 64;
  CommTimes ct = commTimes(job, cl, cfg(1, 1, 2, 1), Placement::identity(2), o);
  ASSERT_EQ(ct.dataPerStage.size(), 1u);
  const double h = 1024;
  const double params =
      static_cast<double>(model::countParameters(job.model).total());
  const double full = 12 * h * h, low = 64 * (4 * h + 2 * h + 5 * h + 5 * h);
  const double elems = params - 4 * (full - low);
  const double bw = cl.bw(0, 1) * 0.85;
  EXPECT_DOUBLE_EQ(ct.dataPerStage[0], 4.0 * params / bw + 2 * cl.lat(0, 1));
  EXPECT_GT(ct.dataPerStageCompressed[0], 4.0 * elems / bw);
  EXPECT_LT(ct.dataPerStageCompressed[0], ct.dataPerStage[0]);
}

// A slow link between two hosts (1 GB/s): the epilogue's backward sends
// and the gradient reduction are compressed and the iteration drops; on a
// fast one (900 GB/s) the compute costs more than it saves: nothing.
TEST(OptimusCC, KeptOnlyWherePays) {
  TrainJob job = smallGpt(8);
  ModelOptions o;
  o.compressRank = 16;
  for (const ParallelConfig &c : {cfg(1, 2, 1, 1), cfg(1, 1, 2, 1)}) {
    ParallelCluster slow = a100s(2, 1e9), fast = a100s(2, 900e9);
    Estimate s = evaluate(job, slow, c, Placement::identity(2), o);
    Estimate plain = evaluate(job, slow, c, Placement::identity(2), {});
    EXPECT_EQ(s.time.compressRank, 16) << c.str();
    EXPECT_DOUBLE_EQ(s.time.uncompressedIteration, plain.time.iteration);
    EXPECT_LT(s.time.iteration, plain.time.iteration);
    EXPECT_NEAR(s.time.iteration + s.time.epilogueSaving + s.time.dataSaving,
                plain.time.iteration, 1e-9 * plain.time.iteration);
    Estimate f = evaluate(job, fast, c, Placement::identity(2), o);
    EXPECT_EQ(f.time.compressRank, 0) << c.str();
    EXPECT_EQ(f.time.compressedMicroBatches, 0);
    EXPECT_TRUE(f.time.compressedDataStages.empty());
    EXPECT_DOUBLE_EQ(f.time.iteration, f.time.uncompressedIteration);
  }
  // pp 2, m 8: the cool-down is the last min(m, p - 1) = 1 micro-batch.
  ParallelCluster slow = a100s(2, 1e9);
  Estimate s = evaluate(job, slow, cfg(1, 2, 1, 1), Placement::identity(2), o);
  EXPECT_EQ(s.time.compressedMicroBatches, 1);
  Estimate d = evaluate(job, slow, cfg(1, 1, 2, 1), Placement::identity(2), o);
  EXPECT_EQ(d.time.compressedDataStages, (std::vector<int64_t>{0}));
}

// The search with compression allowed never predicts a slower plan than
// without it, and on the slow link keeps compression.
TEST(OptimusCC, SearchKeepsCompressionWhenFaster) {
  TrainJob job = smallGpt(8);
  ParallelCluster slow = a100s(2, 1e9);
  SearchOptions plain, cc;
  cc.model.compressRank = 16;
  auto a = planParallel(job, slow, plain);
  auto b = planParallel(job, slow, cc);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->feasible && b->feasible);
  EXPECT_LE(b->estimate.time.iteration, a->estimate.time.iteration);
  EXPECT_EQ(b->estimate.time.compressRank, 16);
  EXPECT_EQ(a->estimate.time.compressRank, 0);
}

} // namespace
