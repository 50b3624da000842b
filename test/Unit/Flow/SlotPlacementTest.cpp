//===- SlotPlacementTest.cpp - Slot recommendation vs brute force ---------===//
//
// recommendSlots against every injective assignment of devices to slots
// (each evaluated with the same flow solver) on small random machines: the
// exhaustive search (over slot and device classes) finds the brute-force
// optimum, the local search never reports better than it nor worse than the
// current assignment; and the pcie-switch-server example.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/SlotPlacement.h"
#include "FlowTestUtils.h"
#include <functional>

using namespace sluice;
using namespace sluice::flow;
using namespace sluice::flow::test;

namespace {
double bruteForce(const SlotProblem &p, unsigned &count) {
  std::vector<unsigned> slotOf(p.devices.size());
  std::vector<bool> used(p.slots.size(), false);
  double best = std::numeric_limits<double>::infinity();
  count = 0;
  std::function<void(unsigned)> rec = [&](unsigned d) {
    if (d == p.devices.size()) {
      auto a = evaluateSlots(p, slotOf);
      EXPECT_TRUE(static_cast<bool>(a));
      if (a) {
        ++count;
        best = std::min(best, a->makespan);
      } else {
        llvm::consumeError(a.takeError());
      }
      return;
    }
    for (unsigned s = 0; s < p.slots.size(); ++s) {
      if (used[s])
        continue;
      const auto &acc = p.slots[s].accepts;
      if (!acc.empty() &&
          std::find(acc.begin(), acc.end(), p.devices[d].kind) == acc.end())
        continue;
      used[s] = true;
      slotOf[d] = s;
      rec(d + 1);
      used[s] = false;
    }
  };
  rec(0);
  return best;
}

/// Two sockets, `switches` PCIe switches alternating between them, each
/// with two x16 slots (any device) and two x4 slots (SSDs only) (the
/// layout of examples/machines/pcie-switch-server.sluice).
SlotProblem pcieServer(unsigned switches, const std::vector<double> &uplinks) {
  SlotProblem p;
  FlowNetwork &f = p.fabric;
  unsigned s0 = f.addNode("socket[0]"), s1 = f.addNode("socket[1]");
  f.addArc(s0, s1, 67.2 * GBps);
  f.addArc(s1, s0, 67.2 * GBps);
  for (unsigned k = 0; k < switches; ++k) {
    unsigned sw = f.addNode("pcie[" + std::to_string(k) + "]");
    unsigned sock = k % 2 ? s1 : s0;
    f.addArc(sock, sw, uplinks[k]);
    f.addArc(sw, sock, uplinks[k]);
    for (unsigned j = 0; j < 2; ++j)
      p.slots.push_back({"pcie[" + std::to_string(k) + "].x16[" +
                             std::to_string(j) + "]",
                         sw, 25 * GBps, {}});
    for (unsigned j = 0; j < 2; ++j)
      p.slots.push_back({"pcie[" + std::to_string(k) + "].x4[" +
                             std::to_string(j) + "]",
                         sw, 7.88 * GBps, {"nvme"}});
  }
  return p;
}
} // namespace

TEST(FlowSlotPlacement, ExhaustiveEqualsBruteForce) {
  std::mt19937 rng(31);
  static const double ups[] = {8, 16, 25, 32};
  for (unsigned iter = 0; iter < 12; ++iter) {
    SCOPED_TRACE("iteration " + std::to_string(iter));
    unsigned switches = 2;
    SlotProblem p = pcieServer(
        switches, {ups[rng() % 4] * GBps, ups[rng() % 4] * GBps});
    unsigned gpus = 1 + rng() % 2, ssds = 1 + rng() % 2;
    for (unsigned i = 0; i < gpus; ++i)
      p.devices.push_back({"gpu[" + std::to_string(i) + "]", "gpu", 0});
    for (unsigned i = 0; i < ssds; ++i)
      p.devices.push_back({"ssd[" + std::to_string(i) + "]", "nvme", 7e9});
    p.traffic.push_back({"nvme", std::nullopt, "gpu", 1e9});
    if (rng() % 2)
      p.traffic.push_back({"", 0u, "gpu", 0.5e9});
    if (rng() % 2)
      p.traffic.push_back({"gpu", std::nullopt, "gpu", 0.25e9});
    // Current: devices in slot order where they fit.
    auto any = evaluateSlots(p, {0});
    llvm::consumeError(any.takeError());
    unsigned count = 0;
    double best = bruteForce(p, count);
    ASSERT_GT(count, 0u);
    auto r = recommendSlots(p);
    ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
    EXPECT_TRUE(r->exhaustive);
    EXPECT_LT(r->evaluated, count);
    EXPECT_TRUE(nearRel(r->best.makespan, best, 1e-6))
        << r->best.makespan << " vs brute force " << best;
    auto again = evaluateSlots(p, r->best.slotOf);
    ASSERT_TRUE(static_cast<bool>(again));
    EXPECT_EQ(again->makespan, r->best.makespan);
    // Local search from the worst-looking start: all devices on switch 0
    // where possible.
    SlotOptions local;
    local.exhaustiveLimit = 0;
    auto l = recommendSlots(p, local);
    ASSERT_TRUE(static_cast<bool>(l));
    EXPECT_FALSE(l->exhaustive);
    EXPECT_GE(l->best.makespan, best * (1 - 1e-9));
  }
}

