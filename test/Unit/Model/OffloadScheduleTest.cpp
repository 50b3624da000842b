//===- OffloadScheduleTest.cpp - Fine-tune plans as plan.schedule ---------===//
//
// buildFinetuneSchedule on hand-built topologies: the schedule verifies,
// mirrors the plan's timeline action by action and its per-link bytes, and
// the error paths give located diagnostics.
//
//===----------------------------------------------------------------------===//
#include "dialects/Model/Transforms/OffloadSchedule.h"

#include "compiler/Analysis/Offload/OffloadPresets.h"
#include "dialects/Plan/IR/PlanDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "gtest/gtest.h"

#include <map>
#include <string>

using namespace sluice;
using namespace sluice::offload;
using analysis::TopoGraph;

namespace {

constexpr double GiB = 1024.0 * 1024.0 * 1024.0;

/// examples/machines/rtx4090-workstation.sluice with `drives` SSDs behind a
/// switch `sw` (so SSD paths have three devices); `linked` = false leaves
/// out the PCIe link between CPU and GPU.
TopoGraph workstation(int drives, bool linked = true) {
  TopoGraph g;
  unsigned gpu = g.addDevice("gpu", "gpu");
  g.addQuantity(gpu, "memory", 24 * GiB, Dim::bytes());
  g.addQuantity(gpu, "compute", 165.2e12, Dim::compute());
  unsigned cpu = g.addDevice("cpu", "cpu");
  g.addQuantity(cpu, "memory", 256 * GiB, Dim::bytes());
  g.addQuantity(cpu, "memory_bandwidth", 8 * 25.6e9, Dim::bandwidth());
  if (linked)
    g.addLink(cpu, gpu, 25e9, 0, /*bidirectional=*/true, 0, "pcie4x16");
  unsigned sw = g.addDevice("sw", "switch");
  g.addLink(cpu, sw, 64e9, 0, true, 1, "pcie4x16");
  for (int i = 0; i < drives; ++i) {
    unsigned s = g.addDevice("ssd[" + std::to_string(i) + "]", "nvme");
    g.addQuantity(s, "capacity", 2e12, Dim::bytes());
    g.addQuantity(s, "read", 7.45e9, Dim::bandwidth());
    g.addQuantity(s, "write", 6.9e9, Dim::bandwidth());
    g.addLink(sw, s, 7.88e9, 0, true, 2 + i, "pcie4x4");
  }
  return g;
}

struct Fixture {
  mlir::MLIRContext ctx;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler;

  Fixture()
      : handler(&ctx, [this](mlir::Diagnostic &d) {
          diagnostics += d.str() + "\n";
          return mlir::success();
        }) {
    ctx.loadDialect<plan::PlanDialect>();
    module = mlir::ModuleOp::create(mlir::UnknownLoc::get(&ctx));
  }

