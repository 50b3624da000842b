//===- GnnServersTest.cpp - Partitioner and multi-server GNN plans --------===//
//
// compiler/Analysis/Gnn/GnnPartition.h: two cliques joined by one edge are
// cut at that edge whatever the vertex numbering, the parts are balanced in
// seeds, the cut matches a brute-force count, a grid's cut is near the
// optimum. compiler/Analysis/Gnn/GnnServers.h: the remote rows of a batch
// against a brute-force breadth-first count with full neighbourhoods, and
// the whole plan on two servers joined by one link.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Gnn/GnnServers.h"
#include "compiler/Analysis/Flow/FlowProblem.h"
#include "compiler/Analysis/Gnn/GnnPartition.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <set>

using namespace sluice;
using namespace sluice::gnn;

namespace {

/// An undirected CSR from an edge list (both arcs, sorted targets).
struct Csr {
  std::vector<uint64_t> offsets;
  std::vector<uint32_t> targets;
};
Csr undirected(uint32_t n,
               const std::vector<std::pair<uint32_t, uint32_t>> &e) {
  std::vector<std::vector<uint32_t>> adj(n);
  for (auto [a, b] : e) {
    adj[a].push_back(b);
    adj[b].push_back(a);
  }
  Csr g;
  g.offsets.push_back(0);
  for (auto &l : adj) {
    std::sort(l.begin(), l.end());
    g.targets.insert(g.targets.end(), l.begin(), l.end());
    g.offsets.push_back(g.targets.size());
  }
  return g;
}

/// Two k-cliques, vertices relabelled by `perm` (old id -> new id), the
/// bridge from clique vertex `a` to the other clique's vertex `b`.
Csr twoCliques(uint32_t k, const std::vector<uint32_t> &perm, uint32_t a,
               uint32_t b) {
  std::vector<std::pair<uint32_t, uint32_t>> e;
  for (uint32_t c = 0; c < 2; ++c)
    for (uint32_t i = 0; i < k; ++i)
      for (uint32_t j = i + 1; j < k; ++j)
        e.push_back({perm[c * k + i], perm[c * k + j]});
  e.push_back({perm[a], perm[k + b]});
  return undirected(2 * k, e);
}

TEST(GnnPartition, TwoCliquesAreCutAtTheirBridge) {
  // Every numbering of 50 random ones, every bridge end: the cut is the
  // bridge's two arcs, each clique one part, seeds equal.
  const uint32_t k = 8;
  std::mt19937 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<uint32_t> perm(2 * k);
    std::iota(perm.begin(), perm.end(), 0u);
    if (trial)
      std::shuffle(perm.begin(), perm.end(), rng);
    const uint32_t a = trial % k, b = (trial * 3) % k;
    Csr g = twoCliques(k, perm, a, b);
    std::vector<double> seeds(2 * k, 0.6);
    GraphPartition p = partitionGraph(g.offsets, g.targets, seeds, 2);
    EXPECT_EQ(p.cutArcs, 2u) << "trial " << trial;
    for (uint32_t c = 0; c < 2; ++c)
      for (uint32_t i = 1; i < k; ++i)
        EXPECT_EQ(p.partOf[perm[c * k + i]], p.partOf[perm[c * k]]);
    EXPECT_NE(p.partOf[perm[0]], p.partOf[perm[k]]);
    EXPECT_NEAR(p.seeds[0], 4.8, 1e-9);
    EXPECT_NEAR(p.seeds[1], 4.8, 1e-9);
    EXPECT_DOUBLE_EQ(p.seedBalance(), 1.0);
    EXPECT_EQ(p.cutArcs, countCutArcs(g.offsets, g.targets, p.partOf));
  }
}

TEST(GnnPartition, CutCountIsBruteForce) {
  // A random graph and a random assignment: the cut by the definition.
  std::mt19937 rng(3);
  std::vector<std::pair<uint32_t, uint32_t>> e;
  for (int i = 0; i < 200; ++i)
    e.push_back(
        {static_cast<uint32_t>(rng() % 40), static_cast<uint32_t>(rng() % 40)});
  Csr g = undirected(40, e);
  std::vector<uint32_t> part(40);
  for (auto &p : part)
    p = rng() % 3;
  uint64_t expected = 0;
  for (auto [a, b] : e)
    expected += part[a] != part[b] ? 2 : 0; // both arcs
  EXPECT_EQ(countCutArcs(g.offsets, g.targets, part), expected);
}

