//===- TopoGraph.cpp - A plain hardware topology graph --------------------===//
//
// Builders and small queries of TopoGraph.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/TopoGraph.h"

#include "llvm/ADT/StringSet.h"
#include <algorithm>
#include <cassert>
#include <cmath>

using namespace sluice;
using namespace sluice::analysis;

const QuantityProp *TopoDevice::findQuantity(llvm::StringRef n) const {
  for (const QuantityProp &q : quantities)
    if (q.name == n)
      return &q;
  return nullptr;
}

std::string TopoGraph::groupOf(llvm::StringRef path) {
  size_t dot = path.find('.');
  if (dot == llvm::StringRef::npos)
    return "";
  return path.take_front(dot).str();
}

unsigned TopoGraph::addDevice(llvm::StringRef name, llvm::StringRef kind) {
  TopoDevice d;
  d.name = name.str();
  d.kind = kind.str();
  d.group = groupOf(name);
  devices.push_back(std::move(d));
  return static_cast<unsigned>(devices.size() - 1);
}

void TopoGraph::addQuantity(unsigned dev, llvm::StringRef name, double value,
                            Dim dim, llvm::StringRef display) {
  assert(dev < devices.size() && "device index out of range");
  QuantityProp q;
  q.name = name.str();
  q.value = value;
  q.dim = dim;
  q.display = display.empty() ? formatQuantity(value, dim) : display.str();
  devices[dev].quantities.push_back(std::move(q));
}

void TopoGraph::addInt(unsigned dev, llvm::StringRef name, int64_t value) {
  assert(dev < devices.size() && "device index out of range");
  devices[dev].ints.push_back({name.str(), value});
}

void TopoGraph::addString(unsigned dev, llvm::StringRef name,
                          llvm::StringRef value) {
  assert(dev < devices.size() && "device index out of range");
  devices[dev].strings.push_back({name.str(), value.str()});
}

void TopoGraph::addBool(unsigned dev, llvm::StringRef name, bool value) {
  assert(dev < devices.size() && "device index out of range");
  devices[dev].bools.push_back({name.str(), value});
}

std::optional<double> TopoDevice::throughRate() const {
  if (kind != "nic" && kind != "smartnic")
    return std::nullopt;
  const QuantityProp *rate = findQuantity("bandwidth");
  if (!rate || rate->dim != Dim::bandwidth() || !(rate->value > 0) ||
      !std::isfinite(rate->value))
    return std::nullopt;
  return rate->value;
}

unsigned TopoGraph::addArc(const TopoArc &arc) {
  assert(arc.from < devices.size() && arc.to < devices.size() &&
         "arc endpoint out of range");
  assert(arc.bandwidth >= 0 && std::isfinite(arc.bandwidth) &&
         "arc bandwidth must be finite and non-negative");
  assert(arc.latency >= 0 && std::isfinite(arc.latency) &&
         "arc latency must be finite and non-negative");
  arcs.push_back(arc);
  return static_cast<unsigned>(arcs.size() - 1);
}

unsigned TopoGraph::addLink(unsigned from, unsigned to, double bandwidth,
                            double latency, bool bidirectional, unsigned link,
                            llvm::StringRef type) {
  TopoArc arc;
  arc.from = from;
  arc.to = to;
  arc.bandwidth = bandwidth;
  arc.latency = latency;
  arc.link = link;
  arc.type = type.str();
  unsigned first = addArc(arc);
  if (bidirectional) {
    std::swap(arc.from, arc.to);
    addArc(arc);
  }
  return first;
}

unsigned TopoGraph::addMeasured(unsigned from, unsigned to, double bandwidth,
                                double latency) {
  TopoArc arc;
  arc.from = from;
  arc.to = to;
  arc.bandwidth = bandwidth;
  arc.latency = latency;
  arc.measured = true;
  return addArc(arc);
}

std::optional<unsigned> TopoGraph::findDevice(llvm::StringRef name) const {
  for (unsigned i = 0, e = devices.size(); i != e; ++i)
    if (devices[i].name == name)
      return i;
  return std::nullopt;
}

std::vector<std::string> TopoGraph::groups() const {
  // The set only answers membership; the order comes from `out`.
  std::vector<std::string> out;
  llvm::StringSet<> seen;
  for (const TopoDevice &d : devices)
    if (!d.group.empty() && seen.insert(d.group).second)
      out.push_back(d.group);
  return out;
}

std::vector<std::string> TopoGraph::kinds() const {
  std::vector<std::string> out;
  llvm::StringSet<> seen;
  for (const TopoDevice &d : devices)
    if (seen.insert(d.kind).second)
      out.push_back(d.kind);
  return out;
}

unsigned TopoGraph::numLinks() const {
  std::vector<unsigned> ids;
  unsigned unlinked = 0;
  for (const TopoArc &a : arcs) {
    if (a.measured)
      continue;
    if (a.link == TopoArc::kNoLink)
      ++unlinked;
    else
      ids.push_back(a.link);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return static_cast<unsigned>(ids.size()) + unlinked;
}

unsigned TopoGraph::numModeledArcs() const {
  return static_cast<unsigned>(std::count_if(
      arcs.begin(), arcs.end(), [](const TopoArc &a) { return !a.measured; }));
}

unsigned TopoGraph::numMeasuredArcs() const {
  return static_cast<unsigned>(arcs.size()) - numModeledArcs();
}
