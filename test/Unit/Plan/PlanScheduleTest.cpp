//===- PlanScheduleTest.cpp - Demands to plan.schedule, end to end --------===//
//
// Compiles the examples in examples/flows through sluice::Compilation
// (parse, check, lower, flatten, plan-schedule-flows) and checks the
// schedules against independent expectations: every promise of a flow
// schedule (capacities at every moment, bytes, simple paths; the flow
// library's checkSchedule), the demands each declaration implies, hand-
// computed optima, the baselines' order, the exports, that demands inside
// the servers of a cluster never leave their server, and the collectives'
// algorithms (ring, tree, in-network, hierarchical) against their formulas.
//
//===----------------------------------------------------------------------===//
#include "compiler/Pipelines/Compilation.h"
#include "dialects/Plan/IR/PlanOps.h"
#include "dialects/Plan/Transforms/GatherSlots.h"
#include "dialects/Plan/Transforms/PlanExport.h"
#include "dialects/Plan/Transforms/PlanFlow.h"
#include "dialects/Topo/Analysis/ExtractTopoGraph.h"
#include "test/Unit/Flow/FlowTestUtils.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"
#include <map>
#include <string>

using namespace sluice;

namespace {

std::string example(llvm::StringRef name) {
  return (llvm::Twine(SLUICE_SOURCE_DIR) + "/examples/flows/" + name).str();
}

/// One compilation up to plan-schedule-flows.
struct Planned {
  mlir::DialectRegistry registry;
  std::unique_ptr<mlir::MLIRContext> ctx;
  llvm::SourceMgr sourceMgr;
  std::unique_ptr<Compilation> compilation;
  analysis::TopoGraph graph;
  plan::PlanNetwork pn;
  std::string diagnostics;

  bool run(llvm::StringRef path, llvm::StringRef top = "") {
    // Compilation honours the pass-manager options, as sluicec does.
    static const bool registered = [] {
      mlir::registerPassManagerCLOptions();
      return true;
    }();
    (void)registered;
    registerSluiceDialects(registry);
    ctx = std::make_unique<mlir::MLIRContext>(registry);
    ctx->loadAllAvailableDialects();
    ctx->getDiagEngine().registerHandler([this](mlir::Diagnostic &d) {
      diagnostics += d.str() + "\n";
    });
    compilation = std::make_unique<Compilation>(*ctx, sourceMgr);
    const char *step = nullptr;
    if (mlir::failed(compilation->parse(path)))
      step = "parse";
    else if (mlir::failed(compilation->check()))
      step = "check";
    else if (mlir::failed(compilation->lower()))
      step = "lower";
    else if (mlir::failed(compilation->flatten(top)))
      step = "flatten";
    else if (mlir::failed(compilation->plan()))
      step = "plan";
    if (step) {
      diagnostics += std::string("failed in ") + step + "\n";
      return false;
    }
    auto g = extractTopoGraph(compilation->module());
    if (mlir::failed(g))
      return false;
    graph = std::move(*g);
    pn = plan::buildPlanNetwork(graph);
    return true;
  }

  llvm::SmallVector<plan::ScheduleOp> schedules() {
    return llvm::to_vector(compilation->module().getOps<plan::ScheduleOp>());
  }
};

/// Writes `text` to a temporary .sluice file and returns its path.
std::string writeTemp(llvm::StringRef text) {
  llvm::SmallString<128> path;
  int fd;
  EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("plan", "sluice", fd, path));
  llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
  os << text;
  return path.str().str();
}

/// checkSchedule on the FlowSchedule a plan.schedule describes, plus the
/// attributes: lower bound <= makespan <= direct baseline.
flow::FlowSchedule checkPlan(Planned &p, plan::ScheduleOp op) {
  auto s = plan::scheduleFromIR(op, p.pn);
  EXPECT_TRUE(static_cast<bool>(s)) << llvm::toString(s.takeError());
  if (!s)
    return {};
  std::vector<flow::Demand> demands;
  for (const flow::DemandRoute &r : s->routes)
    demands.push_back(r.demand);
  flow::test::checkSchedule(p.pn.net, demands, *s);
  double makespan = op.getMakespan().convertToDouble();
  // Collectives run after the point-to-point demands: the bound and the
  // baselines cover only the latter.
  bool collectives = !op.getBody().front().getOps<plan::CollectiveOp>().empty();
  if (collectives) {
    if (auto lb = op.getLowerBound()) {
      EXPECT_LE(lb->convertToDouble(), makespan * (1 + 1e-9));
    }
    return *s;
  }
  EXPECT_TRUE(op.getLowerBound().has_value());
  EXPECT_LE(op.getLowerBound()->convertToDouble(), makespan * (1 + 1e-9));
  EXPECT_GE(op.getLowerBound()->convertToDouble(), makespan * (1 - 1e-6));
  EXPECT_TRUE(op.getDirectMakespan().has_value());
  EXPECT_LE(makespan, op.getDirectMakespan()->convertToDouble() * (1 + 1e-9));
  return *s;
}

