//===- GnnCostTest.cpp - The GNN cost model against hand-computed values --===//
//
// compiler/Analysis/Gnn/GnnCost.h: block sizes of a star and a path worked
// out by hand, parameter and FLOP counts, the cache placement's ranking and
// its errors, drive reads (independent blocks, and simulated batches against
// enumeration), the evaluation's batches, the pipeline's epoch formula and
// the TPC advice.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Gnn/GnnCost.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>

using namespace sluice::gnn;

namespace {

/// A star: centre 0, leaves 1..4, both directions.
struct Star {
  std::vector<uint64_t> offsets{0, 4, 5, 6, 7, 8};
  std::vector<uint32_t> targets{1, 2, 3, 4, 0, 0, 0, 0};
};

/// A directed path 0 -> 1 -> 2 -> 3.
struct Path {
  std::vector<uint64_t> offsets{0, 1, 2, 3, 3};
  std::vector<uint32_t> targets{1, 2, 3};
};

GnnJob smallJob() {
  GnnJob j;
  j.kind = GnnKind::Sage;
  j.fanouts = {2, 2};
  j.features = 10;
  j.hidden = 4;
  j.classes = 3;
  j.batch = 1;
  j.threads = 1;
  return j;
}

GnnMachine simpleMachine() {
  GnnMachine m;
  m.cpu = "c";
  m.cores = 1;
  m.cpuFlops = 1e9;
  m.hostMemory = 1e9;
  m.hostBandwidth = 1e9;
  return m;
}

TEST(GnnCost, StarBlocksByHand) {
  // Seed the centre: hop 1 samples 2 of its 4 leaves, each with
  // probability 1/2: 1 dst, 2 edges, 1 + 4 * 1/2 = 3 src.
  Star s;
  std::vector<double> seed{1, 0, 0, 0, 0};
  BatchProfile p = profileBatch(s.offsets, s.targets, seed, {2});
  ASSERT_EQ(p.hops.size(), 1u);
  EXPECT_DOUBLE_EQ(p.hops[0].dst, 1);
  EXPECT_DOUBLE_EQ(p.hops[0].edges, 2);
  EXPECT_DOUBLE_EQ(p.hops[0].src, 3);
  EXPECT_DOUBLE_EQ(p.inputProbability[1], 0.5);
  // Hop 2: the centre (1 edge to... 2 of 4) and each reached leaf (1 edge
  // back to the centre): dst 3, edges 2 + 4 * 0.5 * 1 = 4; the leaves are
  // reached again by the centre: 1 - (1 - 1/2)(1 - 1/2) = 3/4 each.
  p = profileBatch(s.offsets, s.targets, seed, {2, 2});
  ASSERT_EQ(p.hops.size(), 2u);
  EXPECT_DOUBLE_EQ(p.hops[1].dst, 3);
  EXPECT_DOUBLE_EQ(p.hops[1].edges, 4);
  EXPECT_DOUBLE_EQ(p.hops[1].src, 1 + 4 * 0.75);
  EXPECT_DOUBLE_EQ(p.inputRows(), 4);
}

TEST(GnnCost, SimulatedBatchesOfTheStar) {
  // Seeding the centre always gives 1 dst, 2 edges and 3 src (exact);
  // every leaf a seed of a batch of 1: 1 dst, 1 edge (to the centre), 2 src.
  Star s;
  BatchProfile p =
      simulateBatches(s.offsets, s.targets, {1, 0, 0, 0, 0}, 1, {2}, 8, 7);
  ASSERT_EQ(p.hops.size(), 1u);
  EXPECT_DOUBLE_EQ(p.hops[0].dst, 1);
  EXPECT_DOUBLE_EQ(p.hops[0].edges, 2);
  EXPECT_DOUBLE_EQ(p.hops[0].src, 3);
  p = simulateBatches(s.offsets, s.targets, {0, 1, 1, 1, 1}, 1, {2, 2}, 8, 7);
  EXPECT_DOUBLE_EQ(p.hops[0].src, 2);
  // Hop 2: the leaf (1 edge) and the centre (2 of 4 leaves, one of them
  // possibly the seed): 3 edges, 3 or 4 src.
  EXPECT_DOUBLE_EQ(p.hops[1].dst, 2);
  EXPECT_DOUBLE_EQ(p.hops[1].edges, 3);
  EXPECT_GE(p.hops[1].src, 3);
  EXPECT_LE(p.hops[1].src, 4);
  // The same seed, the same answer.
  BatchProfile q =
      simulateBatches(s.offsets, s.targets, {0, 1, 1, 1, 1}, 1, {2, 2}, 8, 7);
  EXPECT_EQ(q.hops[1].src, p.hops[1].src);
}

TEST(GnnCost, EpochBatchSizes) {
  // 10 seeds in batches of 4: 4, 4, 2; two sets of 874 in batches of 256:
  // 256, 256, 256, 106 each (the evaluation's validation and test sets).
  EXPECT_EQ(epochBatchSizes({10}, 4), (std::vector<uint32_t>{4, 4, 2}));
  EXPECT_EQ(epochBatchSizes({874, 874}, 256),
            (std::vector<uint32_t>{256, 256, 256, 106, 256, 256, 256, 106}));
  EXPECT_EQ(epochBatchSizes({8}, 4), (std::vector<uint32_t>{4, 4}));
  EXPECT_TRUE(epochBatchSizes({0}, 4).empty());
  // Repeated whole to at least 16: 6 epochs of 3 batches.
  std::vector<uint32_t> sim = simulationSizes({4, 4, 2}, 16);
  ASSERT_EQ(sim.size(), 18u);
  EXPECT_EQ(std::count(sim.begin(), sim.end(), 2u), 6);
  // 100 batches (more than 4 x 16): 64 of them, evenly spaced, the last
  // (smaller) one included.
  std::vector<uint32_t> many(99, 256);
  many.push_back(10);
  sim = simulationSizes(many, 16);
  ASSERT_EQ(sim.size(), 64u);
  EXPECT_EQ(sim.back(), 10u);
  EXPECT_EQ(std::count(sim.begin(), sim.end(), 10u), 1);
  EXPECT_TRUE(simulationSizes({}, 16).empty());
}

TEST(GnnCost, SimulatedBatchesOfTheirOwnSizes) {
  // The star's 4 leaves are the seeds. A batch of 4: 4 dst, 4 edges (each
  // leaf to the centre), 5 src; a batch of 1: 1, 1, 2. Sizes {4, 1}: the
  // means 2.5, 2.5, 3.5; batches of the mean size (3) would give 3, 3, 4.
  Star s;
  std::vector<double> leaves{0, 1, 1, 1, 1};
  BatchProfile p =
      simulateBatches(s.offsets, s.targets, leaves, {4, 1}, {2}, 7);
  ASSERT_EQ(p.hops.size(), 1u);
  EXPECT_DOUBLE_EQ(p.hops[0].dst, 2.5);
  EXPECT_DOUBLE_EQ(p.hops[0].edges, 2.5);
  EXPECT_DOUBLE_EQ(p.hops[0].src, 3.5);
  ASSERT_EQ(p.sampledInputs.size(), 2u);
  EXPECT_EQ(p.sampledInputs[0].size(), 5u);
  EXPECT_EQ(p.sampledInputs[1].size(), 2u);
  BatchProfile mean =
      simulateBatches(s.offsets, s.targets, leaves, 3, {2}, 2, 7);
  EXPECT_DOUBLE_EQ(mean.hops[0].src, 4);
}

TEST(GnnCost, IndependentParents) {
  // Two seeds with probability 1/2 each reach vertex 2: q = 1 - 1/4.
  std::vector<uint64_t> offsets{0, 1, 2, 2};
  std::vector<uint32_t> targets{2, 2};
  BatchProfile p = profileBatch(offsets, targets, {0.5, 0.5, 0}, {5});
  EXPECT_DOUBLE_EQ(p.hops[0].dst, 1);
  EXPECT_DOUBLE_EQ(p.hops[0].edges, 1);
  EXPECT_DOUBLE_EQ(p.inputProbability[2], 0.75);
  EXPECT_DOUBLE_EQ(p.hops[0].src, 1.75);
}

TEST(GnnCost, ParametersAndFlops) {
  GnnJob j = smallJob();
  // SAGE stacks W_self over W_neigh: (2 * 10 + 1) * 4 + (2 * 4 + 1) * 3.
  EXPECT_DOUBLE_EQ(parameterCount(j), 111);
  j.kind = GnnKind::Gcn;
  EXPECT_DOUBLE_EQ(parameterCount(j), (10 + 1) * 4 + (4 + 1) * 3);
  j.kind = GnnKind::Sage;
  // One block per layer, the input layer's block first in the hops' reverse.
  BatchProfile p;
  p.hops = {{1, 2, 3}, {3, 4, 4}}; // hop 1 (last layer), hop 2 (input)
  // Input layer: aggregate 4 edges x 10, product 2 * 3 * 20 * 4 = 480;
  // last layer: 2 x 4 + 2 * 1 * 8 * 3 = 56.
  EXPECT_DOUBLE_EQ(batchFlops(j, p, false), 40 + 480 + 8 + 48);
  // Backward: the weight gradient of both, the input gradient and scatter
  // of the last layer only.
  EXPECT_DOUBLE_EQ(batchFlops(j, p, true), 576 + 480 + 48 + 48 + 8);
  // Sparse input of density 0.1: (3 dst + 4 edges) x 1 non-zero x 4 MACs.
  j.sparseInput = true;
  j.inputDensity = 0.1;
  EXPECT_DOUBLE_EQ(batchFlops(j, p, false), 2 * 28 + 56);
}

// GAT, two heads: the closed form of GnnCost.h, term by term by hand.
TEST(GnnCost, GatParametersAndFlops) {
  GnnJob j = smallJob();
  j.kind = GnnKind::Gat;
  j.heads = 2;
  // Layer 0: hidden heads of 4 / 2 = 2 (P = 4): (10 + 2) x 4 + 4 = 52;
  // layer 1: output heads of 3, averaged (P = 6): (4 + 2) x 6 + 3 = 39.
  EXPECT_DOUBLE_EQ(parameterCount(j), 52 + 39);
  BatchProfile p;
  p.hops = {{1, 2, 3}, {3, 4, 4}}; // {dst, edges, src}: last, input layer
  // Layer 0 (S 4, D 3, E 4, P 4, H 2, in 10): projection 2*4*10*4 = 320,
  // scores 2*(4+3)*4 = 56, attention 6*(3+4)*2 = 84, sum 2*7*4 = 56.
  // Layer 1 (S 3, D 1, E 2, P 6, H 2, in 4): 2*3*4*6 = 144, 2*4*6 = 48,
  // 6*3*2 = 36, 2*3*6 = 36.
  EXPECT_DOUBLE_EQ(batchFlops(j, p, false), 516 + 264);
  EXPECT_DOUBLE_EQ(attentionFlops(j, p, false), 84 + 36);
  // Backward, layer 0: weight gradient 320, 4*7*4 = 112, 7*7*2 = 98,
  // 4*7*4 = 112; layer 1: weight and input gradients 2*144, 4*3*6 = 72,
  // 7*3*2 = 42, 4*4*6 = 96.
  EXPECT_DOUBLE_EQ(batchFlops(j, p, true), 780 + 642 + 498);
  EXPECT_DOUBLE_EQ(attentionFlops(j, p, true), 84 + 98 + 36 + 42);
  // Sparse input of density 0.1: every src row projected once, 4 rows x 1
  // non-zero x 4 MACs, instead of the dense 320.
  j.sparseInput = true;
  j.inputDensity = 0.1;
  EXPECT_DOUBLE_EQ(batchFlops(j, p, false), 2 * 16 + 56 + 84 + 56 + 264);
  // The other kinds have no attention.
  j.kind = GnnKind::Gcn;
  EXPECT_DOUBLE_EQ(attentionFlops(j, p, true), 0);
}

// GAT's per-slot loops (a dst's self loop or sampled edge, per head and
// column) are costed by attentionSeconds, term by term, instead of as FLOPs
// at the GEMM efficiency; the other kinds keep their FLOPs alone.
TEST(GnnCost, GatAttentionSecondsTermByTerm) {
  GnnJob j = smallJob();
  j.kind = GnnKind::Gat;
  j.heads = 2;
  j.threads = 2;
  BatchProfile p;
  p.hops = {{1, 2, 3}, {3, 4, 4}}; // {dst, edges, src}: last, input layer
  // The per-slot FLOPs: layer 0 (7 slots, H 2, P 4) 7 (6*2 + 2*4) = 140
  // forward, 7 (7*2 + 4*4) = 210 backward; layer 1 (3 slots, P 6)
  // 3 (12 + 12) = 72, 3 (14 + 24) = 114.
  EXPECT_DOUBLE_EQ(slotFlops(j, p, false), 140 + 72);
  EXPECT_DOUBLE_EQ(slotFlops(j, p, true), 140 + 72 + 210 + 114);
  GnnMachine m = simpleMachine();
  m.cores = 2;
  m.cpuFlops = 2e9;
  GnnCostConstants c;
  c.attentionForwardPerHead = 3e-9;
  c.attentionBackwardPerHead = 5e-9;
  c.attentionBackwardPerColumn = 7e-9;
  c.gatherPerRow = 11e-9;
  // A row of Z: 11 ns + 4 P B at 1 GB/s: 27 ns (P 4), 35 ns (P 6).
  // Forward a slot: 2 heads x 3 ns + one row: layer 0 7 x 33, layer 1
  // 3 x 41.
  const double forward = (7 * 33 + 3 * 41) * 1e-9;
  EXPECT_NEAR(attentionSeconds(j, m, p, false, c), forward, 1e-18);
  // Backward a slot: 2 heads x 5 ns + P x 7 ns + two rows: layer 0
  // 10 + 28 + 54 = 92, layer 1 10 + 42 + 70 = 122.
  const double backward = (7 * 92 + 3 * 122) * 1e-9;
  EXPECT_NEAR(attentionSeconds(j, m, p, true, c), forward + backward, 1e-18);
  // compute: the other FLOPs (1920 - 536) at the GEMM efficiency on two
  // cores of 1 GFLOP/s, plus the attention on the two threads.
  StageTimes t = batchStages(j, m, p, IoLoad{}, true, c);
  EXPECT_NEAR(t.attention, (forward + backward) / 2, 1e-18);
  EXPECT_NEAR(t.compute,
              (1920.0 - 536) / (2e9 * c.cpuGemmEfficiency) +
                  (forward + backward) / 2,
              1e-15);
  StageTimes eval = batchStages(j, m, p, IoLoad{}, false, c);
  EXPECT_NEAR(eval.attention, forward / 2, 1e-18);
  EXPECT_NEAR(eval.compute,
              (780.0 - 212) / (2e9 * c.cpuGemmEfficiency) + forward / 2, 1e-15);
  // A GCN of the same shape: no slots, no attention, its FLOPs alone.
  j.kind = GnnKind::Gcn;
  j.heads = 1;
  EXPECT_DOUBLE_EQ(slotFlops(j, p, true), 0);
  EXPECT_DOUBLE_EQ(attentionSeconds(j, m, p, true, c), 0);
  StageTimes gcn = batchStages(j, m, p, IoLoad{}, true, c);
  EXPECT_DOUBLE_EQ(gcn.attention, 0);
  EXPECT_NEAR(gcn.compute, batchFlops(j, p, true) / (2e9 * c.cpuGemmEfficiency),
              1e-15);
  EXPECT_LT(gcn.compute, t.compute);
}

TEST(GnnCost, PlacementRanksByExpectedAccesses) {
  // Path 0 -> 1 -> 2 -> 3 with vertex 0 the only seed, fanout [1, 1]:
  // expected accesses 1, 1, 1, 0 (vertex 3 is never reached); the rows of
  // ids 0..2 tie and stay in id order, so a 2-row cache holds rows 0, 1.
  Path g;
  std::vector<double> train{1, 0, 0, 0}, eval{0, 0, 0, 0};
  GnnGraph graph{g.offsets, g.targets, train, eval};
  GnnJob j = smallJob();
  j.fanouts = {1, 1};
  j.fromFile = true;
  j.outOfCore = true;
  j.cacheBytes = 2 * j.rowBytes() + 3; // rounds down to 2 rows
  j.fileRows = 4;
  GnnMachine m = simpleMachine();
  m.ssds = 1;
  m.ssdReadBandwidth = 1e9;
  m.ssdIops = 1e5;
  BatchProfile p = profileBatch(g.offsets, g.targets, train, j.fanouts);
  auto placed = placeFeatures(graph, j, m, p);
  ASSERT_TRUE(bool(placed)) << llvm::toString(placed.takeError());
  EXPECT_EQ(placed->hostRows, 2u);
  EXPECT_EQ(placed->ssdRows, 2u);
  EXPECT_EQ(placed->hostBytes, 80u);
  // Rows 0 and 1 are read every batch, row 2 from the drive.
  EXPECT_DOUBLE_EQ(placed->hostReads, 2);
  EXPECT_DOUBLE_EQ(placed->ssdReads, 1);
  EXPECT_DOUBLE_EQ(placed->hitRate, 2.0 / 3.0);
  // The layers on a GPU: half its memory caches the hottest row first.
  m.gpu = "g";
  m.gpuMemory = 2 * j.rowBytes();
  m.computeOnGpu = true;
  placed = placeFeatures(graph, j, m, p);
  ASSERT_TRUE(bool(placed));
  EXPECT_EQ(placed->gpuRows, 1u);
  EXPECT_EQ(placed->hostRows, 2u);
  EXPECT_EQ(placed->ssdRows, 1u);
}

TEST(GnnCost, PlacementErrors) {
  Path g;
  std::vector<double> train{1, 0, 0, 0}, eval(4, 0.0);
  GnnGraph graph{g.offsets, g.targets, train, eval};
  GnnJob j = smallJob();
  j.fromFile = true;
  j.outOfCore = true;
  j.cacheBytes = 2000;
  GnnMachine m = simpleMachine();
  m.hostMemory = 1000;
  BatchProfile p = profileBatch(g.offsets, g.targets, train, j.fanouts);
  auto placed = placeFeatures(graph, j, m, p);
  ASSERT_FALSE(bool(placed));
  EXPECT_EQ(llvm::toString(placed.takeError()),
            "the feature_cache takes 2000 bytes, more than the 900 bytes of "
            "host memory it may use (90% of 1000 bytes)");
  // Rows left for a drive the topology does not have.
  j.cacheBytes = 40;
  placed = placeFeatures(graph, j, m, p);
  ASSERT_FALSE(bool(placed));
  EXPECT_EQ(llvm::toString(placed.takeError()),
            "3 rows (120 bytes) of features fit neither the caches nor a "
            "drive: the topology has no nvme device");
  // Loaded whole: the file must fit host memory.
  j.outOfCore = false;
  j.fileRows = 100;
  placed = placeFeatures(graph, j, m, p);
  ASSERT_FALSE(bool(placed));
  EXPECT_EQ(llvm::toString(placed.takeError()),
            "loading the features whole takes 4000 bytes, more than the 900 "
            "bytes of host memory it may use (90% of 1000 bytes); read them "
            "out of core (feature_cache)");
}

TEST(GnnCost, BlocksAndMergedRequests) {
  // Rows of 2 KiB, two to a 4 KiB block, none cached: rows 0, 1 (block 0)
  // and 2 (block 1) read with probability 1/2 each, row 3 never. Blocks:
  // 3/4 + 1/2; requests: blocks - P(0) P(1) = 1.25 - 3/8.
  std::vector<uint64_t> offsets{0, 0, 0, 0, 0};
  std::vector<uint32_t> targets;
  std::vector<double> seed{0.5, 0.5, 0.5, 0}, eval(4, 0.0);
  GnnGraph graph{offsets, targets, seed, eval};
  GnnJob j = smallJob();
  j.features = 512;
  j.fanouts = {1};
  j.fromFile = j.outOfCore = true;
  j.fileRows = 4;
  GnnMachine m = simpleMachine();
  m.ssds = 1;
  BatchProfile p = profileBatch(offsets, targets, seed, j.fanouts);
  auto placed = placeFeatures(graph, j, m, p);
  ASSERT_TRUE(bool(placed)) << llvm::toString(placed.takeError());
  IoLoad io = driveLoad(graph, j, *placed, p);
  EXPECT_DOUBLE_EQ(io.rows, 1.5);
  EXPECT_DOUBLE_EQ(io.blocks, 1.25);
  EXPECT_DOUBLE_EQ(io.requests, 1.25 - 0.375);
  // Row 3 sits in file row 0's place: rows follow rowOf.
  std::vector<uint32_t> rowOf{3, 1, 2, 0};
  graph.rowOf = rowOf;
  io = driveLoad(graph, j, *placed, p);
  EXPECT_DOUBLE_EQ(io.blocks, 0.5 + 0.75);
  EXPECT_DOUBLE_EQ(io.requests, 1.25 - 0.375);
}

TEST(GnnCost, SimulatedBlocksKeepRowsReadTogether) {
  // An undirected path of 64 vertices, rows of 512 B (8 to a 4 KiB block),
  // none cached; batches of one seed, fanout 2: seed v reads rows v - 1, v
  // and v + 1, adjacent in the file. By enumeration over the 64 seeds:
  // 190/64 rows a batch; 2 blocks when the rows straddle a block boundary
  // (v = 8, 16, ..., 56 and v = 7, 15, ..., 55: 14 seeds), else 1, so
  // 78/64 blocks; always one request (adjacent blocks merge).
  const uint32_t n = 64;
  std::vector<uint64_t> offsets{0};
  std::vector<uint32_t> targets;
  for (uint32_t v = 0; v < n; ++v) {
    if (v > 0)
      targets.push_back(v - 1);
    if (v + 1 < n)
      targets.push_back(v + 1);
    offsets.push_back(targets.size());
  }
  std::vector<double> seed(n, 1.0), eval(n, 0.0);
  GnnGraph graph{offsets, targets, seed, eval};
  GnnJob j = smallJob();
  j.features = 128;
  j.fanouts = {2};
  Placement onDrives;
  onDrives.tierOfRow.assign(n, 2);
  BatchProfile sim =
      simulateBatches(offsets, targets, seed, 1, j.fanouts, 4000, 3);
  ASSERT_EQ(sim.sampledInputs.size(), 4000u);
  IoLoad io = driveLoad(graph, j, onDrives, sim);
  EXPECT_NEAR(io.rows, 190.0 / 64, 0.05);
  EXPECT_NEAR(io.blocks, 78.0 / 64, 0.05);
  EXPECT_DOUBLE_EQ(io.requests, 1);
  // The independent blocks of the analytic profile (each row read with
  // probability about 3/64, a block with 1 - (1 - 3/64)^8) count more than
  // twice the blocks the batches read.
  std::vector<double> q0(n, 1.0 / n);
  IoLoad independent =
      driveLoad(graph, j, onDrives, profileBatch(offsets, targets, q0, {2}));
  EXPECT_NEAR(independent.rows, 190.0 / 64, 0.05);
  EXPECT_GT(independent.blocks, 2 * io.blocks);
  // Rows of 64 KiB (16 blocks each): seed 1 of a 4-vertex path reads rows
  // 0, 1 and 2, 48 adjacent blocks: two requests under the store's 128 KiB
  // (32-block) merge limit.
  std::vector<uint64_t> off4{0, 1, 3, 5, 6};
  std::vector<uint32_t> tgt4{1, 0, 2, 1, 3, 2};
  std::vector<double> seed4{0, 1, 0, 0}, eval4(4, 0.0);
  GnnGraph path4{off4, tgt4, seed4, eval4};
  j.features = 16384;
  Placement four;
  four.tierOfRow.assign(4, 2);
  io = driveLoad(path4, j, four,
                 simulateBatches(off4, tgt4, seed4, 1, j.fanouts, 4, 3));
  EXPECT_DOUBLE_EQ(io.rows, 3);
  EXPECT_DOUBLE_EQ(io.blocks, 48);
  EXPECT_DOUBLE_EQ(io.requests, 2);
}

TEST(GnnCost, EvaluationSetsAreBatchedApart) {
  // The runtime evaluates the validation and the test set one after the
  // other, each in batches of max(batch, 256): 874 + 874 vertices take 4 +
  // 4 batches, not ceil(1748 / 256) = 7; one set of 1748 takes 7.
  GnnJob j = smallJob();
  j.batch = 256;
  j.evalVertices = 1748;
  EXPECT_DOUBLE_EQ(j.evalBatches(), 7);
  j.valVertices = 874;
  EXPECT_DOUBLE_EQ(j.evalBatches(), 8);
  // Batches of 1024: 1 + 1.
  j.batch = 1024;
  EXPECT_DOUBLE_EQ(j.evalBatches(), 2);
  // predictEpoch evaluates that many batches: the star's four leaves, one
  // of them validation, the other three test, in batches of 256: 2.
  Star s;
  std::vector<double> train{1, 0, 0, 0, 0}, eval{0, 1, 1, 1, 1};
  GnnGraph graph{s.offsets, s.targets, train, eval};
  GnnJob k = smallJob();
  k.fromFile = true;
  k.fileRows = 5;
  k.trainVertices = 1;
  k.evalVertices = 4;
  k.valVertices = 1;
  auto e = predictEpoch(graph, k, simpleMachine());
  ASSERT_TRUE(bool(e)) << llvm::toString(e.takeError());
  EXPECT_DOUBLE_EQ(e->evalBatches, 2);
  k.valVertices = 0;
  auto one = predictEpoch(graph, k, simpleMachine());
  ASSERT_TRUE(bool(one));
  EXPECT_DOUBLE_EQ(one->evalBatches, 1);
}

TEST(GnnCost, PipelineEpochFormula) {
  // Star, every leaf a training seed once (4 batches of 1), dense
  // in-memory features of 10 columns.
  Star s;
  std::vector<double> train{0, 1, 1, 1, 1}, eval(5, 0.0);
  GnnGraph graph{s.offsets, s.targets, train, eval};
  GnnJob j = smallJob();
  j.fromFile = true;
  j.fileRows = 5;
  j.trainVertices = 4;
  GnnMachine m = simpleMachine();
  GnnCostConstants c;
  auto e = predictEpoch(graph, j, m, c);
  ASSERT_TRUE(bool(e)) << llvm::toString(e.takeError());
  EXPECT_DOUBLE_EQ(e->batches, 4);
  const StageTimes &b = e->perBatch;
  // The ring: fill, then the slower side, then drain.
  EXPECT_DOUBLE_EQ(e->trainSeconds,
                   b.producer() + 3 * std::max(b.producer(), b.trainer()) +
                       b.trainer());
  EXPECT_DOUBLE_EQ(e->evalSeconds, 0);
  // Compute: the FLOPs at 7% of 1 GFLOP/s on one thread.
  EXPECT_DOUBLE_EQ(b.compute,
                   batchFlops(j, e->train, true) / (1e9 * c.cpuGemmEfficiency));
  // Adam and zeroing: 111 parameters x 32 bytes at 1 GB/s (slower than
  // 5.5 ns a parameter).
  EXPECT_DOUBLE_EQ(b.optimizer, 111 * 32 / 1e9);
  m.hostBandwidth = 1e11;
  auto fast = predictEpoch(graph, j, m, c);
  ASSERT_TRUE(bool(fast));
  EXPECT_DOUBLE_EQ(fast->perBatch.optimizer, 111 * 5.5e-9);
  m.hostBandwidth = 1e9;
  // A batch this small (0.4 us of compute) is bound by its fixed cost;
  // without it, by its compute.
  EXPECT_EQ(e->bound, "batch fixed cost");
  GnnCostConstants noFixed = c;
  noFixed.trainBatchFixed = 0;
  auto free = predictEpoch(graph, j, m, noFixed);
  ASSERT_TRUE(bool(free));
  EXPECT_EQ(free->bound, "compute");
  // Without the ring the stages add up.
  j.pipelineDepth = 0;
  e = predictEpoch(graph, j, m, c);
  ASSERT_TRUE(bool(e));
  EXPECT_DOUBLE_EQ(e->trainSeconds, 4 * (b.producer() + b.trainer()));
}

TEST(GnnCost, BatchFixedCosts) {
  // The star's leaves: 4 training batches of 1 seed, then 1 evaluation
  // batch of 4 (one set). Every batch pays its fixed cost on the trainer's
  // thread (bench/gnn/fixed-cost.py; docs/gnn.md, "Constants"): the
  // trainer-bound ring grows by 4 training batches' worth, the evaluation
  // by one evaluation batch's, and the rest of the prediction is as
  // without them.
  Star s;
  std::vector<double> train{0, 1, 1, 1, 1}, eval{0, 1, 1, 1, 1};
  GnnGraph graph{s.offsets, s.targets, train, eval};
  GnnJob j = smallJob();
  j.fromFile = true;
  j.fileRows = 5;
  j.trainVertices = 4;
  j.evalVertices = 4;
  GnnMachine m = simpleMachine();
  GnnCostConstants with, without;
  with.trainBatchFixed = 30e-6;
  with.evalBatchFixed = 20e-6;
  without.trainBatchFixed = without.evalBatchFixed = 0;
  auto e = predictEpoch(graph, j, m, with);
  auto f = predictEpoch(graph, j, m, without);
  ASSERT_TRUE(e && f);
  EXPECT_DOUBLE_EQ(e->batches, 4);
  EXPECT_DOUBLE_EQ(e->evalBatches, 1);
  const StageTimes &b = e->perBatch;
  EXPECT_DOUBLE_EQ(b.fixed, 30e-6);
  EXPECT_DOUBLE_EQ(b.trainer(), b.compute + b.optimizer + 30e-6);
  EXPECT_DOUBLE_EQ(e->perEpoch().fixed, 4 * 30e-6);
  ASSERT_GT(b.trainer(), b.producer());
  EXPECT_NEAR(e->trainSeconds - f->trainSeconds, 4 * 30e-6, 1e-15);
  EXPECT_NEAR(e->trainFixedSeconds, 4 * 30e-6, 1e-15);
  EXPECT_NEAR(e->evalSeconds - f->evalSeconds, 20e-6, 1e-15);
  EXPECT_DOUBLE_EQ(e->evalFixedSeconds, 20e-6);
  EXPECT_DOUBLE_EQ(f->trainFixedSeconds, 0);
  EXPECT_DOUBLE_EQ(f->evalFixedSeconds, 0);
  // The default constants have the terms: the same epoch takes longer.
  auto d = predictEpoch(graph, j, m);
  ASSERT_TRUE(bool(d));
  EXPECT_GT(d->trainFixedSeconds, 0);
  EXPECT_GT(d->evalFixedSeconds, 0);
  EXPECT_GT(d->epochSeconds, f->epochSeconds);
  // Where the producer bounds the ring (a 100 us sampling set-up a
  // vertex), the trainer's fixed cost hides under it but the last batch's:
  // only one batch's worth shows.
  with.samplePerVertex = without.samplePerVertex = 100e-6;
  e = predictEpoch(graph, j, m, with);
  f = predictEpoch(graph, j, m, without);
  ASSERT_TRUE(e && f);
  ASSERT_GT(e->perBatch.producer(), e->perBatch.trainer());
  EXPECT_NEAR(e->trainSeconds - f->trainSeconds, 30e-6, 1e-15);
  EXPECT_NEAR(e->trainFixedSeconds, 30e-6, 1e-15);
}

TEST(GnnCost, NvmeGatherAndTpcAdvice) {
  // Out of core with a one-row cache on a drive of 1000 IOPS: I/O-bound.
  Star s;
  std::vector<double> train{0, 1, 1, 1, 1}, eval(5, 0.0);
  GnnGraph graph{s.offsets, s.targets, train, eval};
  GnnJob j = smallJob();
  j.features = 16;
  j.fromFile = true;
  j.outOfCore = true;
  j.cacheBytes = j.rowBytes();
  j.fileRows = 5;
  j.trainVertices = 4;
  GnnMachine m = simpleMachine();
  m.ssds = 1;
  m.ssdReadBandwidth = 1e9;
  m.ssdIops = 1000;
  m.ssdCapacity = 1e9;
  m.ssdPrice = 100;
  m.otherPrice = 1000;
  m.currency = "USD";
  auto e = predictEpoch(graph, j, m);
  ASSERT_TRUE(bool(e));
  EXPECT_EQ(e->bound, "gather (nvme)");
  // The four leaves' rows (the centre's is cached) share block 0. Every
  // batch seeds a leaf, whose own row is an input row, so the simulated
  // batches read block 0 every time, in one request at 1000/s, and the
  // rows are the simulated batches' leaves.
  ASSERT_FALSE(e->train.sampledInputs.empty());
  double leaves = 0;
  for (const std::vector<uint32_t> &batch : e->train.sampledInputs)
    for (uint32_t v : batch)
      leaves += v != 0;
  leaves /= static_cast<double>(e->train.sampledInputs.size());
  EXPECT_DOUBLE_EQ(e->trainIo.rows, leaves);
  EXPECT_DOUBLE_EQ(e->trainIo.blocks, 1);
  EXPECT_DOUBLE_EQ(e->trainIo.requests, 1);
  EXPECT_NEAR(e->perBatch.gatherSsd,
              1.0 / 1000 + e->trainIo.rows * (10e-9 + 64 / 1e9), 1e-12);
  // Without the simulated batches, the independent blocks: block 0 is read
  // unless no leaf is an input row.
  BatchProfile analytic = e->train;
  analytic.sampledInputs.clear();
  const std::vector<double> &q = analytic.inputProbability;
  const double block = 1 - (1 - q[1]) * (1 - q[2]) * (1 - q[3]) * (1 - q[4]);
  IoLoad independent = driveLoad(graph, j, e->placement, analytic);
  EXPECT_DOUBLE_EQ(independent.rows, q[1] + q[2] + q[3] + q[4]);
  EXPECT_DOUBLE_EQ(independent.blocks, block);
  EXPECT_DOUBLE_EQ(independent.requests, block);
  EXPECT_LT(block, 1);
  // The advice within 1250: 1 or 2 drives; the whole file cached wins
  // (memory is not priced), with the fewest drives.
  auto advice = adviseTpc(graph, j, m, 1250, 4);
  ASSERT_TRUE(bool(advice)) << llvm::toString(advice.takeError());
  EXPECT_EQ(advice->best.ssds, 1u);
  EXPECT_EQ(advice->best.cacheBytes, 5 * j.rowBytes());
  EXPECT_DOUBLE_EQ(advice->best.price, 1100);
  for (const TpcPoint &x : advice->points)
    EXPECT_LE(x.tpc, advice->best.tpc * (1 + 1e-9) + (x.price > 1250 ? 1 : 0));
  // Host memory for 20 bytes of cache only (no row): every read goes to
  // the drives, which bound the epoch, so the advice buys the most drives
  // the budget allows: 2 within 1250 (1200), 4 without a budget.
  m.hostMemory = 30;
  j.cacheBytes = 20;
  auto bound = adviseTpc(graph, j, m, 1250, 4);
  ASSERT_TRUE(bool(bound)) << llvm::toString(bound.takeError());
  EXPECT_EQ(bound->best.ssds, 2u);
  EXPECT_DOUBLE_EQ(bound->best.price, 1200);
  EXPECT_GT(bound->best.tpc, bound->current.tpc * 0.99);
  EXPECT_EQ(bound->bestAtCache.ssds, 2u);
  EXPECT_EQ(bound->bestAtCache.cacheBytes, 20u);
  auto unlimited = adviseTpc(graph, j, m, 0, 4);
  ASSERT_TRUE(bool(unlimited));
  EXPECT_EQ(unlimited->best.ssds, 4u);
  m.hostMemory = 1e9;
  j.cacheBytes = j.rowBytes();
  // Nothing within the budget.
  auto none = adviseTpc(graph, j, m, 900, 4);
  ASSERT_FALSE(bool(none));
  EXPECT_EQ(llvm::toString(none.takeError()),
            "no configuration of 1 to 4 drives fits the budget of 900");
}

} // namespace
