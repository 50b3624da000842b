//===- SlotPlacement.cpp - Which slot each GPU and SSD goes in ------------===//
//
// See SlotPlacement.h and docs/flows.md ("Slot recommendation").
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/SlotPlacement.h"
#include "compiler/Analysis/Flow/FlowPaths.h"
#include "compiler/Analysis/Flow/FlowSolvers.h"
#include "compiler/Analysis/Flow/PathLP.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <tuple>

using namespace sluice;
using namespace sluice::flow;
using namespace sluice::flow::detail;

namespace {
bool accepts(const Slot &s, const std::string &kind) {
  return s.accepts.empty() ||
         std::find(s.accepts.begin(), s.accepts.end(), kind) != s.accepts.end();
}

/// Kuhn's augmenting paths: a slot per device, or nullopt.
std::optional<std::vector<unsigned>> anyAssignment(const SlotProblem &p) {
  unsigned nd = p.devices.size(), ns = p.slots.size();
  std::vector<unsigned> owner(ns, ~0u), slotOf(nd, ~0u);
  std::function<bool(unsigned, std::vector<bool> &)> augment =
      [&](unsigned d, std::vector<bool> &seen) {
        for (unsigned s = 0; s < ns; ++s) {
          if (seen[s] || !accepts(p.slots[s], p.devices[d].kind))
            continue;
          seen[s] = true;
          if (owner[s] == ~0u || augment(owner[s], seen)) {
            owner[s] = d;
            slotOf[d] = s;
            return true;
          }
        }
        return false;
      };
  for (unsigned d = 0; d < nd; ++d) {
    std::vector<bool> seen(ns, false);
    if (!augment(d, seen))
      return std::nullopt;
  }
  return slotOf;
}

llvm::Error checkAssignment(const SlotProblem &p,
                            const std::vector<unsigned> &slotOf,
                            const char *what) {
  if (slotOf.size() != p.devices.size())
    return makeError(llvm::formatv("{0} assignment has {1} slots for {2} "
                                   "devices",
                                   what, slotOf.size(), p.devices.size()));
  std::set<unsigned> used;
  for (unsigned d = 0; d < slotOf.size(); ++d) {
    unsigned s = slotOf[d];
    if (s >= p.slots.size())
      return makeError(llvm::formatv("{0} assignment: device {1} ('{2}') in "
                                     "slot {3}, out of range ({4} slots)",
                                     what, d, p.devices[d].name, s,
                                     p.slots.size()));
    if (!accepts(p.slots[s], p.devices[d].kind))
      return makeError(llvm::formatv(
          "{0} assignment: slot {1} ('{2}') does not take a {3}", what, s,
          p.slots[s].name, p.devices[d].kind));
    if (!used.insert(s).second)
      return makeError(llvm::formatv(
          "{0} assignment: slot {1} ('{2}') holds two devices", what, s,
          p.slots[s].name));
  }
  return llvm::Error::success();
}
} // namespace

llvm::Error flow::validateSlotProblem(const SlotProblem &p) {
  if (llvm::Error err = validateNetwork(p.fabric))
    return err;
  unsigned n = p.fabric.numNodes();
  for (unsigned s = 0; s < p.slots.size(); ++s) {
    const Slot &slot = p.slots[s];
    if (slot.attach >= n)
      return makeError(llvm::formatv(
          "slot {0} ('{1}'): node {2} out of range (fabric has {3} nodes)", s,
          slot.name, slot.attach, n));
    if (!(slot.bandwidth > 0) || !std::isfinite(slot.bandwidth))
      return makeError(llvm::formatv(
          "slot {0} ('{1}'): bandwidth must be finite and positive, got {2}",
          s, slot.name, formatNumber(slot.bandwidth)));
  }
  for (unsigned d = 0; d < p.devices.size(); ++d) {
    const SlotDevice &dev = p.devices[d];
    if (dev.kind.empty())
      return makeError(
          llvm::formatv("device {0} ('{1}') has no kind", d, dev.name));
    if (!(dev.bandwidth >= 0) || !std::isfinite(dev.bandwidth))
      return makeError(llvm::formatv(
          "device {0} ('{1}'): bandwidth must be finite and non-negative", d,
          dev.name));
  }
  for (unsigned t = 0; t < p.traffic.size(); ++t) {
    const SlotTraffic &tr = p.traffic[t];
    if (!(tr.bytesPerPair >= 0) || !std::isfinite(tr.bytesPerPair))
      return makeError(llvm::formatv(
          "traffic {0}: bytes must be finite and non-negative, got {1}", t,
          formatNumber(tr.bytesPerPair)));
    if (tr.sourceNode && *tr.sourceNode >= n)
      return makeError(llvm::formatv(
          "traffic {0}: source node {1} out of range (fabric has {2} nodes)",
          t, *tr.sourceNode, n));
    if (!tr.sourceNode && tr.sourceKind.empty())
      return makeError(
          llvm::formatv("traffic {0}: needs a source kind or node", t));
  }
  if (!p.current.empty())
    if (llvm::Error err = checkAssignment(p, p.current, "current"))
      return err;
  if (!anyAssignment(p))
    return makeError(llvm::formatv(
        "the {0} devices cannot all get a slot that takes them ({1} slots)",
        p.devices.size(), p.slots.size()));
  return llvm::Error::success();
}