constexpr double GiB = 1024.0 * 1024 * 1024;

TEST(PlanSchedule, HostToGpuUsesFourUplinks) {
  Planned p;
  ASSERT_TRUE(p.run(example("dgx-host-to-gpu.sluice"))) << p.diagnostics;
  auto ops = p.schedules();
  ASSERT_EQ(ops.size(), 1u);
  flow::FlowSchedule s = checkPlan(p, ops[0]);
  ASSERT_EQ(s.routes.size(), 1u);
  EXPECT_EQ(p.pn.net.nodes[s.routes[0].demand.source], "cpu[0]");
  EXPECT_EQ(p.pn.net.nodes[s.routes[0].demand.destination], "gpu[0]");
  EXPECT_NEAR(s.routes[0].demand.bytes, 8 * GiB, 1e-3);
  // Cut {cpu[0], cpu[1], storage NICs}: four 25 GB/s PCIe uplinks.
  EXPECT_NEAR(ops[0].getMakespan().convertToDouble(), 8 * GiB / 100e9, 1e-12);
  EXPECT_NEAR(ops[0].getDirectMakespan()->convertToDouble(), 8 * GiB / 25e9,
              1e-12);
}

TEST(PlanSchedule, ExportNeedsTheMethod) {
  // A plan.schedule may omit its method (written by hand); the exports
  // write it, so scheduleFromIR refuses such a schedule.
  Planned p;
  ASSERT_TRUE(p.run(example("dgx-host-to-gpu.sluice"))) << p.diagnostics;
  auto ops = p.schedules();
  ASSERT_EQ(ops.size(), 1u);
  auto s = plan::scheduleFromIR(ops[0], p.pn);
  ASSERT_TRUE(static_cast<bool>(s)) << llvm::toString(s.takeError());
  EXPECT_EQ(s->method, plan::ScheduleMethod::SingleCommodityParametric);
  ops[0].removeMethodAttr();
  auto none = plan::scheduleFromIR(ops[0], p.pn);
  ASSERT_FALSE(static_cast<bool>(none));
  EXPECT_EQ(llvm::toString(none.takeError()),
            "schedule '" + ops[0].getSymName().str() + "' has no method");
}

TEST(PlanSchedule, GatherDemandsAreStriped) {
  Planned p;
  ASSERT_TRUE(p.run(example("dgx-gnn-gather.sluice"))) << p.diagnostics;
  auto ops = p.schedules();
  ASSERT_EQ(ops.size(), 1u);
  flow::FlowSchedule s = checkPlan(p, ops[0]);
  // 10 sources x 8 GPUs, each pair 8 GiB / 10.
  ASSERT_EQ(s.routes.size(), 80u);
  std::map<std::string, double> into;
  for (const flow::DemandRoute &r : s.routes) {
    EXPECT_NEAR(r.demand.bytes, 8 * GiB / 10, 1e-3);
    into[p.pn.net.nodes[r.demand.destination]] += r.demand.bytes;
  }
  ASSERT_EQ(into.size(), 8u);
  for (const auto &[gpu, bytes] : into)
    EXPECT_NEAR(bytes, 8 * GiB, 1e-2) << gpu;
  // Sources and destinations are disjoint: Moment's greedy ran, and with
  // free placement it is never slower than the fixed striping.
  ASSERT_TRUE(ops[0].getMomentMakespan().has_value());
  EXPECT_LE(ops[0].getMomentMakespan()->convertToDouble(),
            ops[0].getMakespan().convertToDouble() * (1 + 1e-6));
}

