//===- ScheduleTest.cpp - Timelines, JSON, determinism, DGX examples ------===//
//
// Chunk timelines (constant and piecewise rates), the JSON writer (parsed
// back), byte-identical output for repeated solves, and every solver on a
// DGX-A100-like machine and a two-server cluster built after
// examples/machines/.
//
//===----------------------------------------------------------------------===//
#include "FlowTestUtils.h"

#include "llvm/Support/JSON.h"
#include <chrono>
#include <cstdio>

using namespace sluice;
using namespace sluice::flow;
using namespace sluice::flow::test;

namespace {

TEST(FlowTimeline, ConstantRateChunks) {
  FlowNetwork net;
  for (const char *name : {"a", "b"})
    net.addNode(name);
  net.addArc(0, 1, 4 * GBps);
  auto s = solveSingleCommodity(net, {{0, 1, 10 * GB}});
  ASSERT_TRUE(static_cast<bool>(s));
  EXPECT_DOUBLE_EQ(s->makespan, 2.5);
  TimelineOptions o;
  o.chunkBytes = 3 * GB;
  auto t = buildTimeline(*s, o);
  ASSERT_TRUE(static_cast<bool>(t)) << llvm::toString(t.takeError());
  ASSERT_EQ(t->size(), 1u);
  const std::vector<Chunk> &c = (*t)[0].chunks;
  ASSERT_EQ(c.size(), 4u);
  EXPECT_DOUBLE_EQ(c[0].start, 0);
  EXPECT_DOUBLE_EQ(c[0].end, 0.75);
  EXPECT_DOUBLE_EQ(c[1].start, 0.75);
  EXPECT_DOUBLE_EQ(c[2].offset, 6 * GB);
  EXPECT_DOUBLE_EQ(c[3].bytes, 1 * GB);
  EXPECT_DOUBLE_EQ(c[3].end, 2.5);
  // No chunk size: one chunk per path.
  auto whole = buildTimeline(*s);
  ASSERT_TRUE(static_cast<bool>(whole));
  ASSERT_EQ((*whole)[0].chunks.size(), 1u);
  EXPECT_DOUBLE_EQ((*whole)[0].chunks[0].end, 2.5);
}

TEST(FlowTimeline, FollowsRateSegments) {
  FlowNetwork net;
  for (const char *name : {"a", "b", "c"})
    net.addNode(name);
  net.addArc(0, 1, 10 * GBps);
  net.addArc(1, 2, 10 * GBps);
  auto s = solveDirectPaths(net, {{0, 2, 10 * GB}, {0, 2, 30 * GB}});
  ASSERT_TRUE(static_cast<bool>(s));
  TimelineOptions o;
  o.chunkBytes = 10 * GB;
  auto t = buildTimeline(*s, o);
  ASSERT_TRUE(static_cast<bool>(t));
  ASSERT_EQ(t->size(), 2u);
  // The 30 GB transfer: 10 GB at 5 GB/s (0-2 s), then 10 GB/s.
  const std::vector<Chunk> &c = (*t)[1].chunks;
  ASSERT_EQ(c.size(), 3u);
  EXPECT_DOUBLE_EQ(c[0].end, 2);
  EXPECT_DOUBLE_EQ(c[1].end, 3);
  EXPECT_DOUBLE_EQ(c[2].end, 4);
}

TEST(FlowTimeline, RandomChunksCoverEveryPath) {
  std::mt19937 rng(31337);
  for (unsigned iter = 0; iter < 40; ++iter) {
    FlowNetwork net = randomNetwork(rng, 7, 12);
    std::vector<Demand> demands = randomDemands(rng, net, 5);
    if (demands.empty())
      continue;
    for (bool direct : {false, true}) {
      auto s = direct ? solveDirectPaths(net, demands)
                      : solveMinMakespan(net, demands);
      ASSERT_TRUE(static_cast<bool>(s));
      TimelineOptions o;
      o.chunkBytes = 0.3 * GB;
      auto t = buildTimeline(*s, o);
      ASSERT_TRUE(static_cast<bool>(t));
      for (const PathTimeline &pt : *t) {
        const PathFlow &p = s->routes[pt.demand].paths[pt.path];
        double bytes = 0, at = 0;
        for (const Chunk &c : pt.chunks) {
          EXPECT_DOUBLE_EQ(c.offset, bytes);
          EXPECT_GT(c.bytes, 0);
          EXPECT_LE(c.bytes, o.chunkBytes * (1 + 1e-12));
          EXPECT_EQ(c.start, at);
          EXPECT_GE(c.end, c.start);
          at = c.end;
          bytes += c.bytes;
        }
        EXPECT_TRUE(nearRel(bytes, p.bytes, 1e-12));
        EXPECT_EQ(pt.chunks.back().end, p.finish);
        EXPECT_LE(pt.chunks.back().end, s->makespan);
      }
    }
  }
}

TEST(FlowTimeline, Errors) {
  FlowNetwork net;
  net.addNode("a");
  net.addNode("b");
  net.addArc(0, 1, GBps);
  auto s = solveSingleCommodity(net, {{0, 1, 10 * GB}});
  ASSERT_TRUE(static_cast<bool>(s));
  TimelineOptions o;
  o.chunkBytes = -1;
  auto neg = buildTimeline(*s, o);
  ASSERT_FALSE(static_cast<bool>(neg));
  EXPECT_EQ(llvm::toString(neg.takeError()),
            "chunk size must be finite and non-negative, got -1");
  o.chunkBytes = 1000;
  o.maxChunks = 1000;
  auto many = buildTimeline(*s, o);
  ASSERT_FALSE(static_cast<bool>(many));
  EXPECT_EQ(llvm::toString(many.takeError()),
            "the timeline would have 10000000 chunks, more than the limit of "
            "1000");
}

TEST(FlowScheduleJSON, ParsesBack) {
  FlowNetwork net;
  for (const char *name : {"s0", "s1", "t"})
    net.addNode(name);
  net.addArc(0, 2, 2 * GBps, 7);
  net.addArc(1, 2, 4 * GBps);
  std::vector<Demand> demands = {{0, 2, GB}, {1, 2, GB}, {2, 2, GB}};
  auto s = solveSingleCommodity(net, demands);
  ASSERT_TRUE(static_cast<bool>(s));
  TimelineOptions o;
  o.chunkBytes = 0.25 * GB;
  auto t = buildTimeline(*s, o);
  ASSERT_TRUE(static_cast<bool>(t));
  std::string text = scheduleToJSON(net, *s, *t);
  llvm::Expected<llvm::json::Value> v = llvm::json::parse(text);
  ASSERT_TRUE(static_cast<bool>(v)) << llvm::toString(v.takeError());
  const llvm::json::Object *o2 = v->getAsObject();
  ASSERT_NE(o2, nullptr);
  EXPECT_EQ(o2->getString("method"), "single-commodity-parametric");
  EXPECT_EQ(o2->getNumber("makespan"), 0.5);
  EXPECT_EQ(o2->getNumber("lower_bound"), 0.5);
  const llvm::json::Array *dem = o2->getArray("demands");
  ASSERT_NE(dem, nullptr);
  ASSERT_EQ(dem->size(), 3u);
  const llvm::json::Object *d0 = (*dem)[0].getAsObject();
  EXPECT_EQ(d0->getString("source_name"), "s0");
  EXPECT_EQ(d0->getInteger("bytes"), 1000000000);
  const llvm::json::Array *paths = d0->getArray("paths");
  ASSERT_EQ(paths->size(), 1u);
  const llvm::json::Object *p0 = (*paths)[0].getAsObject();
  EXPECT_EQ(p0->getNumber("rate"), 2e9);
  const llvm::json::Array *nodes = p0->getArray("nodes");
  ASSERT_EQ(nodes->size(), 2u);
  EXPECT_EQ((*nodes)[1].getAsInteger(), 2);
  EXPECT_EQ((*dem)[2].getAsObject()->getArray("paths")->size(), 0u);
  const llvm::json::Array *arcs = o2->getArray("arcs");
  ASSERT_EQ(arcs->size(), 2u);
  EXPECT_EQ((*arcs)[0].getAsObject()->getInteger("topo_arc"), 7);
  EXPECT_EQ((*arcs)[1].getAsObject()->get("topo_arc")->kind(),
            llvm::json::Value::Null);
  EXPECT_EQ((*arcs)[0].getAsObject()->getBoolean("saturated"), true);
  const llvm::json::Object *cut = o2->getObject("binding_cut");
  ASSERT_NE(cut, nullptr);
  EXPECT_EQ(cut->getNumber("bound"), 0.5);
  // s1 -> t carries 1 GB at 4 GB/s for 0.5 s: half used.
  EXPECT_EQ(o2->getArray("saturated_arcs")->size(), 1u);
  EXPECT_EQ(o2->getObject("stats")->getInteger("commodities"), 1);
  const llvm::json::Array *timeline = o2->getArray("timeline");
  ASSERT_NE(timeline, nullptr);
  ASSERT_EQ(timeline->size(), 2u);
  EXPECT_EQ((*timeline)[0].getAsObject()->getArray("chunks")->size(), 4u);
  // Without a timeline the key is absent; one-line output has no newline.
  std::string flat = scheduleToJSON(net, *s, {}, 0);
  EXPECT_EQ(flat.find('\n'), std::string::npos);
  EXPECT_EQ(flat.find("timeline"), std::string::npos);
}

/// The same input solved twice, and on a copy of the network, prints the
/// same bytes, for every solver.
TEST(FlowScheduleJSON, Deterministic) {
  std::mt19937 rng(2718);
  for (unsigned iter = 0; iter < 20; ++iter) {
    FlowNetwork net = randomNetwork(rng, 8, 14);
    std::vector<Demand> demands = randomDemands(rng, net, 6);
    std::vector<Demand> gather = randomSingleCommodity(rng, net, true);
    FlowNetwork copy = net;
    auto render = [&](const FlowNetwork &n) {
      std::string out;
      TimelineOptions o;
      o.chunkBytes = 0.5 * GB;
      auto add = [&](llvm::Expected<FlowSchedule> s) {
        if (!s) {
          ADD_FAILURE() << llvm::toString(s.takeError());
          return;
        }
        auto t = buildTimeline(*s, o);
        EXPECT_TRUE(static_cast<bool>(t));
        out += scheduleToJSON(n, *s, t ? *t : std::vector<PathTimeline>());
      };
      add(solveMultiCommodity(n, demands));
      add(solveDirectPaths(n, demands));
      add(solveSingleCommodity(n, gather));
      SolveOptions b;
      b.search = HorizonSearch::Bisection;
      add(solveSingleCommodity(n, gather, b));
      add(solveMomentGreedy(n, makeMomentProblem(gather)));
      return out;
    };
    std::string first = render(net);
    EXPECT_EQ(first, render(net));
    EXPECT_EQ(first, render(copy));
  }
}

//===----------------------------------------------------------------------===//
// Example machines
//===----------------------------------------------------------------------===//

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

TEST(FlowExampleMachines, DgxA100) {
  analysis::TopoGraph g;
  DgxIndices d = addDgxA100(g, "dgx");
  FlowNetwork net = buildNetwork(g);
  ASSERT_EQ(net.numNodes(), 38u);

  // A GNN feature gather: hot items striped over the eight SSDs, the rest
  // in CPU memory, every GPU reading (Moment's setting).
  GatherSpec spec;
  spec.destinations = d.gpus;
  spec.tiers = {{"ssd", d.ssds}, {"cpu", d.cpus}};
  spec.items = {{1 * GB, 0, std::vector<double>(8, 4)},
                {1 * GB, 1, std::vector<double>(8, 6)}};
  auto demands = buildGatherDemands(net, spec);
  ASSERT_TRUE(static_cast<bool>(demands));
  ASSERT_EQ(demands->size(), 80u);

  auto t0 = std::chrono::steady_clock::now();
  auto lp = solveMultiCommodity(net, *demands);
  double lpTime = seconds(t0);
  ASSERT_TRUE(static_cast<bool>(lp)) << llvm::toString(lp.takeError());
  checkSchedule(net, *demands, *lp);
  t0 = std::chrono::steady_clock::now();
  auto direct = solveDirectPaths(net, *demands);
  double directTime = seconds(t0);
  ASSERT_TRUE(static_cast<bool>(direct));
  checkSchedule(net, *demands, *direct);
  t0 = std::chrono::steady_clock::now();
  auto moment = solveMomentGreedy(net, *makeMomentProblem(net, spec));
  double momentTime = seconds(t0);
  ASSERT_TRUE(static_cast<bool>(moment));
  EXPECT_LE(moment->makespan, lp->makespan * (1 + 1e-6));
  EXPECT_LE(lp->makespan, direct->makespan * (1 + 1e-6));
  // Every SSD byte crosses an x4 link: 32 GB over 8 x 7.88 GB/s at least.
  EXPECT_GE(lp->makespan, 32 * GB / (8 * 7.88 * GBps) * (1 - 1e-9));

  // All-to-all between the GPUs: NVLink only, 300 GB/s out of each GPU
  // plus its PCIe uplink.
  std::vector<Demand> a2a = allPairsDemands(d.gpus, d.gpus, GB);
  t0 = std::chrono::steady_clock::now();
  auto lpA2a = solveMultiCommodity(net, a2a);
  double a2aTime = seconds(t0);
  ASSERT_TRUE(static_cast<bool>(lpA2a));
  checkSchedule(net, a2a, *lpA2a);
  EXPECT_NEAR(lpA2a->makespan, 7 * GB / (325 * GBps), 1e-6);

  // One GPU gathers from all others: single commodity, both searches.
  std::vector<Demand> toGpu0;
  for (unsigned i = 1; i < 8; ++i)
    toGpu0.push_back({d.gpus[i], d.gpus[0], 4 * GB});
  t0 = std::chrono::steady_clock::now();
  auto sc = solveSingleCommodity(net, toGpu0);
  double scTime = seconds(t0);
  ASSERT_TRUE(static_cast<bool>(sc));
  auto scLp = solveMultiCommodity(net, toGpu0);
  ASSERT_TRUE(static_cast<bool>(scLp));
  EXPECT_TRUE(nearRel(sc->makespan, scLp->makespan, 1e-6));
  EXPECT_NEAR(sc->makespan, 28 * GB / (325 * GBps), 1e-9);

  std::printf("[ dgx-a100 ] gather LP %.2f ms (%u rows, %u cols), direct "
              "%.2f ms, moment %.2f ms; gpu all-to-all LP %.2f ms; gather to "
              "gpu0 max-flow %.2f ms (%u max flows)\n",
              lpTime * 1e3, lp->stats.lpRows, lp->stats.lpColumns,
              directTime * 1e3, momentTime * 1e3, a2aTime * 1e3, scTime * 1e3,
              sc->stats.maxFlows);
  std::printf("[ dgx-a100 ] gather makespans: LP %.4f s, direct %.4f s, "
              "moment %.4f s\n",
              lp->makespan, direct->makespan, moment->makespan);
}

TEST(FlowExampleMachines, TwoServerCluster) {
  // Two DGX A100 joined rail by rail through eight leaf switches (HDR,
  // 25 GB/s), as in examples/machines/cluster-16x8.sluice.
  analysis::TopoGraph g;
  DgxIndices a = addDgxA100(g, "server[0]");
  DgxIndices b = addDgxA100(g, "server[1]");
  for (unsigned r = 0; r < 8; ++r) {
    unsigned leaf = g.addDevice("leaf[" + std::to_string(r) + "]", "switch");
    g.addLink(a.nics[r], leaf, 25 * GBps, 0, true);
    g.addLink(b.nics[r], leaf, 25 * GBps, 0, true);
  }
  FlowNetwork net = buildNetwork(g);
  // Every GPU of server 0 sends 1 GB to every GPU of server 1.
  std::vector<Demand> demands = allPairsDemands(a.gpus, b.gpus, GB);
  auto t0 = std::chrono::steady_clock::now();
  auto lp = solveMultiCommodity(net, demands);
  double lpTime = seconds(t0);
  ASSERT_TRUE(static_cast<bool>(lp)) << llvm::toString(lp.takeError());
  checkSchedule(net, demands, *lp);
  // 64 GB over eight 25 GB/s rails.
  EXPECT_NEAR(lp->makespan, 64 * GB / (8 * 25 * GBps), 1e-6);
  t0 = std::chrono::steady_clock::now();
  auto direct = solveDirectPaths(net, demands);
  double directTime = seconds(t0);
  ASSERT_TRUE(static_cast<bool>(direct));
  EXPECT_GE(direct->makespan, lp->makespan * (1 - 1e-9));
  std::printf("[ cluster-2x8 ] cross-server all-to-all: LP %.2f ms (%u rows, "
              "%u cols, %u commodities) makespan %.4f s; direct %.2f ms "
              "makespan %.4f s\n",
              lpTime * 1e3, lp->stats.lpRows, lp->stats.lpColumns,
              lp->stats.commodities, lp->makespan, directTime * 1e3,
              direct->makespan);
}

} // namespace