TEST(GnnPartition, GridIsBalancedAndCutNearTheOptimum) {
  // A 12 x 12 grid in 4 parts: the best cut is 2 x 12 edges (48 arcs); a
  // BFS-grown partition must stay within 2x of it, every part within the
  // seed cap, and the same input gives the same partition.
  const uint32_t w = 12;
  std::vector<std::pair<uint32_t, uint32_t>> e;
  for (uint32_t r = 0; r < w; ++r)
    for (uint32_t c = 0; c < w; ++c) {
      if (c + 1 < w)
        e.push_back({r * w + c, r * w + c + 1});
      if (r + 1 < w)
        e.push_back({r * w + c, (r + 1) * w + c});
    }
  Csr g = undirected(w * w, e);
  std::vector<double> seeds(w * w, 1.0);
  GraphPartition p = partitionGraph(g.offsets, g.targets, seeds, 4);
  EXPECT_LE(p.cutArcs, 96u);
  EXPECT_LE(p.cutArcs, p.grownCut);
  const double cap = w * w / 4.0 * 1.05 + 1;
  const double floor = w * w / 4.0 * 0.95 - 1;
  for (double s : p.seeds) {
    EXPECT_LE(s, cap);
    EXPECT_GE(s, floor);
  }
  EXPECT_LE(p.seedBalance(), 1.05 + 4.0 / (w * w));
  GraphPartition again = partitionGraph(g.offsets, g.targets, seeds, 4);
  EXPECT_EQ(again.partOf, p.partOf);
}

TEST(GnnPartition, SeedsBalanceNotVertices) {
  // Only the even vertices of a path are seeds: the parts hold equal seeds.
  const uint32_t n = 40;
  std::vector<std::pair<uint32_t, uint32_t>> e;
  for (uint32_t i = 0; i + 1 < n; ++i)
    e.push_back({i, i + 1});
  Csr g = undirected(n, e);
  std::vector<double> seeds(n, 0.0);
  for (uint32_t i = 0; i < n; i += 2)
    seeds[i] = 1;
  GraphPartition p = partitionGraph(g.offsets, g.targets, seeds, 2);
  EXPECT_NEAR(p.seeds[0], 10, 1.0 + 1e-9);
  EXPECT_NEAR(p.seeds[0] + p.seeds[1], 20, 1e-9);
  EXPECT_EQ(p.cutArcs, 2u); // a path cut once
}

/// Vertices within `hops` of the seeds (full neighbourhoods: every
/// neighbour sampled), by breadth-first search.
std::set<uint32_t> reachedBfs(const Csr &g, const std::vector<uint32_t> &seeds,
                              unsigned hops) {
  std::set<uint32_t> seen(seeds.begin(), seeds.end());
  std::vector<uint32_t> frontier(seeds);
  for (unsigned h = 0; h < hops; ++h) {
    std::vector<uint32_t> next;
    for (uint32_t u : frontier)
      for (uint64_t e = g.offsets[u]; e < g.offsets[u + 1]; ++e)
        if (seen.insert(g.targets[e]).second)
          next.push_back(g.targets[e]);
    frontier = next;
  }
  return seen;
}

TEST(GnnServers, RemoteRowsAgainstBruteForce) {
  // A random graph split in 3; a batch of fixed seeds with fanouts above
  // every degree samples whole neighbourhoods, so the profile's input rows
  // are exactly the 2-hop ball: per part, its rows counted one by one.
  std::mt19937 rng(11);
  std::vector<std::pair<uint32_t, uint32_t>> e;
  for (int i = 0; i < 60; ++i)
    e.push_back(
        {static_cast<uint32_t>(rng() % 30), static_cast<uint32_t>(rng() % 30)});
  Csr g = undirected(30, e);
  std::vector<double> weight(30, 1.0);
  GraphPartition part = partitionGraph(g.offsets, g.targets, weight, 3);
  std::vector<uint32_t> seeds{2, 17, 25};
  std::vector<double> q(30, 0.0);
  for (uint32_t s : seeds)
    q[s] = 1;
  BatchProfile p = profileBatch(g.offsets, g.targets, q, {1000, 1000});
  std::vector<double> byPart =
      countRowsByPart(p.inputProbability, part.partOf, 3);
  std::vector<double> brute(3, 0.0);
  for (uint32_t v : reachedBfs(g, seeds, 2))
    brute[part.partOf[v]] += 1;
  for (unsigned k = 0; k < 3; ++k)
    EXPECT_NEAR(byPart[k], brute[k], 1e-9) << "part " << k;
  EXPECT_NEAR(byPart[0] + byPart[1] + byPart[2], p.inputRows(), 1e-9);
}