TEST(PlanSchedule, CollectivesArePlannedByAlgorithm) {
  Planned p;
  ASSERT_TRUE(p.run(example("dgx-allreduce.sluice"))) << p.diagnostics;
  auto ops = p.schedules();
  ASSERT_EQ(ops.size(), 1u);
  checkPlan(p, ops[0]);
  EXPECT_EQ(ops[0].getMethod(), plan::ScheduleMethod::Collective);
  auto colls = llvm::to_vector(
      ops[0].getBody().front().getOps<plan::CollectiveOp>());
  ASSERT_EQ(colls.size(), 2u);
  // allreduce 2 GiB over 8 GPUs, then allgather 1 GiB over 4, back to back.
  EXPECT_EQ(colls[0].getKind(), plan::CollectiveKind::AllReduce);
  EXPECT_EQ(colls[1].getKind(), plan::CollectiveKind::AllGather);
  EXPECT_EQ(colls[0].getStart().convertToDouble(), 0.0);
  EXPECT_EQ(colls[1].getStart().convertToDouble(),
            colls[0].getEnd().convertToDouble());
  EXPECT_NEAR(ops[0].getMakespan().convertToDouble(),
              colls[1].getEnd().convertToDouble(), 1e-15);
  // Ring and tree for the all-reduce (no reducing switch); the chosen one
  // is the fastest, and no member-only algorithm beats the endpoint bound
  // 2 (n-1) N / sum_v out_v, each GPU sending over 300 + 25 GB/s.
  double bound = 2 * 7 * 2 * GiB / (8 * 325e9);
  EXPECT_NEAR(colls[0].getEndpointBound()->convertToDouble(), bound,
              1e-12 * bound);
  mlir::DictionaryAttr times = colls[0].getTimes();
  ASSERT_EQ(times.size(), 2u);
  double chosen = llvm::cast<mlir::FloatAttr>(
                      times.get(colls[0].getAlgorithm()))
                      .getValueAsDouble();
  for (mlir::NamedAttribute a : times) {
    double t = llvm::cast<mlir::FloatAttr>(a.getValue()).getValueAsDouble();
    EXPECT_GE(t, bound * (1 - 1e-9)) << a.getName().str();
    EXPECT_LE(chosen, t);
  }
  // Bytes on the wire: a ring all-reduce moves N per step for 2 (n-1)
  // steps, an all-gather N for n-1 steps (every member sends N/n a step).
  std::map<std::string, double> moved;
  for (plan::TransferOp t :
       ops[0].getBody().front().getOps<plan::TransferOp>()) {
    ASSERT_TRUE(t.getStream().has_value());
    moved[t.getStream()->split('/').first.str()] +=
        t.getBytes().convertToDouble();
  }
  ASSERT_EQ(colls[0].getAlgorithm(), "ring");
  EXPECT_NEAR(moved["grads.0"], 14 * 2 * GiB, 1e-6 * GiB);
  EXPECT_NEAR(moved["grads.1"], 3 * GiB, 1e-6 * GiB);
}

TEST(PlanSchedule, InNetworkBeatsTheRingOnAStar) {
  Planned p;
  ASSERT_TRUE(p.run(example("innetwork-allreduce.sluice"))) << p.diagnostics;
  auto ops = p.schedules();
  ASSERT_EQ(ops.size(), 2u);
  for (plan::ScheduleOp op : ops) {
    checkPlan(p, op);
    auto c = *op.getBody().front().getOps<plan::CollectiveOp>().begin();
    auto time = [&](llvm::StringRef alg) {
      auto f = llvm::dyn_cast_or_null<mlir::FloatAttr>(c.getTimes().get(alg));
      EXPECT_TRUE(f) << alg.str();
      return f ? f.getValueAsDouble() : 0.0;
    };
    double nb = GiB / 25e9;
    if (op.getSymName() == "star") {
      // Each GPU reaches the leaf over two 25 GB/s paths: ring
      // 2 (n-1)/n N / 2B, in-network N / 2B, n = 4.
      EXPECT_EQ(c.getAlgorithm(), "in-network");
      EXPECT_NEAR(time("ring"), 0.75 * nb, 1e-9 * nb);
      EXPECT_NEAR(time("in-network"), 0.5 * nb, 1e-9 * nb);
      // The in-network plan beats the bound of member-only reductions.
      EXPECT_LT(time("in-network"), 6 * GiB / (4 * 25e9) / 2);
    } else {
      EXPECT_EQ(c.getAlgorithm(), "hierarchical-in-network");
      EXPECT_NEAR(time("in-network"), nb, 1e-9 * nb);
      EXPECT_NEAR(time("hierarchical-in-network"),
                  0.5 * nb + 2 * (GiB / 2) / 325e9, 1e-9 * nb);
    }
  }
}

