//===- GraphBuilder.cpp - From edge lists to sorted CSR -------------------===//
//
// Memory: the collector holds 8-16 bytes per input edge; buildCsr() counts
// degrees into the offsets array, scatters the (forward and reverse) arcs
// into the target/weight/label arrays, frees the input arrays, then sorts
// each adjacency and merges its duplicates in place. Peak is the input
// arrays plus the CSR arrays; nothing is kept beyond the CSR and the
// aggregates.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/GraphBuilder.h"

#include "runtime/src/Progress.h"

#include <algorithm>
#include <limits>
#include <numeric>

using namespace sluice::rt;

namespace {

/// splitmix64's finaliser: spreads sequential ids over the hash table.
inline uint64_t mixBits(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

template <typename T> void release(std::vector<T> &v) {
  std::vector<T>().swap(v);
}

template <typename T> void shrinkTo(std::vector<T> &v, size_t size) {
  if (v.empty())
    return;
  v.resize(size);
  v.shrink_to_fit();
}

/// A sum of float weights as a float: FLT_MAX when it is beyond (weights
/// stay finite).
inline float saturatedFloat(double x) {
  constexpr double kMax = std::numeric_limits<float>::max();
  return static_cast<float>(x > kMax ? kMax : x);
}

constexpr uint32_t kEmptySlot = std::numeric_limits<uint32_t>::max();
constexpr uint64_t kProgressEdges = 1u << 20;
constexpr uint64_t kProgressVertices = 1u << 14;

} // namespace

EdgeCollector::EdgeCollector(bool compactIds, bool dropSelfLoops, bool weights,
                             bool edgeLabels)
    : compactIds(compactIds), dropSelfLoops(dropSelfLoops) {
  staging.hasWeights = weights;
  staging.hasEdgeLabels = edgeLabels;
  if (compactIds) {
    slots.assign(1024, Slot{0, kEmptySlot});
    mask = 1023;
  }
}

std::vector<uint64_t> EdgeCollector::rankBitmap() {
  // Per word, the set bits in the words before it: an id's rank is that
  // plus the set bits below it in its word.
  std::vector<uint32_t> before(present.size());
  std::vector<uint64_t> ids;
  for (size_t w = 0; w < present.size(); ++w) {
    before[w] = static_cast<uint32_t>(ids.size());
    for (uint64_t bits = present[w]; bits; bits &= bits - 1)
      ids.push_back(w * 64 + uint64_t(__builtin_ctzll(bits)));
  }
  auto rankOf = [&](uint32_t x) {
    uint64_t below = present[x / 64] & ((uint64_t(1) << (x % 64)) - 1);
    return before[x / 64] + static_cast<uint32_t>(__builtin_popcountll(below));
  };
  for (uint32_t &u : staging.sources)
    u = rankOf(u);
  for (uint32_t &v : staging.targets)
    v = rankOf(v);
  if (haveLastSource)
    lastSourceId = rankOf(lastSourceId);
  release(present);
  return ids;
}

void EdgeCollector::leaveDense() {
  dense = false;
  // The ids seen, in increasing order, become provisional ids 0, 1, ...
  for (uint64_t id : rankBitmap()) {
    uint32_t ignored;
    internHashed(id, ignored);
  }
}

bool EdgeCollector::internHashed(uint64_t id, uint32_t &out) {
  uint64_t i = mixBits(id) & mask;
  while (slots[i].value != kEmptySlot) {
    if (slots[i].key == id) {
      out = slots[i].value;
      return true;
    }
    i = (i + 1) & mask;
  }
  if (firstSeen.size() >= kMaxVertices)
    return false;
  out = static_cast<uint32_t>(firstSeen.size());
  firstSeen.push_back(id);
  slots[i] = Slot{id, out};
  if (firstSeen.size() * 2 > slots.size())
    grow();
  return true;
}

void EdgeCollector::grow() {
  size_t size = slots.size() * 2;
  slots.assign(size, Slot{0, kEmptySlot});
  mask = size - 1;
  for (size_t p = 0; p < firstSeen.size(); ++p) {
    uint64_t i = mixBits(firstSeen[p]) & mask;
    while (slots[i].value != kEmptySlot)
      i = (i + 1) & mask;
    slots[i] = Slot{firstSeen[p], static_cast<uint32_t>(p)};
  }
}

void EdgeCollector::rankHashed() {
  release(slots);
  // Final id = rank of the original id among all distinct ids.
  size_t n = firstSeen.size();
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return firstSeen[a] < firstSeen[b];
  });
  staging.originalIds.resize(n);
  std::vector<uint32_t> rank(n);
  for (size_t k = 0; k < n; ++k) {
    staging.originalIds[k] = firstSeen[order[k]];
    rank[order[k]] = static_cast<uint32_t>(k);
  }
  release(order);
  release(firstSeen);
  for (uint32_t &u : staging.sources)
    u = rank[u];
  for (uint32_t &v : staging.targets)
    v = rank[v];
  staging.numVertices = n;
}

