//===- GnnGpuCases.h - Blocks and the CPU's aggregation ---------*- C++ -*-===//
//
// What both GNN GPU suites compare: random sampled-block shapes (empty
// neighbour lists, repeated neighbours, self loops, dst rows that are
// other dsts' neighbours), features with signed zeros, and the CPU
// trainer's own aggregation (runtime/src/gnn/Aggregate.cpp, one thread)
// as the reference. Each GPU result must equal it bit for bit.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TEST_UNIT_GNNGPU_GNNGPUCASES_H
#define SLUICE_TEST_UNIT_GNNGPU_GNNGPUCASES_H

#include "sluice/gnn_gpu.h"

#include "runtime/src/gnn/Aggregate.h"
#include "runtime/src/gnn/Random.h"
#include "runtime/src/gnn/Sampler.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace sluice::test::gnngpu {

/// A block of `dst` dst rows over `src` src rows, each dst with 0 to
/// maxDegree neighbours drawn from all src rows (repeats and self loops
/// allowed), coefficients in [-1, 1) (SAGE's mean: 1 / degree when
/// `mean`), self coefficients in [0, 1).
inline rt::gnn::Block randomBlock(uint32_t dst, uint32_t src,
                                  uint32_t maxDegree, bool mean,
                                  uint64_t seed) {
  rt::gnn::Block b;
  b.numDst = dst;
  rt::gnn::Random rng(seed, rt::gnn::Stream::Split, 7, 0, 0);
  for (uint32_t v = 0; v < src; ++v)
    b.src.push_back(v);
  b.offsets.push_back(0);
  for (uint32_t d = 0; d < dst; ++d) {
    const uint32_t degree = rng.below(maxDegree + 1);
    for (uint32_t k = 0; k < degree; ++k) {
      b.nbr.push_back(rng.below(src));
      b.coef.push_back(mean ? 1.0f / float(degree) : 2.0f * rng.unit() - 1.0f);
    }
    b.offsets.push_back(static_cast<uint32_t>(b.nbr.size()));
    b.selfCoef.push_back(rng.unit());
  }
  return b;
}

/// Rows in [-1, 1) with every 7th value a signed zero (-0.0 where the
/// index is odd): 0.0f + -0.0f is +0.0f, so a sum that does not start
/// where the CPU's does shows.
inline std::vector<float> randomRows(size_t n, uint64_t seed) {
  std::vector<float> x(n);
  rt::gnn::Random rng(seed, rt::gnn::Stream::Split, 8, 0, 0);
  for (size_t i = 0; i < n; ++i)
    x[i] = i % 7 == 3 ? (i % 2 ? -0.0f : 0.0f) : 2.0f * rng.unit() - 1.0f;
  return x;
}

inline sluice_gnn_block_t view(const rt::gnn::Block &b) {
  sluice_gnn_block_t v{};
  v.num_dst = b.numDst;
  v.num_src = b.numSrc();
  v.offsets = b.offsets.data();
  v.nbr = b.nbr.data();
  v.coef = b.coef.data();
  v.self_coef = b.selfCoef.data();
  return v;
}

/// The CPU trainer's forward aggregation (one thread, one tile).
inline std::vector<float> cpuForward(const rt::gnn::Block &b, bool sage,
                                     const std::vector<float> &h, size_t in) {
  std::vector<float> a(size_t(b.numDst) * (sage ? 2 : 1) * in, 1e30f);
  rt::gnn::aggregateForward(nullptr, b, sage, h.data(), in, a.data(), 0);
  return a;
}

/// The CPU trainer's backward scatter, added to `dH`.
inline std::vector<float> cpuBackward(const rt::gnn::Block &b, bool sage,
                                      const std::vector<float> &dA, size_t in,
                                      std::vector<float> dH) {
  rt::gnn::aggregateBackward(nullptr, b, sage, dA.data(), in, dH.data(), 0);
  return dH;
}