TEST(PlanSchedule, ClusterDemandsStayInsideTheirServer) {
  Planned p;
  ASSERT_TRUE(p.run(example("cluster-local.sluice"))) << p.diagnostics;
  auto ops = p.schedules();
  ASSERT_EQ(ops.size(), 1u);
  checkPlan(p, ops[0]);
  unsigned transfers = 0;
  for (plan::TransferOp t :
       ops[0].getBody().front().getOps<plan::TransferOp>()) {
    ++transfers;
    llvm::StringRef server = t.getSource().split('.').first;
    ASSERT_TRUE(server.starts_with("server[")) << t.getSource().str();
    EXPECT_EQ(t.getDestination().split('.').first, server);
    for (mlir::Attribute a : t.getPath())
      EXPECT_EQ(llvm::cast<mlir::StringAttr>(a).getValue().split('.').first,
                server)
          << "a path of " << t.getSource().str() << " -> "
          << t.getDestination().str() << " leaves its server";
  }
  EXPECT_GT(transfers, 0u);
  // Nothing outside a server helps: the cluster schedule takes exactly as
  // long as the same host-to-GPU copy planned on one DGX alone.
  Planned one;
  std::string file = writeTemp(
      "import \"" + std::string(SLUICE_SOURCE_DIR) +
      "/examples/machines/dgx-a100.sluice\"\n"
      "demand d on dgx_a100 { transfer 8 GiB from cpu[0] to gpu[0] }\n");
  ASSERT_TRUE(one.run(file)) << one.diagnostics;
  llvm::sys::fs::remove(file);
  // The all-reduce runs after the copies, inside server 5 (the ring over
  // NVSwitch beats sending 4 GiB per GPU up to the reducing leaves).
  auto colls = llvm::to_vector(
      ops[0].getBody().front().getOps<plan::CollectiveOp>());
  ASSERT_EQ(colls.size(), 1u);
  EXPECT_EQ(colls[0].getAlgorithm(), "ring");
  EXPECT_TRUE(colls[0].getTimes().contains("in-network"));
  EXPECT_NEAR(colls[0].getStart().convertToDouble(),
              one.schedules()[0].getMakespan().convertToDouble(), 1e-12);
  EXPECT_NEAR(ops[0].getMakespan().convertToDouble(),
              colls[0].getEnd().convertToDouble(), 1e-12);
}

TEST(PlanSchedule, LargeProblemsUseThePathLP) {
  Planned p;
  ASSERT_TRUE(p.run(example("cluster-alltoall.sluice"))) << p.diagnostics;
  auto ops = p.schedules();
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_GT(p.pn.net.numNodes(), 64u);
  EXPECT_EQ(ops[0].getMethod(), plan::ScheduleMethod::MultiCommodityPathLP);
  // checkPlan: capacities at every moment, the certified bound within the
  // LP's gap of the makespan, at most the direct baseline.
  flow::FlowSchedule s = checkPlan(p, ops[0]);
  EXPECT_EQ(s.routes.size(), 240u);
  // The cut around server 3 (one NIC at HDR100): 15 GiB out over
  // 7 x 25 + 12.5 GB/s. The bound never exceeds the optimum; the makespan
  // is within the path LP's default gap (1e-3) above it.
  double optimum = 15 * GiB / 187.5e9;
  EXPECT_LE(ops[0].getLowerBound()->convertToDouble(), optimum * (1 + 1e-9));
  EXPECT_GE(ops[0].getMakespan().convertToDouble(), optimum * (1 - 1e-9));
  EXPECT_LE(ops[0].getMakespan().convertToDouble(), optimum * (1 + 1e-3));
}