EdgeStaging EdgeCollector::finish(uint64_t declaredVertices, uint32_t idBase) {
  staging.idBase = idBase;
  if (!compactIds) {
    staging.numVertices = std::max(idLimit, declaredVertices);
    return std::move(staging);
  }
  staging.compacted = true;
  if (dense) {
    // Final id = rank of the id among the ids seen.
    staging.originalIds = rankBitmap();
    release(slots);
    staging.numVertices = staging.originalIds.size();
  } else {
    rankHashed();
  }
  // Dense ids (every id base .. base + n - 1 occurs) need no mapping.
  const uint64_t n = staging.numVertices;
  bool identity = true;
  for (size_t k = 0; k < n && identity; ++k)
    identity = staging.originalIds[k] == k + idBase;
  if (identity) {
    release(staging.originalIds);
    staging.compacted = false;
  }
  return std::move(staging);
}

void sluice::rt::buildCsr(EdgeStaging &edges, const BuildOptions &options,
                          Progress *progress, sluice_graph_t &graph) {
  const uint64_t n = edges.numVertices;
  const size_t m = edges.sources.size();
  const bool undirected = options.undirected;
  const bool hasWeights = edges.hasWeights;
  const bool hasLabels = edges.hasEdgeLabels;
  GraphStorage &s = graph.storage;

  // Degrees into offsets[v + 1], then exclusive prefix sums: offsets[v] is
  // where v's arcs start.
  s.offsets.assign(n + 1, 0);
  uint64_t *off = s.offsets.data();
  for (size_t i = 0; i < m; ++i) {
    ++off[edges.sources[i] + 1];
    if (undirected && edges.sources[i] != edges.targets[i])
      ++off[edges.targets[i] + 1];
  }
  for (uint64_t v = 0; v < n; ++v)
    off[v + 1] += off[v];
  const uint64_t arcs = off[n];

  // Scatter in input order, using offsets[v] as v's cursor; afterwards
  // offsets[v] holds v's end, and shifting by one restores the starts.
  s.targets.resize(arcs);
  if (hasWeights)
    s.weights.resize(arcs);
  if (hasLabels)
    s.edgeLabels.resize(arcs);
  uint32_t *tgt = s.targets.data();
  for (size_t i = 0; i < m; ++i) {
    uint32_t u = edges.sources[i], v = edges.targets[i];
    uint64_t p = off[u]++;
    tgt[p] = v;
    if (hasWeights)
      s.weights[p] = edges.weights[i];
    if (hasLabels)
      s.edgeLabels[p] = edges.edgeLabels[i];
    if (undirected && u != v) {
      uint64_t q = off[v]++;
      tgt[q] = u;
      if (hasWeights)
        s.weights[q] = edges.weights[i];
      if (hasLabels)
        s.edgeLabels[q] = edges.edgeLabels[i];
    }
    if (progress && i % kProgressEdges == 0)
      progress->update("building CSR", i, m, "edges");
  }
  for (uint64_t v = n; v > 0; --v)
    off[v] = off[v - 1];
  off[0] = 0;
  release(edges.sources);
  release(edges.targets);
  release(edges.weights);
  release(edges.edgeLabels);

  // Sort each adjacency by target, stably (so the first copy of a duplicate
  // stays first), then merge the copies of each target in place if asked:
  // the run's first copy survives, with the sum of the run's weights for
  // Duplicates::Sum (accumulated in double in input order).
  const bool payload = hasWeights || hasLabels;
  const bool merge = options.duplicates != Duplicates::Keep;
  const bool sum = options.duplicates == Duplicates::Sum && hasWeights;
  std::vector<uint64_t> perm;
  std::vector<uint32_t> tmpTargets;
  std::vector<float> tmpWeights;
  std::vector<int32_t> tmpLabels;
  uint64_t duplicateArcs = 0, duplicateLoopArcs = 0, loopArcs = 0;
  uint64_t write = 0, rowBegin = 0;
  for (uint64_t v = 0; v < n; ++v) {
    const uint64_t b = rowBegin, e = off[v + 1];
    rowBegin = e;
    const uint64_t d = e - b;
    if (d > 1 && !std::is_sorted(tgt + b, tgt + e)) {
      if (!payload) {
        std::sort(tgt + b, tgt + e);
      } else {
        perm.resize(d);
        std::iota(perm.begin(), perm.end(), uint64_t(0));
        std::stable_sort(perm.begin(), perm.end(), [&](uint64_t x, uint64_t y) {
          return tgt[b + x] < tgt[b + y];
        });
        tmpTargets.resize(d);
        for (uint64_t k = 0; k < d; ++k)
          tmpTargets[k] = tgt[b + perm[k]];
        std::copy(tmpTargets.begin(), tmpTargets.end(), tgt + b);
        if (hasWeights) {
          tmpWeights.resize(d);
          for (uint64_t k = 0; k < d; ++k)
            tmpWeights[k] = s.weights[b + perm[k]];
          std::copy(tmpWeights.begin(), tmpWeights.end(),
                    s.weights.begin() + b);
        }
        if (hasLabels) {
          tmpLabels.resize(d);
          for (uint64_t k = 0; k < d; ++k)
            tmpLabels[k] = s.edgeLabels[b + perm[k]];
          std::copy(tmpLabels.begin(), tmpLabels.end(),
                    s.edgeLabels.begin() + b);
        }
      }
    }
    uint32_t previous = 0;
    double runSum = 0; // Duplicates::Sum: the weights of the current run
    for (uint64_t i = b; i < e; ++i) {
      const uint32_t t = tgt[i];
      if (i > b && t == previous) {
        ++duplicateArcs;
        duplicateLoopArcs += t == v;
        if (merge) {
          if (sum)
            runSum += s.weights[i];
          continue;
        }
      }
      if (sum && i > b)
        s.weights[write - 1] = saturatedFloat(runSum);
      previous = t;
      loopArcs += t == v;
      if (merge) {
        tgt[write] = t; // write <= i: compaction in place
        if (hasWeights)
          s.weights[write] = s.weights[i];
        if (hasLabels)
          s.edgeLabels[write] = s.edgeLabels[i];
        ++write;
        runSum = sum ? s.weights[i] : 0;
      }
    }
    if (sum && e > b)
      s.weights[write - 1] = saturatedFloat(runSum);
    if (merge)
      off[v + 1] = write;
    if (progress && v % kProgressVertices == 0)
      progress->update("sorting adjacency", v, n, "vertices");
  }
  if (merge && write != arcs) {
    shrinkTo(s.targets, write);
    shrinkTo(s.weights, write);
    shrinkTo(s.edgeLabels, write);
  }

  graph.numVertices = n;
  graph.numEdges = off[n];
  graph.idBase = edges.idBase;
  s.originalIds = std::move(edges.originalIds);
  graph.properties = 0;
  if (!undirected)
    graph.properties |= SLUICE_GRAPH_DIRECTED;
  if (hasWeights)
    graph.properties |= SLUICE_GRAPH_WEIGHTED;
  if (hasLabels)
    graph.properties |= SLUICE_GRAPH_EDGE_LABELS;
  if (edges.compacted)
    graph.properties |= SLUICE_GRAPH_COMPACTED;
  if (duplicateArcs == 0 || merge)
    graph.properties |= SLUICE_GRAPH_NO_DUPLICATES;
  if (loopArcs == 0)
    graph.properties |= SLUICE_GRAPH_NO_SELF_LOOPS;
  graph.bindStorage();
  sluice_graph_load_stats_t &stats = graph.loadStats;
  stats.input_edges = edges.inputEdges;
  stats.self_loops = edges.selfLoops;
  stats.duplicate_edges =
      duplicateEdges(duplicateArcs, duplicateLoopArcs, undirected);
  stats.merged_arcs = merge ? duplicateArcs : 0;
  stats.isolated_vertices = countIsolatedVertices(graph);
  computeAggregates(graph, progress);
}