/// Empty when `got` has the bits of `want`, else where it first differs.
inline std::string firstDifference(const std::vector<float> &want,
                                   const std::vector<float> &got) {
  if (want.size() != got.size())
    return "sizes " + std::to_string(want.size()) + " and " +
           std::to_string(got.size());
  for (size_t i = 0; i < want.size(); ++i)
    if (std::memcmp(&want[i], &got[i], sizeof(float)) != 0)
      return "value " + std::to_string(i) + ": CPU " + std::to_string(want[i]) +
             ", GPU " + std::to_string(got[i]);
  return "";
}

struct GraphDeleter {
  void operator()(sluice_graph_t *g) const { sluice_graph_release(g); }
};
using GraphPtr = std::unique_ptr<sluice_graph_t, GraphDeleter>;

/// Three planted groups of `size` vertices (an edge inside a group with
/// probability 0.3, across 0.03), undirected; the labels are the groups.
inline GraphPtr plantedGraph(uint32_t size, uint64_t seed) {
  const uint32_t n = 3 * size;
  std::vector<uint32_t> src, dst;
  rt::gnn::Random rng(seed, rt::gnn::Stream::Split, 9, 0, 0);
  for (uint32_t u = 0; u < n; ++u)
    for (uint32_t v = u + 1; v < n; ++v)
      if (rng.unit() < (u / size == v / size ? 0.3f : 0.03f)) {
        src.push_back(u);
        dst.push_back(v);
      }
  std::vector<int32_t> labels(n);
  for (uint32_t v = 0; v < n; ++v)
    labels[v] = static_cast<int32_t>(v / size);
  sluice_graph_t *g = nullptr;
  sluice_error_t error{};
  if (sluice_graph_create_from_edges(n, src.size(), src.data(), dst.data(),
                                     nullptr, nullptr, labels.data(),
                                     SLUICE_GRAPH_LOAD_UNDIRECTED, &g,
                                     &error) != SLUICE_STATUS_OK)
    return nullptr;
  return GraphPtr(g);
}

/// Options of a short training on plantedGraph with dense features (so
/// every layer's aggregation is dense): 2 layers, fanouts [4, 4], 8
/// features, hidden 8, batch 8, 3 epochs, dropout 0.25.
inline sluice_gnn_options_t plantedOptions(sluice_gnn_kind_t kind,
                                           const float *features) {
  static const uint32_t fanouts[] = {4, 4};
  sluice_gnn_options_t o;
  sluice_gnn_options_init(&o);
  o.kind = kind;
  o.layers = 2;
  o.fanouts = fanouts;
  o.features = 8;
  o.hidden = 8;
  o.classes = 3;
  o.batch = 8;
  o.epochs = 3;
  o.seed = 5;
  o.dropout = 0.25f;
  o.threads = 2;
  o.feature_data = features;
  o.input = SLUICE_GNN_INPUT_DENSE;
  return o;
}

/// Trains and returns every epoch's loss and accuracies (as text, so that
/// NaNs compare), or the error.
inline std::string trainLog(const sluice_graph_t *g,
                            const sluice_gnn_options_t &options) {
  struct Log {
    std::string text;
    static void add(void *user, const sluice_gnn_epoch_t *e) {
      char line[160];
      std::snprintf(line, sizeof(line), "%u %a %a %a %a\n", e->epoch, e->loss,
                    e->train_accuracy, e->val_accuracy, e->test_accuracy);
      static_cast<Log *>(user)->text += line;
    }
  } log;
  sluice_gnn_options_t o = options;
  o.on_epoch = Log::add;
  o.user_data = &log;
  sluice_gnn_result_t r{};
  sluice_error_t error{};
  if (sluice_gnn_train(g, &o, &r, &error) != SLUICE_STATUS_OK)
    return std::string("error: ") + error.message;
  return log.text;
}

/// The shapes both suites run: (dst, src, max degree, width).
struct Shape {
  uint32_t dst, src, maxDegree, in;
};
inline const std::vector<Shape> &shapes() {
  static const std::vector<Shape> s = {
      {1, 1, 3, 1},    // one row, self loops only
      {5, 12, 0, 4},   // no edges at all
      {17, 40, 6, 37}, // widths that are not a multiple of anything
      {64, 300, 25, 16}, {200, 900, 10, 64},
  };
  return s;
}

} // namespace sluice::test::gnngpu

#endif // SLUICE_TEST_UNIT_GNNGPU_GNNGPUCASES_H
