//===- Sampler.h - k-hop neighbour sampling into layer blocks ---*- C++ -*-===//
//
// A mini-batch of seeds becomes one Block per layer (DGL's "message flow
// graphs"): the block of a layer maps the vertices it reads (`src`) to the
// vertices it computes (`dst`, the first numDst entries of src), through the
// sampled edges dst -> src with the coefficient the layer's aggregation
// gives each edge. blocks[0] reads the input features; blocks.back()
// computes the seeds. Sampling walks outwards from the seeds: hop h
// (1-based) samples fanouts[h - 1] distinct out-neighbours of each vertex
// reached at hop h - 1 and fills block L - h.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_GNN_SAMPLER_H
#define SLUICE_RUNTIME_SRC_GNN_SAMPLER_H

#include "sluice/gnn.h"

#include <cstdint>
#include <vector>

namespace sluice::rt::gnn {

struct Block {
  uint32_t numDst = 0;
  std::vector<uint32_t> src;      ///< global ids; dst first, in order
  std::vector<uint32_t> offsets;  ///< numDst + 1, into nbr and coef
  std::vector<uint32_t> nbr;      ///< local src index of each edge
  std::vector<float> coef;        ///< weight of each edge in the aggregate
  std::vector<float> selfCoef;    ///< GCN: weight of dst's own row
  uint32_t numSrc() const { return static_cast<uint32_t>(src.size()); }
};

struct MiniBatch {
  std::vector<uint32_t> seeds;
  std::vector<Block> blocks; ///< input layer first
  uint64_t sampledEdges() const;
};

class NeighbourSampler {
public:
  /// `offsets` (n + 1) and `targets`: the CSR of the graph; fanouts[h - 1]
  /// for hop h. A fanout of UINT32_MAX keeps every neighbour.
  NeighbourSampler(const uint64_t *offsets, const uint32_t *targets,
                   uint32_t numVertices, sluice_gnn_kind_t kind,
                   std::vector<uint32_t> fanouts, uint64_t seed);

  /// Samples the blocks of `seeds` (distinct vertices) into `out`, with the
  /// random stream (purpose, key): the same arguments give the same blocks.
  void sample(const uint32_t *seeds, size_t count, uint32_t purpose,
              uint64_t key, MiniBatch &out);

  uint64_t degree(uint32_t v) const { return offsets[v + 1] - offsets[v]; }

private:
  const uint64_t *offsets;
  const uint32_t *targets;
  uint32_t numVertices;
  sluice_gnn_kind_t kind;
  std::vector<uint32_t> fanouts;
  uint64_t seed;
  // Global -> local index of the block being built, valid where
  // stamp[v] == current.
  std::vector<uint32_t> local, stamp;
  uint32_t current = 0;
  std::vector<uint32_t> chosen;
  std::vector<uint32_t> frontier; ///< the vertices reached at hop h - 1
};

} // namespace sluice::rt::gnn

#endif // SLUICE_RUNTIME_SRC_GNN_SAMPLER_H