TEST(PlanSchedule, RailsAcrossServers) {
  Planned p;
  ASSERT_TRUE(p.run(example("cluster-rails.sluice"))) << p.diagnostics;
  auto ops = p.schedules();
  ASSERT_EQ(ops.size(), 1u);
  checkPlan(p, ops[0]);
  // Eight NICs of 200 Gb/s leave server 0.
  EXPECT_NEAR(ops[0].getMakespan().convertToDouble(), 8 * GiB / 200e9, 1e-12);
  std::set<std::string> nics;
  for (plan::TransferOp t :
       ops[0].getBody().front().getOps<plan::TransferOp>())
    for (mlir::Attribute a : t.getPath()) {
      llvm::StringRef n = llvm::cast<mlir::StringAttr>(a).getValue();
      if (n.starts_with("server[0].nic["))
        nics.insert(n.str());
    }
  EXPECT_EQ(nics.size(), 8u);
}

TEST(PlanSchedule, PcieTreeMatchesDirectPaths) {
  Planned p;
  ASSERT_TRUE(p.run(example("pcie-gather.sluice"))) << p.diagnostics;
  auto ops = p.schedules();
  ASSERT_EQ(ops.size(), 1u);
  checkPlan(p, ops[0]);
  // One path per pair: the optimum is the direct schedule.
  EXPECT_NEAR(ops[0].getMakespan().convertToDouble(),
              ops[0].getDirectMakespan()->convertToDouble(), 1e-9);
}

TEST(PlanSchedule, GatherSlotsReproduceTheCurrentSchedule) {
  Planned p;
  ASSERT_TRUE(p.run(example("pcie-gather.sluice"))) << p.diagnostics;
  auto ops = p.schedules();
  ASSERT_EQ(ops.size(), 1u);
  std::vector<unsigned> sources, gpus;
  for (const char *pattern : {"box.ssd[*]", "box.socket[*]"}) {
    auto m = plan::matchDevices(p.pn.net, pattern);
    ASSERT_TRUE(static_cast<bool>(m));
    sources.insert(sources.end(), m->begin(), m->end());
  }
  auto g = plan::matchDevices(p.pn.net, "box.gpu[*]");
  ASSERT_TRUE(static_cast<bool>(g));
  gpus = *g;
  auto slots =
      plan::recommendGatherSlots(p.pn, p.graph, sources, gpus, 4 * GiB);
  ASSERT_TRUE(static_cast<bool>(slots)) << llvm::toString(slots.takeError());
  // GPUs and SSDs move; the sockets are fabric (traffic from a node).
  EXPECT_EQ(slots->problem.devices.size(), 16u);
  // The slot model of the current layout is the topology itself: the same
  // makespan as the plan (an independent solve on another network).
  ASSERT_TRUE(slots->recommendation.current.has_value());
  EXPECT_NEAR(slots->recommendation.current->makespan,
              ops[0].getMakespan().convertToDouble(),
              1e-6 * ops[0].getMakespan().convertToDouble());
  EXPECT_LE(slots->recommendation.best.makespan,
            slots->recommendation.current->makespan * (1 + 1e-9));
  // The DGX's GPUs hang off seven switches: no recommendation.
  Planned dgx;
  ASSERT_TRUE(dgx.run(example("dgx-gnn-gather.sluice"))) << dgx.diagnostics;
  auto dg = plan::matchDevices(dgx.pn.net, "gpu[*]");
  auto ds = plan::matchDevices(dgx.pn.net, "ssd[*]");
  ASSERT_TRUE(dg && ds);
  auto none = plan::recommendGatherSlots(dgx.pn, dgx.graph, *ds, *dg, GiB);
  ASSERT_FALSE(static_cast<bool>(none));
  EXPECT_NE(llvm::toString(none.takeError()).find("not one slot"),
            std::string::npos);
}

