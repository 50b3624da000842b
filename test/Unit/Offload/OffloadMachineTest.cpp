//===- OffloadMachineTest.cpp - Machines from topologies ------------------===//
#include "compiler/Analysis/Offload/OffloadMachine.h"

#include "gtest/gtest.h"

using namespace sluice;
using namespace sluice::offload;
using analysis::TopoGraph;

namespace {

constexpr double GiB = 1024.0 * 1024.0 * 1024.0;

/// examples/machines/rtx4090-workstation.sluice, built by hand.
TopoGraph workstation(int drives) {
  TopoGraph g;
  unsigned gpu = g.addDevice("gpu", "gpu");
  g.addQuantity(gpu, "memory", 24 * GiB, Dim::bytes());
  g.addQuantity(gpu, "memory_bandwidth", 1008e9, Dim::bandwidth());
  g.addQuantity(gpu, "compute", 165.2e12, Dim::compute());
  unsigned cpu = g.addDevice("cpu", "cpu");
  g.addQuantity(cpu, "memory", 256 * GiB, Dim::bytes());
  g.addQuantity(cpu, "memory_bandwidth", 8 * 25.6e9, Dim::bandwidth());
  g.addLink(cpu, gpu, 25e9, 0, /*bidirectional=*/true, 0, "pcie4x16");
  for (int i = 0; i < drives; ++i) {
    unsigned s = g.addDevice("ssd[" + std::to_string(i) + "]", "nvme");
    g.addQuantity(s, "capacity", 2e12, Dim::bytes());
    g.addQuantity(s, "read", 7.45e9, Dim::bandwidth());
    g.addQuantity(s, "write", 6.9e9, Dim::bandwidth());
    g.addLink(cpu, s, 7.88e9, 0, true, 1 + i, "pcie4x4");
  }
  return g;
}

TEST(OffloadMachine, FromWorkstationTopology) {
  auto m = machineFromTopo(workstation(4), "gpu");
  ASSERT_TRUE(static_cast<bool>(m)) << llvm::toString(m.takeError());
  EXPECT_EQ(m->gpuMemory, 24 * GiB);
  EXPECT_EQ(m->gpuPeakFlops, 165.2e12);
  EXPECT_EQ(m->hostMemory, 256 * GiB);
  EXPECT_EQ(m->h2dBandwidth, 25e9);
  EXPECT_EQ(m->d2hBandwidth, 25e9);
  EXPECT_EQ(m->nvme.count, 4);
  // The drives are slower than their x4 links: the sums of their figures.
  EXPECT_DOUBLE_EQ(m->nvme.readBandwidth, 4 * 7.45e9);
  EXPECT_DOUBLE_EQ(m->nvme.writeBandwidth, 4 * 6.9e9);
  EXPECT_DOUBLE_EQ(m->nvme.capacity, 8e12);
  EXPECT_DOUBLE_EQ(m->cpuAdamRate, 8 * 25.6e9 * kDefaultAdamBandwidthFraction /
                                       kAdamHostBytesPerParam);
  EXPECT_FALSE(m->csd.present());
  EXPECT_EQ(m->validate(), "");
}

TEST(OffloadMachine, SharedUplinkCapsTheArray) {
  // Twelve drives behind one switch with a 16 GB/s uplink: the min cut, not
  // the sum of the drives, bounds the array.
  TopoGraph g = workstation(0);
  unsigned cpu = *g.findDevice("cpu");
  unsigned sw = g.addDevice("sw", "switch");
  g.addLink(cpu, sw, 16e9, 0, true, 10);
  for (int i = 0; i < 12; ++i) {
    unsigned s = g.addDevice("ssd[" + std::to_string(i) + "]", "nvme");
    g.addQuantity(s, "capacity", 2e12, Dim::bytes());
    g.addQuantity(s, "read", 7.45e9, Dim::bandwidth());
    g.addQuantity(s, "write", 6.9e9, Dim::bandwidth());
    g.addLink(sw, s, 7.88e9, 0, true, 11 + i);
  }
  auto m = machineFromTopo(g, "gpu", "cpu");
  ASSERT_TRUE(static_cast<bool>(m)) << llvm::toString(m.takeError());
  EXPECT_EQ(m->nvme.count, 12);
  EXPECT_DOUBLE_EQ(m->nvme.readBandwidth, 16e9);
  EXPECT_DOUBLE_EQ(m->nvme.writeBandwidth, 16e9);
}

TEST(OffloadMachine, OptionsOverrideWhatTheTopologyLacks) {
  TopoMachineOptions o;
  o.gpuEfficiency = 0.5;
  o.cpuAdamRate = 2e9;
  o.hostMemory = 128 * GiB;
  auto m = machineFromTopo(workstation(1), "gpu", "", o);
  ASSERT_TRUE(static_cast<bool>(m)) << llvm::toString(m.takeError());
  EXPECT_EQ(m->gpuEfficiency, 0.5);
  EXPECT_EQ(m->cpuAdamRate, 2e9);
  EXPECT_EQ(m->hostMemory, 128 * GiB);
}

TEST(OffloadMachine, Errors) {
  TopoGraph g = workstation(1);
  auto noGpu = machineFromTopo(g, "gpu[7]");
  ASSERT_FALSE(static_cast<bool>(noGpu));
  EXPECT_EQ(llvm::toString(noGpu.takeError()),
            "no device named 'gpu[7]' in the topology");
  auto notGpu = machineFromTopo(g, "cpu");
  ASSERT_FALSE(static_cast<bool>(notGpu));
  EXPECT_EQ(llvm::toString(notGpu.takeError()),
            "device 'cpu' is a cpu, expected a gpu");

  TopoGraph bare;
  unsigned gpu = bare.addDevice("gpu", "gpu");
  bare.addQuantity(gpu, "memory", 24 * GiB, Dim::bytes());
  unsigned cpu = bare.addDevice("cpu", "cpu");
  bare.addQuantity(cpu, "memory", 64 * GiB, Dim::bytes());
  bare.addLink(cpu, gpu, 25e9, 0, true);
  auto noCompute = machineFromTopo(bare, "gpu");
  ASSERT_FALSE(static_cast<bool>(noCompute));
  EXPECT_EQ(llvm::toString(noCompute.takeError()),
            "device 'gpu' (gpu) has no 'compute' property");
  bare.addQuantity(gpu, "compute", 100e12, Dim::compute());
  auto noBw = machineFromTopo(bare, "gpu");
  ASSERT_FALSE(static_cast<bool>(noBw));
  EXPECT_NE(llvm::toString(noBw.takeError()).find("memory_bandwidth"),
            std::string::npos);

  TopoGraph apart = workstation(0);
  apart.arcs.clear();
  auto unreachable = machineFromTopo(apart, "gpu", "cpu");
  ASSERT_FALSE(static_cast<bool>(unreachable));
  EXPECT_EQ(llvm::toString(unreachable.takeError()),
            "no path between cpu 'cpu' and gpu 'gpu' in both directions");
}

TEST(OffloadMachine, PresetsValidate) {
  EXPECT_EQ(Machine::rtx4090With12Nvme().validate(), "");
  EXPECT_EQ(Machine::t4FlexGen().validate(), "");
  EXPECT_EQ(Machine::a5000SmartSsd(10).validate(), "");
  Machine bad = Machine::t4FlexGen();
  bad.gpuEfficiency = 1.5;
  EXPECT_EQ(bad.validate(), "GPU efficiency must be at most 1, got 1.500000");
}

} // namespace
