//===- Sampler.cpp - k-hop neighbour sampling into layer blocks -----------===//

#include "runtime/src/gnn/Sampler.h"

#include "runtime/src/gnn/Random.h"

#include <algorithm>
#include <cmath>

namespace sluice::rt::gnn {

uint64_t MiniBatch::sampledEdges() const {
  uint64_t edges = 0;
  for (const Block &b : blocks)
    edges += b.nbr.size();
  return edges;
}

NeighbourSampler::NeighbourSampler(const uint64_t *offsets,
                                   const uint32_t *targets,
                                   uint32_t numVertices,
                                   sluice_gnn_kind_t kind,
                                   std::vector<uint32_t> fanouts,
                                   uint64_t seed)
    : offsets(offsets), targets(targets), numVertices(numVertices), kind(kind),
      fanouts(std::move(fanouts)), seed(seed), local(numVertices),
      stamp(numVertices, 0) {}

void NeighbourSampler::sample(const uint32_t *seeds, size_t count,
                              uint32_t purpose, uint64_t key, MiniBatch &out) {
  const size_t layers = fanouts.size();
  out.seeds.assign(seeds, seeds + count);
  out.blocks.resize(layers);
  frontier.assign(seeds, seeds + count);
  for (size_t hop = 1; hop <= layers; ++hop) {
    Block &b = out.blocks[layers - hop];
    const uint32_t fanout = fanouts[hop - 1];
    if (++current == 0) { // stamps wrapped: clear them
      std::fill(stamp.begin(), stamp.end(), 0);
      current = 1;
    }
    b.numDst = static_cast<uint32_t>(frontier.size());
    b.src = frontier;
    for (uint32_t i = 0; i < b.numDst; ++i) {
      stamp[frontier[i]] = current;
      local[frontier[i]] = i;
    }
    b.offsets.assign(1, 0);
    b.nbr.clear();
    b.coef.clear();
    b.selfCoef.clear();
    for (uint32_t i = 0; i < b.numDst; ++i) {
      const uint32_t v = frontier[i];
      const uint64_t first = offsets[v];
      const uint64_t deg = offsets[v + 1] - first;
      // Floyd's algorithm: k distinct positions of [0, deg), uniformly.
      chosen.clear();
      if (deg <= fanout) {
        for (uint64_t j = 0; j < deg; ++j)
          chosen.push_back(static_cast<uint32_t>(j));
      } else {
        // detail: the hop and the key's high half.
        Random rng(seed, static_cast<Stream>(purpose),
                   static_cast<uint32_t>(hop | ((key >> 32) << 4)),
                   static_cast<uint32_t>(key), v);
        const uint32_t d = static_cast<uint32_t>(deg);
        for (uint32_t j = d - fanout; j < d; ++j) {
          uint32_t t = rng.below(j + 1);
          if (std::find(chosen.begin(), chosen.end(), t) != chosen.end())
            t = j;
          chosen.push_back(t);
        }
        std::sort(chosen.begin(), chosen.end());
      }
      const double k = static_cast<double>(chosen.size());
      for (uint32_t pos : chosen) {
        const uint32_t u = targets[first + pos];
        if (stamp[u] != current) {
          stamp[u] = current;
          local[u] = static_cast<uint32_t>(b.src.size());
          b.src.push_back(u);
        }
        b.nbr.push_back(local[u]);
        if (kind == SLUICE_GNN_GCN) {
          // The sampled sum, scaled by deg / k, estimates the full one.
          const double du = static_cast<double>(degree(u));
          b.coef.push_back(static_cast<float>(
              (static_cast<double>(deg) / k) /
              std::sqrt((static_cast<double>(deg) + 1.0) * (du + 1.0))));
        } else {
          b.coef.push_back(static_cast<float>(1.0 / k));
        }
      }
      b.offsets.push_back(static_cast<uint32_t>(b.nbr.size()));
      b.selfCoef.push_back(
          kind == SLUICE_GNN_GCN
              ? static_cast<float>(1.0 / (static_cast<double>(deg) + 1.0))
              : 1.0f);
    }
    frontier = b.src;
  }
}

} // namespace sluice::rt::gnn