TEST(FlowSlotPlacement, PcieSwitchServerExample) {
  // examples/machines/pcie-switch-server.sluice: 2 switches with 25 GB/s
  // uplinks; GPUs 0,1 and SSDs 0,1 on switch 0, the rest on switch 1.
  SlotProblem p = pcieServer(2, {25 * GBps, 25 * GBps});
  for (unsigned i = 0; i < 4; ++i)
    p.devices.push_back({"gpu[" + std::to_string(i) + "]", "gpu", 0});
  for (unsigned i = 0; i < 4; ++i)
    p.devices.push_back({"ssd[" + std::to_string(i) + "]", "nvme", 7e9});
  // Every GPU reads 1 GB from every SSD and 2 GB from socket 0's memory.
  p.traffic.push_back({"nvme", std::nullopt, "gpu", 1e9});
  p.traffic.push_back({"", 0u, "gpu", 2e9});
  p.current = {0, 1, 4, 5, 2, 3, 6, 7};
  auto r = recommendSlots(p);
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  ASSERT_TRUE(r->current.has_value());
  EXPECT_TRUE(r->exhaustive);
  EXPECT_LE(r->best.makespan, r->current->makespan * (1 + 1e-9));
  // All slots are full, so only the symmetric layout exists up to swapping
  // which switch gets which GPU pair: the current one is optimal.
  EXPECT_TRUE(nearRel(r->best.makespan, r->current->makespan, 1e-6));
  std::printf("[ pcie-switch-server ] current %.4f s, recommended %.4f s, "
              "%u evaluated\n",
              r->current->makespan, r->best.makespan, r->evaluated);

  // With the 8-GPU variant's four switches and only 2 GPUs and 2 SSDs to
  // install, spreading the GPUs over the two switches of socket 0 (whose
  // memory they read 6 GB each from) leaves each GPU's own x16 link as the
  // bottleneck (7 GB / 25 GB/s) instead of the shared uplink of the packed
  // current layout (12 GB / 25 GB/s).
  SlotProblem q = pcieServer(4, {25 * GBps, 25 * GBps, 25 * GBps, 25 * GBps});
  for (unsigned i = 0; i < 2; ++i)
    q.devices.push_back({"gpu[" + std::to_string(i) + "]", "gpu", 0});
  for (unsigned i = 0; i < 2; ++i)
    q.devices.push_back({"ssd[" + std::to_string(i) + "]", "nvme", 7e9});
  q.traffic.push_back({"nvme", std::nullopt, "gpu", 0.5e9});
  q.traffic.push_back({"", 0u, "gpu", 6e9});
  q.current = {0, 1, 2, 3};
  auto rq = recommendSlots(q);
  ASSERT_TRUE(static_cast<bool>(rq)) << llvm::toString(rq.takeError());
  unsigned count = 0;
  double best = bruteForce(q, count);
  EXPECT_TRUE(nearRel(rq->best.makespan, best, 1e-6));
  EXPECT_TRUE(nearRel(rq->current->makespan, 12e9 / (25 * GBps), 1e-6));
  EXPECT_TRUE(nearRel(rq->best.makespan, 7e9 / (25 * GBps), 1e-6));
  std::printf("[ pcie-switch-server-8gpu, 2+2 devices ] current %.4f s, "
              "recommended %.4f s (%u of %u assignments evaluated)\n",
              rq->current->makespan, rq->best.makespan, rq->evaluated, count);
}

TEST(FlowSlotPlacement, Errors) {
  SlotProblem p = pcieServer(2, {25 * GBps, 25 * GBps});
  for (unsigned i = 0; i < 5; ++i)
    p.devices.push_back({"gpu[" + std::to_string(i) + "]", "gpu", 0});
  auto r = recommendSlots(p);
  ASSERT_FALSE(static_cast<bool>(r));
  EXPECT_NE(llvm::toString(r.takeError()).find("cannot all get a slot"),
            std::string::npos);
  p.devices.resize(2);
  p.current = {2, 0};
  auto r2 = recommendSlots(p);
  ASSERT_FALSE(static_cast<bool>(r2));
  EXPECT_NE(llvm::toString(r2.takeError()).find("does not take a gpu"),
            std::string::npos);
  p.current = {0, 0};
  auto r3 = recommendSlots(p);
  ASSERT_FALSE(static_cast<bool>(r3));
  EXPECT_NE(llvm::toString(r3.takeError()).find("holds two devices"),
            std::string::npos);
  p.current.clear();
  p.slots[0].attach = 99;
  auto r4 = recommendSlots(p);
  ASSERT_FALSE(static_cast<bool>(r4));
  EXPECT_NE(llvm::toString(r4.takeError()).find("out of range"),
            std::string::npos);
}