llvm::Expected<FlowNetwork>
flow::slotNetwork(const SlotProblem &p, const std::vector<unsigned> &slotOf) {
  if (llvm::Error err = checkAssignment(p, slotOf, "the"))
    return std::move(err);
  FlowNetwork net = p.fabric;
  for (unsigned d = 0; d < p.devices.size(); ++d) {
    unsigned v = net.addNode(p.devices[d].name);
    const Slot &s = p.slots[slotOf[d]];
    double bw = s.bandwidth;
    if (p.devices[d].bandwidth > 0)
      bw = std::min(bw, p.devices[d].bandwidth);
    net.addArc(v, s.attach, bw);
    net.addArc(s.attach, v, bw);
  }
  return net;
}

std::vector<Demand> flow::slotDemands(const SlotProblem &p) {
  unsigned base = p.fabric.numNodes();
  std::vector<Demand> out;
  for (const SlotTraffic &t : p.traffic)
    for (unsigned d = 0; d < p.devices.size(); ++d) {
      if (p.devices[d].kind != t.destinationKind)
        continue;
      if (t.sourceNode) {
        out.push_back({*t.sourceNode, base + d, t.bytesPerPair});
        continue;
      }
      for (unsigned s = 0; s < p.devices.size(); ++s)
        if (s != d && p.devices[s].kind == t.sourceKind)
          out.push_back({base + s, base + d, t.bytesPerPair});
    }
  return out;
}

llvm::Expected<SlotAssignment>
flow::evaluateSlots(const SlotProblem &p, const std::vector<unsigned> &slotOf,
                    const SlotOptions &options) {
  auto net = slotNetwork(p, slotOf);
  if (!net)
    return net.takeError();
  std::vector<Demand> demands = mergeDemands(slotDemands(p));
  llvm::Expected<FlowSchedule> s = [&]() -> llvm::Expected<FlowSchedule> {
    if (isSingleCommodity(demands))
      return solveSingleCommodity(*net, demands);
    if (demands.size() <= 64)
      return solveMultiCommodity(*net, demands);
    PathLPOptions o;
    o.relativeGap = options.relativeGap;
    return solveMultiCommodityPaths(*net, demands, o);
  }();
  if (!s)
    return s.takeError();
  return SlotAssignment{slotOf, s->makespan};
}