uint64_t sluice::rt::duplicateEdges(uint64_t duplicateArcs,
                                    uint64_t duplicateLoopArcs,
                                    bool undirected) {
  // An undirected duplicate u v (u != v) repeats an arc in u's adjacency
  // and one in v's; a self loop is stored once.
  return undirected
             ? duplicateLoopArcs + (duplicateArcs - duplicateLoopArcs) / 2
             : duplicateArcs;
}

uint64_t sluice::rt::countIsolatedVertices(const sluice_graph_t &graph) {
  const uint64_t n = graph.numVertices;
  std::vector<uint8_t> touched(n, 0);
  for (uint64_t v = 0; v < n; ++v) {
    const uint64_t b = graph.offsets[v], e = graph.offsets[v + 1];
    if (b != e)
      touched[v] = 1;
    for (uint64_t i = b; i < e; ++i)
      touched[graph.targets[i]] = 1;
  }
  return static_cast<uint64_t>(std::count(touched.begin(), touched.end(), 0));
}

void sluice::rt::computeAggregates(sluice_graph_t &graph, Progress *progress) {
  if (!graph.weights)
    return;
  const uint64_t n = graph.numVertices;
  GraphStorage &s = graph.storage;
  s.weightSums.resize(n);
  s.weightMaxes.resize(n);
  s.weightMins.resize(n);
  const uint64_t *off = graph.offsets;
  const float *w = graph.weights;
  for (uint64_t v = 0; v < n; ++v) {
    double sum = 0;
    float mx = 0, mn = 0;
    if (off[v] != off[v + 1]) {
      mx = -std::numeric_limits<float>::infinity();
      mn = std::numeric_limits<float>::infinity();
      for (uint64_t i = off[v]; i < off[v + 1]; ++i) {
        sum += w[i];
        mx = std::max(mx, w[i]);
        mn = std::min(mn, w[i]);
      }
    }
    s.weightSums[v] = static_cast<float>(sum);
    s.weightMaxes[v] = mx;
    s.weightMins[v] = mn;
    if (progress && v % kProgressVertices == 0)
      progress->update("computing aggregates", v, n, "vertices");
  }
  graph.weightSums = s.weightSums.data();
  graph.weightMaxes = s.weightMaxes.data();
  graph.weightMins = s.weightMins.data();
}
