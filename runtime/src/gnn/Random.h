//===- Random.h - Counter-based random numbers of GNN training --*- C++ -*-===//
//
// A stream of 32-bit words from Philox4x32-10 (sluice_philox4x32_10) keyed
// by the job's seed, the counter's first three words naming what the stream
// is for (e.g. epoch, batch, vertex) and the fourth counting blocks: every
// decision of a training run is a function of (seed, purpose), never of the
// thread that makes it.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_GNN_RANDOM_H
#define SLUICE_RUNTIME_SRC_GNN_RANDOM_H

#include "sluice/sampling.h"

#include <cstdint>

namespace sluice::rt::gnn {

/// Purposes: the first counter word of a stream.
enum class Stream : uint32_t {
  Init = 1,    ///< initial weights: (layer, matrix)
  Split = 2,   ///< train/validation/test split
  Order = 3,   ///< the order of seeds in an epoch: (epoch)
  Sample = 4,  ///< neighbours: (batch key, vertex)
  Eval = 5,    ///< neighbours during evaluation
  Dropout = 6  ///< dropout masks: (layer, batch key)
};

class Random {
public:
  /// `detail` tells streams of one purpose apart (e.g. the hop).
  Random(uint64_t seed, Stream purpose, uint32_t detail, uint32_t a,
         uint32_t b)
      : key{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)},
        counter{static_cast<uint32_t>(purpose) | (detail << 8), a, b, 0} {}

  uint32_t next() {
    if (used == 4) {
      sluice_philox4x32_10(counter, key, block);
      ++counter[3];
      used = 0;
    }
    return block[used++];
  }
  /// Uniform in [0, bound), bound >= 1 (Lemire's nearly divisionless
  /// method).
  uint32_t below(uint32_t bound) {
    uint64_t m = uint64_t(next()) * bound;
    uint32_t low = static_cast<uint32_t>(m);
    if (low < bound) {
      uint32_t threshold = static_cast<uint32_t>(-bound) % bound;
      while (low < threshold) {
        m = uint64_t(next()) * bound;
        low = static_cast<uint32_t>(m);
      }
    }
    return static_cast<uint32_t>(m >> 32);
  }
  /// Uniform in [0, 1) with 24 bits.
  float unit() { return static_cast<float>(next() >> 8) * 0x1p-24f; }

private:
  uint32_t key[2];
  uint32_t counter[4];
  uint32_t block[4] = {0, 0, 0, 0};
  unsigned used = 4;
};

} // namespace sluice::rt::gnn

#endif // SLUICE_RUNTIME_SRC_GNN_RANDOM_H