TEST(GnnServers, TwoCliquesOnTwoServers) {
  // Two 8-cliques, every vertex a seed 0.6 of an epoch, full fanouts: each
  // server's batches read their own clique plus, through the bridge, a
  // little of the other; with the whole file in memory and room for 2
  // remote rows, the bridge's far end (the hottest remote row) is cached.
  const uint32_t k = 8;
  std::vector<uint32_t> perm(2 * k);
  std::iota(perm.begin(), perm.end(), 0u);
  Csr g = twoCliques(k, perm, 7, 0);
  std::vector<double> train(2 * k, 0.6), eval(2 * k, 0.4);
  GnnGraph graph{g.offsets, g.targets, train, eval, {}};
  GnnJob job;
  job.fanouts = {10, 10};
  job.features = 16;
  job.hidden = 8;
  job.classes = 2;
  job.batch = 4;
  job.threads = 1;
  job.fromFile = true;
  job.fileRows = 2 * k;
  job.trainVertices = 9.6;
  job.evalVertices = 6.4;
  GnnCostConstants c;
  c.simulatedBatches = 0;
  flow::FlowNetwork net;
  net.addNode("a.cpu");
  net.addNode("b.cpu");
  net.addArc(0, 1, 1e9);
  net.addArc(1, 0, 1e9);
  GnnServer a{"a", 0, {}}, b{"b", 1, {}};
  for (GnnServer *s : {&a, &b}) {
    s->machine.cores = 1;
    s->machine.cpuFlops = 1e10;
    s->machine.hostBandwidth = 1e10;
    // 8 local rows of 64 B, and 2 more; / 0.9 usable.
    s->machine.hostMemory = 10 * 64 / 0.9 + 1;
  }
  auto e = predictServers(graph, job, {a, b}, net, c);
  ASSERT_TRUE(static_cast<bool>(e)) << llvm::toString(e.takeError());
  EXPECT_EQ(e->partition.cutArcs, 2u);
  ASSERT_EQ(e->servers.size(), 2u);
  EXPECT_DOUBLE_EQ(e->batches, 2); // 4.8 seeds in batches of 4
  for (const ServerPrediction &s : e->servers) {
    EXPECT_EQ(s.vertices, 8u);
    EXPECT_EQ(s.localHostRows, 8u);
    EXPECT_EQ(s.cachedRemote, 2u);
    // Every own row is read with certainty after two full hops from 2.4
    // expected seeds; the remote rows by brute force: the bridge end (hop 1
    // from the bridge's near end) and its clique (hop 2).
    EXPECT_NEAR(s.localRows + s.cachedRemoteRows + s.remoteRows,
                s.train.inputRows(), 1e-9);
    EXPECT_GT(s.cachedRemoteRows, 0);
    EXPECT_GE(s.localRows, 7.0);
  }
  // Bytes on the link: the uncached remote rows, 64 B each, at 1 GB/s.
  const ServerPrediction &s0 = e->servers[0], &s1 = e->servers[1];
  EXPECT_NEAR(e->remoteBytesPerStep, (s0.remoteRows + s1.remoteRows) * 64,
              1e-6);
  EXPECT_NEAR(e->remoteSeconds,
              std::max(s0.remoteRows, s1.remoteRows) * 64 / 1e9, 1e-15);
  // Gradients: 4 B a parameter; a ring of two over the 1 GB/s link moves
  // half of them each way per phase, two phases.
  const double params = parameterCount(job);
  EXPECT_DOUBLE_EQ(e->allReduceBytes, 4 * params);
  EXPECT_NEAR(e->allReduceSeconds, 2 * (4 * params / 2) / 1e9, 1e-12);
  // The epoch is the slowest server's.
  EXPECT_DOUBLE_EQ(e->epochSeconds, std::max(s0.epochSeconds, s1.epochSeconds));
  for (const ServerPrediction &s : e->servers) {
    const double P = s.producer(), C = s.trainer();
    EXPECT_NEAR(s.trainSeconds, P + std::max(P, C) + C, 1e-15);
    EXPECT_DOUBLE_EQ(s.allReduce, e->allReduceSeconds);
  }
}

