//===- GnnPartition.cpp - Seed-balanced edge-cut graph partitioning -------===//
//
// See GnnPartition.h; docs/gnn.md, "Several servers".
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Gnn/GnnPartition.h"

#include <algorithm>
#include <cassert>
#include <deque>
#include <limits>

using namespace sluice;
using namespace sluice::gnn;

namespace {

double maxOverMean(double largest, double total, unsigned parts) {
  return total > 0 ? largest * parts / total : 1.0;
}

constexpr uint32_t kUnassigned = std::numeric_limits<uint32_t>::max();

} // namespace

double GraphPartition::seedBalance() const {
  double total = 0, largest = 0;
  for (double s : seeds) {
    total += s;
    largest = std::max(largest, s);
  }
  return maxOverMean(largest, total, parts);
}

double GraphPartition::vertexBalance() const {
  double total = 0, largest = 0;
  for (uint64_t v : vertices) {
    total += static_cast<double>(v);
    largest = std::max(largest, static_cast<double>(v));
  }
  return maxOverMean(largest, total, parts);
}

uint64_t sluice::gnn::countCutArcs(llvm::ArrayRef<uint64_t> offsets,
                                   llvm::ArrayRef<uint32_t> targets,
                                   llvm::ArrayRef<uint32_t> partOf) {
  uint64_t cut = 0;
  const size_t n = offsets.empty() ? 0 : offsets.size() - 1;
  for (size_t u = 0; u < n; ++u)
    for (uint64_t e = offsets[u]; e < offsets[u + 1]; ++e)
      cut += partOf[u] != partOf[targets[e]];
  return cut;
}

GraphPartition sluice::gnn::partitionGraph(llvm::ArrayRef<uint64_t> offsets,
                                           llvm::ArrayRef<uint32_t> targets,
                                           llvm::ArrayRef<double> seedWeight,
                                           unsigned parts,
                                           const PartitionOptions &options) {
  const size_t n = offsets.empty() ? 0 : offsets.size() - 1;
  GraphPartition out;
  parts = std::max(1u, std::min<unsigned>(parts, std::max<size_t>(n, 1)));
  out.parts = parts;
  out.partOf.assign(n, kUnassigned);
  out.seeds.assign(parts, 0.0);
  out.vertices.assign(parts, 0);
  // The balance weight: the seeds, or every vertex 1 when there are none.
  std::vector<double> w(n, 0.0);
  double total = 0, heaviest = 0;
  for (size_t v = 0; v < n && v < seedWeight.size(); ++v)
    w[v] = std::max(0.0, seedWeight[v]);
  for (double x : w)
    total += x;
  if (total <= 0)
    std::fill(w.begin(), w.end(), 1.0);
  total = 0;
  for (double x : w) {
    total += x;
    heaviest = std::max(heaviest, x);
  }

  // 1. Growth: part p takes BFS regions of unassigned vertices until it
  // holds (remaining weight) / (remaining parts).
  std::vector<uint32_t> queuedFor(n, kUnassigned);
  std::deque<uint32_t> queue;
  size_t nextStart = 0;
  double remaining = total;
  for (unsigned p = 0; p < parts; ++p) {
    const bool last = p + 1 == parts;
    const double target = remaining / (parts - p);
    // Leave at least one vertex for every later part.
    const size_t keep = parts - p - 1;
    size_t unassigned = 0;
    for (size_t v = nextStart; v < n; ++v)
      unassigned += out.partOf[v] == kUnassigned;
    auto full = [&] {
      if (last)
        return false;
      if (unassigned <= keep)
        return true;
      return out.vertices[p] > 0 &&
             out.seeds[p] >= target * (1 - 1e-12) - 1e-300;
    };
    queue.clear();
    while (!full()) {
      if (queue.empty()) {
        while (nextStart < n && out.partOf[nextStart] != kUnassigned)
          ++nextStart;
        if (nextStart == n)
          break;
        queue.push_back(static_cast<uint32_t>(nextStart));
        queuedFor[nextStart] = p;
      }
      const uint32_t u = queue.front();
      queue.pop_front();
      out.partOf[u] = p;
      out.seeds[p] += w[u];
      ++out.vertices[p];
      --unassigned;
      for (uint64_t e = offsets[u]; e < offsets[u + 1]; ++e) {
        const uint32_t t = targets[e];
        if (out.partOf[t] == kUnassigned && queuedFor[t] != p) {
          queuedFor[t] = p;
          queue.push_back(t);
        }
      }
    }
    remaining -= out.seeds[p];
  }
  out.grownCut = countCutArcs(offsets, targets, out.partOf);

  // 2. Refinement. In-arcs too, so that a move's gain is the exact change
  // of the cut for directed graphs as well.
  std::vector<uint64_t> inOffsets(n + 1, 0);
  for (uint32_t t : targets)
    ++inOffsets[t + 1];
  for (size_t v = 0; v < n; ++v)
    inOffsets[v + 1] += inOffsets[v];
  std::vector<uint32_t> sources(targets.size());
  {
    std::vector<uint64_t> fill(inOffsets.begin(), inOffsets.end() - 1);
    for (size_t u = 0; u < n; ++u)
      for (uint64_t e = offsets[u]; e < offsets[u + 1]; ++e)
        sources[fill[targets[e]]++] = static_cast<uint32_t>(u);
  }
  const double seedCap = total / parts * (1 + options.seedImbalance) + heaviest;
  const double seedFloor =
      total / parts * (1 - options.seedImbalance) - heaviest;
  const double vertexCap =
      static_cast<double>(n) / parts * (1 + options.vertexImbalance) + 1;
  std::vector<int64_t> links(parts, 0);
  for (unsigned pass = 0; pass < options.maxPasses; ++pass) {
    ++out.passes;
    unsigned moved = 0;
    for (size_t u = 0; u < n; ++u) {
      const uint32_t a = out.partOf[u];
      if (out.vertices[a] <= 1)
        continue;
      std::fill(links.begin(), links.end(), 0);
      for (uint64_t e = offsets[u]; e < offsets[u + 1]; ++e)
        if (targets[e] != u)
          ++links[out.partOf[targets[e]]];
      for (uint64_t e = inOffsets[u]; e < inOffsets[u + 1]; ++e)
        if (sources[e] != u)
          ++links[out.partOf[sources[e]]];
      uint32_t best = a;
      for (unsigned b = 0; b < parts; ++b) {
        if (b == a || links[b] <= links[a])
          continue;
        if (best != a && links[b] <= links[best])
          continue;
        if (out.seeds[b] + w[u] > seedCap ||
            static_cast<double>(out.vertices[b] + 1) > vertexCap)
          continue;
        best = b;
      }
      if (best == a || out.seeds[a] - w[u] < seedFloor)
        continue;
      out.partOf[u] = best;
      out.seeds[a] -= w[u];
      out.seeds[best] += w[u];
      --out.vertices[a];
      ++out.vertices[best];
      ++moved;
    }
    out.moves += moved;
    if (!moved)
      break;
  }
  out.cutArcs = countCutArcs(offsets, targets, out.partOf);
  // Report the seeds themselves, not the fallback weight.
  if (seedWeight.empty() || std::all_of(seedWeight.begin(), seedWeight.end(),
                                        [](double s) { return s <= 0; }))
    std::fill(out.seeds.begin(), out.seeds.end(), 0.0);
  else {
    std::fill(out.seeds.begin(), out.seeds.end(), 0.0);
    for (size_t v = 0; v < n && v < seedWeight.size(); ++v)
      out.seeds[out.partOf[v]] += std::max(0.0, seedWeight[v]);
  }
  return out;
}