TEST(PlanSchedule, TraceHasOneEventPerChunk) {
  Planned p;
  ASSERT_TRUE(p.run(example("dgx-gnn-gather.sluice"))) << p.diagnostics;
  std::string text;
  llvm::raw_string_ostream os(text);
  ASSERT_TRUE(mlir::succeeded(
      plan::writePlanTrace(os, p.compilation->module(), p.graph)));
  auto json = llvm::json::parse(text);
  ASSERT_TRUE(static_cast<bool>(json)) << llvm::toString(json.takeError());
  const llvm::json::Array *events =
      json->getAsObject()->getArray("traceEvents");
  ASSERT_NE(events, nullptr);
  plan::ScheduleOp op = p.schedules()[0];
  int64_t chunks = 0, tracks = 0;
  for (plan::TransferOp t : op.getBody().front().getOps<plan::TransferOp>()) {
    chunks += t.getChunks();
    ++tracks;
  }
  double makespanUs = op.getMakespan().convertToDouble() * 1e6;
  std::map<int64_t, double> bytesPerTrack;
  int64_t x = 0, threads = 0;
  for (const llvm::json::Value &v : *events) {
    const llvm::json::Object *e = v.getAsObject();
    ASSERT_NE(e, nullptr);
    // Every event has a category (trace loaders such as tracerbench need
    // one), metadata events Chrome's "__metadata".
    ASSERT_TRUE(e->getString("cat").has_value())
        << e->getString("name").value_or("").str();
    if (e->getString("ph") == "M") {
      EXPECT_EQ(*e->getString("cat"), "__metadata");
    }
    if (e->getString("ph") == "M" && e->getString("name") == "thread_name")
      ++threads;
    if (e->getString("ph") != "X")
      continue;
    ++x;
    double ts = *e->getNumber("ts"), dur = *e->getNumber("dur");
    EXPECT_GE(ts, 0);
    EXPECT_GT(dur, 0);
    EXPECT_LE(ts + dur, makespanUs * (1 + 1e-9));
    bytesPerTrack[*e->getInteger("tid")] +=
        *e->getObject("args")->getNumber("bytes");
  }
  EXPECT_EQ(x, chunks);
  EXPECT_EQ(threads, tracks);
  int64_t tid = 0;
  for (plan::TransferOp t : op.getBody().front().getOps<plan::TransferOp>())
    EXPECT_NEAR(bytesPerTrack[++tid], t.getBytes().convertToDouble(), 1);
}

TEST(PlanSchedule, DevicePatterns) {
  flow::FlowNetwork net;
  for (const char *n : {"gpu[0]", "gpu[1]", "gpu[2]", "host",
                        "server[0].gpu[0]", "server[1].gpu[0]",
                        "server[1].gpu[1]"})
    net.addNode(n);
  auto match = [&](llvm::StringRef pattern) {
    auto m = plan::matchDevices(net, pattern);
    EXPECT_TRUE(static_cast<bool>(m)) << llvm::toString(m.takeError());
    return m ? *m : std::vector<unsigned>{};
  };
  EXPECT_EQ(match("gpu[*]"), (std::vector<unsigned>{0, 1, 2}));
  EXPECT_EQ(match("gpu[1..3]"), (std::vector<unsigned>{1, 2}));
  EXPECT_EQ(match("gpu[2]"), (std::vector<unsigned>{2}));
  EXPECT_EQ(match("host"), (std::vector<unsigned>{3}));
  EXPECT_EQ(match("host[0]"), (std::vector<unsigned>{}));
  EXPECT_EQ(match("gpu"), (std::vector<unsigned>{}));
  EXPECT_EQ(match("server[*].gpu[0]"), (std::vector<unsigned>{4, 5}));
  EXPECT_EQ(match("server[1].gpu[*]"), (std::vector<unsigned>{5, 6}));
  EXPECT_EQ(match("gpu[5..9]"), (std::vector<unsigned>{}));
  for (const char *bad : {"gpu[x]", "gpu[", ".gpu", "gpu[1]]", "[1]"}) {
    auto m = plan::matchDevices(net, bad);
    EXPECT_FALSE(static_cast<bool>(m)) << bad;
    if (!m)
      llvm::consumeError(m.takeError());
  }
}

TEST(PlanSchedule, OutputIsDeterministic) {
  std::string first;
  for (int run = 0; run < 2; ++run) {
    Planned p;
    ASSERT_TRUE(p.run(example("dgx-allreduce.sluice"))) << p.diagnostics;
    std::string text;
    llvm::raw_string_ostream os(text);
    ASSERT_TRUE(mlir::succeeded(
        plan::writePlanJSON(os, p.compilation->module(), p.graph)));
    p.compilation->module().print(os);
    if (run == 0)
      first = text;
    else
      EXPECT_EQ(first, text);
  }
}

} // namespace