TEST(GnnServers, NoRoomMeansNoRemoteCacheAndErrors) {
  const uint32_t k = 8;
  std::vector<uint32_t> perm(2 * k);
  std::iota(perm.begin(), perm.end(), 0u);
  Csr g = twoCliques(k, perm, 7, 0);
  std::vector<double> train(2 * k, 0.6), eval(2 * k, 0.4);
  GnnGraph graph{g.offsets, g.targets, train, eval, {}};
  GnnJob job;
  job.fanouts = {10};
  job.features = 16;
  job.hidden = 8;
  job.classes = 2;
  job.batch = 4;
  job.fromFile = true;
  job.fileRows = 2 * k;
  job.trainVertices = 9.6;
  job.evalVertices = 6.4;
  flow::FlowNetwork net;
  net.addNode("a.cpu");
  net.addNode("b.cpu");
  net.addArc(0, 1, 1e9);
  net.addArc(1, 0, 1e9);
  GnnServer a{"a", 0, {}}, b{"b", 1, {}};
  a.machine.cores = b.machine.cores = 1;
  a.machine.cpuFlops = b.machine.cpuFlops = 1e10;
  // Unknown memory: nothing remote cached, all remote rows on the link.
  auto e = predictServers(graph, job, {a, b}, net);
  ASSERT_TRUE(static_cast<bool>(e)) << llvm::toString(e.takeError());
  EXPECT_EQ(e->servers[0].cachedRemote, 0u);
  EXPECT_DOUBLE_EQ(e->servers[0].cachedRemoteRows, 0);
  EXPECT_GT(e->servers[0].remoteRows, 0);
  // Memory for 4 rows: the 8 local rows do not fit.
  a.machine.hostMemory = b.machine.hostMemory = 4 * 64 / 0.9;
  auto tight = predictServers(graph, job, {a, b}, net);
  ASSERT_FALSE(static_cast<bool>(tight));
  EXPECT_NE(llvm::toString(tight.takeError())
                .find("server 'a': its 8 local rows take 512 bytes"),
            std::string::npos);
  // No link from a to b: the gathers cannot be routed.
  flow::FlowNetwork oneWay;
  oneWay.addNode("a.cpu");
  oneWay.addNode("b.cpu");
  oneWay.addArc(0, 1, 1e9);
  a.machine.hostMemory = b.machine.hostMemory = 0;
  auto cut = predictServers(graph, job, {a, b}, oneWay);
  ASSERT_FALSE(static_cast<bool>(cut));
  EXPECT_NE(llvm::toString(cut.takeError())
                .find("routing the remote feature gathers"),
            std::string::npos);
}

} // namespace

namespace {

TEST(GnnServers, LocalRowsFollowTheVerticesNotTheirFileRows) {
  // File rows in reverse vertex order and past the vertex count (ids with
  // gaps): each server's own vertices are local whatever their row, and
  // one-hot ids (no file) move no bytes.
  const uint32_t k = 8;
  std::vector<uint32_t> perm(2 * k);
  std::iota(perm.begin(), perm.end(), 0u);
  Csr g = twoCliques(k, perm, 7, 0);
  std::vector<double> train(2 * k, 0.6), eval(2 * k, 0.4);
  std::vector<uint32_t> rowOf(2 * k);
  for (uint32_t v = 0; v < 2 * k; ++v)
    rowOf[v] = 3 * (2 * k - 1 - v); // rows 45, 42, ..., 0
  GnnGraph graph{g.offsets, g.targets, train, eval, rowOf};
  GnnJob job;
  job.fanouts = {10, 10};
  job.features = 16;
  job.hidden = 8;
  job.classes = 2;
  job.batch = 4;
  job.fromFile = true;
  job.fileRows = 46;
  job.trainVertices = 9.6;
  job.evalVertices = 6.4;
  GnnCostConstants c;
  c.simulatedBatches = 0;
  flow::FlowNetwork net;
  net.addNode("a.cpu");
  net.addNode("b.cpu");
  net.addArc(0, 1, 1e9);
  net.addArc(1, 0, 1e9);
  GnnServer a{"a", 0, {}}, b{"b", 1, {}};
  a.machine.cores = b.machine.cores = 1;
  a.machine.cpuFlops = b.machine.cpuFlops = 1e10;
  auto e = predictServers(graph, job, {a, b}, net, c);
  ASSERT_TRUE(static_cast<bool>(e)) << llvm::toString(e.takeError());
  for (unsigned s = 0; s < 2; ++s) {
    const ServerPrediction &sp = e->servers[s];
    const std::vector<double> byPart =
        countRowsByPart(sp.train.inputProbability, e->partition.partOf, 2);
    EXPECT_NEAR(sp.localRows, byPart[s], 1e-9);
    EXPECT_NEAR(sp.remoteRows, byPart[1 - s], 1e-9);
    EXPECT_DOUBLE_EQ(sp.remoteRowsFrom[s], 0);
  }
  EXPECT_GT(e->remoteBytesPerStep, 0);
  job.fromFile = false;
  job.features = 2 * k;
  job.fileRows = 0;
  auto ids = predictServers(graph, job, {a, b}, net, c);
  ASSERT_TRUE(static_cast<bool>(ids)) << llvm::toString(ids.takeError());
  EXPECT_GT(ids->servers[0].remoteRows, 0);
  EXPECT_DOUBLE_EQ(ids->remoteBytesPerStep, 0);
  EXPECT_DOUBLE_EQ(ids->servers[0].gatherRemote, 0);
}

} // namespace