llvm::Expected<SlotRecommendation>
flow::recommendSlots(const SlotProblem &p, const SlotOptions &options) {
  if (llvm::Error err = validateSlotProblem(p))
    return std::move(err);
  SlotRecommendation rec;
  if (!p.current.empty()) {
    auto cur = evaluateSlots(p, p.current, options);
    if (!cur)
      return cur.takeError();
    rec.current = *cur;
    ++rec.evaluated;
  }
  std::optional<SlotAssignment> best;
  auto consider = [&](const std::vector<unsigned> &slotOf) -> llvm::Error {
    auto a = evaluateSlots(p, slotOf, options);
    if (!a)
      return a.takeError();
    ++rec.evaluated;
    if (!best || a->makespan < best->makespan * (1 - 1e-9))
      best = std::move(*a);
    return llvm::Error::success();
  };

  // Interchangeable devices (kind, bandwidth) and slots (node, bandwidth,
  // kinds), in order of first appearance.
  std::map<std::pair<std::string, double>, unsigned> devKey;
  std::vector<std::vector<unsigned>> devClasses;
  for (unsigned d = 0; d < p.devices.size(); ++d) {
    auto key = std::make_pair(p.devices[d].kind, p.devices[d].bandwidth);
    auto it = devKey.emplace(key, devClasses.size()).first;
    if (it->second == devClasses.size())
      devClasses.emplace_back();
    devClasses[it->second].push_back(d);
  }
  std::map<std::tuple<unsigned, double, std::vector<std::string>>, unsigned>
      slotKey;
  std::vector<std::vector<unsigned>> slotClasses;
  for (unsigned s = 0; s < p.slots.size(); ++s) {
    std::vector<std::string> acc = p.slots[s].accepts;
    std::sort(acc.begin(), acc.end());
    auto key = std::make_tuple(p.slots[s].attach, p.slots[s].bandwidth, acc);
    auto it = slotKey.emplace(key, slotClasses.size()).first;
    if (it->second == slotClasses.size())
      slotClasses.emplace_back();
    slotClasses[it->second].push_back(s);
  }
  unsigned numDC = devClasses.size(), numSC = slotClasses.size();
  auto compatible = [&](unsigned dc, unsigned sc) {
    return accepts(p.slots[slotClasses[sc].front()],
                   p.devices[devClasses[dc].front()].kind);
  };

  // Count vectors: counts[dc][sc] devices of class dc in slot class sc.
  std::vector<std::vector<unsigned>> counts(numDC,
                                            std::vector<unsigned>(numSC, 0));
  std::vector<unsigned> freeIn(numSC);
  for (unsigned sc = 0; sc < numSC; ++sc)
    freeIn[sc] = slotClasses[sc].size();
  uint64_t total = 0;
  const uint64_t limit = options.exhaustiveLimit;
  std::function<llvm::Error(unsigned, unsigned, unsigned, bool)> rec_ =
      [&](unsigned dc, unsigned sc, unsigned left,
          bool evaluate) -> llvm::Error {
    if (dc == numDC) {
      if (!evaluate) {
        ++total;
        return llvm::Error::success();
      }
      std::vector<unsigned> slotOf(p.devices.size());
      for (unsigned c = 0; c < numDC; ++c) {
        unsigned k = 0;
        for (unsigned s2 = 0; s2 < numSC; ++s2) {
          // Slots of class s2 already taken by earlier device classes.
          unsigned taken = 0;
          for (unsigned c2 = 0; c2 < c; ++c2)
            taken += counts[c2][s2];
          for (unsigned j = 0; j < counts[c][s2]; ++j)
            slotOf[devClasses[c][k++]] = slotClasses[s2][taken + j];
        }
      }
      return consider(slotOf);
    }
    if (sc == numSC) {
      if (left != 0)
        return llvm::Error::success();
      return rec_(dc + 1, 0,
                  dc + 1 < numDC ? devClasses[dc + 1].size() : 0, evaluate);
    }
    if (!evaluate && total > limit)
      return llvm::Error::success();
    unsigned most = compatible(dc, sc) ? std::min(left, freeIn[sc]) : 0;
    for (unsigned k = 0; k <= most; ++k) {
      counts[dc][sc] = k;
      freeIn[sc] -= k;
      llvm::Error err = rec_(dc, sc + 1, left - k, evaluate);
      freeIn[sc] += k;
      counts[dc][sc] = 0;
      if (err)
        return err;
    }
    return llvm::Error::success();
  };
  unsigned first = numDC ? devClasses[0].size() : 0;
  if (llvm::Error err = rec_(0, 0, first, false))
    return std::move(err);
  if (total <= limit) {
    rec.exhaustive = true;
    if (llvm::Error err = rec_(0, 0, first, true))
      return std::move(err);
  } else {
    // Local search: first-improvement moves (a device to a free slot) and
    // swaps (two devices of different classes), from the current or any
    // assignment.
    std::vector<unsigned> slotOf =
        p.current.empty() ? *anyAssignment(p) : p.current;
    if (llvm::Error err = consider(slotOf))
      return std::move(err);
    for (unsigned pass = 0; pass < 50; ++pass) {
      bool improved = false;
      std::vector<unsigned> owner(p.slots.size(), ~0u);
      for (unsigned d = 0; d < slotOf.size(); ++d)
        owner[slotOf[d]] = d;
      for (unsigned d = 0; d < slotOf.size() && !improved; ++d)
        for (unsigned s = 0; s < p.slots.size() && !improved; ++s) {
          if (s == slotOf[d] || !accepts(p.slots[s], p.devices[d].kind))
            continue;
          std::vector<unsigned> next = slotOf;
          unsigned e = owner[s];
          if (e != ~0u) {
            if (p.devices[e].kind == p.devices[d].kind &&
                p.devices[e].bandwidth == p.devices[d].bandwidth)
              continue;
            if (!accepts(p.slots[slotOf[d]], p.devices[e].kind))
              continue;
            next[e] = slotOf[d];
          }
          next[d] = s;
          double before = best->makespan;
          if (llvm::Error err = consider(next))
            return std::move(err);
          if (best->makespan < before) {
            slotOf = next;
            improved = true;
          }
        }
      if (!improved)
        break;
    }
  }
  rec.best = std::move(*best);
  return rec;
}