  mlir::FailureOr<plan::ScheduleOp> build(const FinetunePlan &p,
                                          const Machine &m,
                                          const TopoGraph &g) {
    mlir::OpBuilder b = mlir::OpBuilder::atBlockEnd(module->getBody());
    return model::buildFinetuneSchedule(b, mlir::UnknownLoc::get(&ctx),
                                        "tune_iteration", "workstation", p, m,
                                        g);
  }
};

FinetunePlan planOn(const Machine &m, const char *model, int64_t batch) {
  FinetuneJob job{*modelPreset(model), batch, 0};
  auto p = planFinetune(job, m);
  EXPECT_TRUE(static_cast<bool>(p)) << llvm::toString(p.takeError());
  return *p;
}

TEST(OffloadSchedule, MachineNamesTheTopologyDevices) {
  auto m = machineFromTopo(workstation(3), "gpu");
  ASSERT_TRUE(static_cast<bool>(m)) << llvm::toString(m.takeError());
  EXPECT_EQ(m->devices.gpu, "gpu");
  EXPECT_EQ(m->devices.cpu, "cpu");
  EXPECT_EQ(m->devices.nvme,
            (std::vector<std::string>{"ssd[0]", "ssd[1]", "ssd[2]"}));
  EXPECT_TRUE(m->devices.csd.empty());
}

TEST(OffloadSchedule, MirrorsTheTimeline) {
  TopoGraph g = workstation(4);
  auto m = machineFromTopo(g, "gpu");
  ASSERT_TRUE(static_cast<bool>(m)) << llvm::toString(m.takeError());
  // GPT-3 175B: optimizer states stream from the SSDs.
  FinetunePlan p = planOn(*m, "gpt3-175b", 8);
  ASSERT_TRUE(p.feasible) << p.infeasibleReason;
  ASSERT_GT(p.links.ssdRead, 0);
  Fixture f;
  auto s = f.build(p, *m, g);
  ASSERT_TRUE(mlir::succeeded(s)) << f.diagnostics;
  ASSERT_TRUE(mlir::succeeded(mlir::verify(*f.module))) << f.diagnostics;
  EXPECT_EQ(s->getMakespan().convertToDouble(), p.iterationTime);
  EXPECT_EQ(s->getTflops()->convertToDouble(), p.tflops());
  EXPECT_EQ(s->getMethod(), plan::ScheduleMethod::OffloadFinetune);

  std::map<std::string, double> link;
  std::vector<double> actionBytes(p.schedule.size(), 0);
  size_t computes = 0, expectedComputes = 0;
  for (mlir::Operation &op : s->getBody().front()) {
    if (auto t = llvm::dyn_cast<plan::TransferOp>(op)) {
      auto i = static_cast<size_t>(t.getDemand());
      ASSERT_LT(i, p.schedule.size());
      const Action &a = p.schedule[i];
      EXPECT_EQ(t.getStream(), streamName(a.stream));
      EXPECT_EQ(t.getTensor(), a.tensor);
      EXPECT_EQ(t.getStart().convertToDouble(), a.start);
      EXPECT_EQ(t.getEnd().convertToDouble(), a.end);
      actionBytes[i] += t.getBytes().convertToDouble();
      link[t.getStream()->str()] += t.getBytes().convertToDouble();
      // SSD paths cross the switch.
      if (a.stream == Stream::SsdRead || a.stream == Stream::SsdWrite) {
        EXPECT_EQ(t.getPath().size(), 3u);
      }
    } else {
      ASSERT_TRUE(llvm::isa<plan::ComputeOp>(op));
      ++computes;
    }
  }
  for (size_t i = 0; i < p.schedule.size(); ++i) {
    const Action &a = p.schedule[i];
    if (a.stream == Stream::GpuCompute || a.stream == Stream::CpuOptimizer) {
      ++expectedComputes;
      continue;
    }
    EXPECT_NEAR(actionBytes[i], a.bytes, 1e-9 * a.bytes) << "action " << i;
  }
  EXPECT_EQ(computes, expectedComputes);
  EXPECT_NEAR(link["H2D"], p.links.h2d, 1e-9 * p.links.h2d);
  EXPECT_NEAR(link["D2H"], p.links.d2h, 1e-9 * p.links.d2h);
  EXPECT_NEAR(link["SSD read"], p.links.ssdRead, 1e-9 * p.links.ssdRead);
  EXPECT_NEAR(link["SSD write"], p.links.ssdWrite, 1e-9 * p.links.ssdWrite);
}

TEST(OffloadSchedule, InfeasiblePlanIsAnError) {
  TopoGraph g = workstation(0);
  auto m = machineFromTopo(g, "gpu");
  ASSERT_TRUE(static_cast<bool>(m)) << llvm::toString(m.takeError());
  FinetunePlan p = planOn(*m, "gpt3-175b", 32);
  ASSERT_FALSE(p.feasible);
  Fixture f;
  EXPECT_TRUE(mlir::failed(f.build(p, *m, g)));
  EXPECT_NE(f.diagnostics.find("no schedule for an infeasible plan"),
            std::string::npos)
      << f.diagnostics;
  EXPECT_TRUE(f.module->getBody()->empty());
}

TEST(OffloadSchedule, PresetMachineHasNoDevices) {
  Machine m = *machinePreset("rtx4090-12nvme");
  FinetunePlan p = planOn(m, "13b", 8);
  ASSERT_TRUE(p.feasible) << p.infeasibleReason;
  Fixture f;
  EXPECT_TRUE(mlir::failed(f.build(p, m, workstation(12))));
  EXPECT_NE(f.diagnostics.find("names no topology devices"), std::string::npos)
      << f.diagnostics;
}

TEST(OffloadSchedule, UnconnectedDevicesAreAnError) {
  auto m = machineFromTopo(workstation(4), "gpu");
  ASSERT_TRUE(static_cast<bool>(m)) << llvm::toString(m.takeError());
  FinetunePlan p = planOn(*m, "13b", 8);
  ASSERT_TRUE(p.feasible) << p.infeasibleReason;
  Fixture f;
  // The same devices without the PCIe link between CPU and GPU.
  EXPECT_TRUE(mlir::failed(f.build(p, *m, workstation(4, false))));
  EXPECT_NE(f.diagnostics.find("no path from 'cpu' to 'gpu' in topology "
                               "'workstation'"),
            std::string::npos)
      << f.diagnostics;
  // Nothing half-built is left behind.
  EXPECT_TRUE(f.module->getBody()->empty());
}

} // namespace
