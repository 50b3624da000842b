//===- GnnTest.cpp - GNN layers, sampler and trainer ----------------------===//

#include "runtime/src/algo/AlgoInternal.h"
#include "runtime/src/gnn/Model.h"
#include "runtime/src/gnn/Random.h"
#include "runtime/src/features/FeatureStore.h"
#include "runtime/src/gnn/Sampler.h"
#include "runtime/src/gnn/Testing.h"
#include "sluice/gnn.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <sys/stat.h>
#include <map>
#include <memory>
#include <set>
#include <vector>

using namespace sluice::rt;
using namespace sluice::rt::gnn;

namespace {

struct GraphDeleter {
  void operator()(sluice_graph_t *g) const { sluice_graph_release(g); }
};
using GraphPtr = std::unique_ptr<sluice_graph_t, GraphDeleter>;

/// A planted partition: `blocks` groups of `size` vertices, an edge inside a
/// group with probability pIn and across with pOut (seeded), undirected;
/// vertex labels are the groups.
GraphPtr plantedPartition(uint32_t blocks, uint32_t size, double pIn,
                          double pOut, uint64_t seed) {
  const uint32_t n = blocks * size;
  std::vector<uint32_t> src, dst;
  Random rng(seed, Stream::Split, 99, 0, 0);
  for (uint32_t u = 0; u < n; ++u)
    for (uint32_t v = u + 1; v < n; ++v) {
      const double p = u / size == v / size ? pIn : pOut;
      if (rng.unit() < p) {
        src.push_back(u);
        dst.push_back(v);
      }
    }
  std::vector<int32_t> labels(n);
  for (uint32_t v = 0; v < n; ++v)
    labels[v] = static_cast<int32_t>(v / size);
  sluice_graph_t *g = nullptr;
  sluice_error_t error{};
  EXPECT_EQ(sluice_graph_create_from_edges(
                n, src.size(), src.data(), dst.data(), nullptr, nullptr,
                labels.data(), SLUICE_GRAPH_LOAD_UNDIRECTED, &g, &error),
            SLUICE_STATUS_OK)
      << error.message;
  return GraphPtr(g);
}

std::vector<float> randomFeatures(size_t n, size_t width, uint64_t seed,
                                  double zeros = 0.0) {
  std::vector<float> x(n * width);
  Random rng(seed, Stream::Split, 7, 0, 0);
  for (float &f : x)
    f = rng.unit() < zeros ? 0.0f : 2.0f * rng.unit() - 1.0f;
  return x;
}

Input denseInput(const std::vector<float> &all, uint32_t width,
                 const std::vector<uint32_t> &src) {
  Input in;
  in.width = width;
  for (uint32_t v : src)
    in.dense.insert(in.dense.end(), all.begin() + size_t(v) * width,
                    all.begin() + size_t(v + 1) * width);
  return in;
}

Input sparseInput(const std::vector<float> &all, uint32_t width,
                  const std::vector<uint32_t> &src) {
  Input in;
  in.sparse = true;
  in.width = width;
  in.rowStart.push_back(0);
  for (uint32_t v : src) {
    for (uint32_t c = 0; c < width; ++c)
      if (float x = all[size_t(v) * width + c]; x != 0.0f) {
        in.column.push_back(c);
        in.value.push_back(x);
      }
    in.rowStart.push_back(in.column.size());
  }
  return in;
}

struct Fixture {
  GraphPtr graph;
  uint32_t n;
  const uint64_t *offsets;
  const uint32_t *targets;
  Fixture(uint64_t seed = 5)
      : graph(plantedPartition(3, 12, 0.3, 0.05, seed)),
        n(static_cast<uint32_t>(sluice_graph_num_vertices(graph.get()))),
        offsets(sluice_graph_offsets(graph.get())),
        targets(sluice_graph_targets(graph.get())) {}
  std::vector<int32_t> labels(const std::vector<uint32_t> &seeds) const {
    std::vector<int32_t> out;
    for (uint32_t v : seeds)
      out.push_back(sluice_graph_vertex_label(graph.get(), v));
    return out;
  }
};

double lossOf(const GnnModel &model, const MiniBatch &batch, const Input &in,
              const std::vector<int32_t> &labels, uint32_t classes,
              const Dropout &dropout, TileTuner *tiles) {
  Activations acts;
  model.forward(nullptr, batch, in, acts, dropout, tiles);
  std::vector<float> d;
  uint64_t correct = 0;
  return GnnModel::lossAndGradient(acts.output.back(), labels, classes, d,
                                   correct);
}

/// Every parameter's gradient against the central difference of the loss;
/// `tile` > 0 pins the aggregation's tile (0: one pass).
void checkGradients(sluice_gnn_kind_t kind, bool sparse,
                    float dropoutRate = 0.0f, size_t tile = 0) {
  std::unique_ptr<TileTuner> tiles;
  if (tile)
    tiles = std::make_unique<TileTuner>(CacheSizes{}, tile, 2);
  // A fixed key: the same mask in every evaluation of the loss.
  const Dropout dropout{dropoutRate, 77, 5};
  Fixture f;
  const uint32_t width = 5, classes = 3;
  auto all = randomFeatures(f.n, width, 3, sparse ? 0.6 : 0.0);
  NeighbourSampler sampler(f.offsets, f.targets, f.n, kind, {3, 2}, 11);
  std::vector<uint32_t> seeds = {0, 5, 13, 20, 30};
  MiniBatch batch;
  sampler.sample(seeds.data(), seeds.size(), 4, 1, batch);
  Input in = sparse ? sparseInput(all, width, batch.blocks[0].src)
                    : denseInput(all, width, batch.blocks[0].src);
  ModelShape shape;
  shape.kind = kind;
  shape.widths = {width, 4, classes};
  GnnModel model(shape, 17);
  // Biases away from zero so that ReLU kinks are not at the test points.
  for (auto &p : model.params())
    for (float &x : p)
      x += 0.01f;
  auto labels = f.labels(seeds);
  Activations acts;
  model.forward(nullptr, batch, in, acts, dropout, tiles.get());
  std::vector<float> d;
  uint64_t correct = 0;
  GnnModel::lossAndGradient(acts.output.back(), labels, classes, d, correct);
  model.backward(nullptr, batch, in, acts, d, tiles.get());
  auto grads = model.grads();
  const float h = 1e-3f;
  size_t checked = 0;
  for (size_t l = 0; l < model.params().size(); ++l)
    for (size_t i = 0; i < model.params()[l].size(); ++i) {
      float &p = model.params()[l][i];
      const float saved = p;
      p = saved + h;
      const double up =
          lossOf(model, batch, in, labels, classes, dropout, tiles.get());
      p = saved - h;
      const double down =
          lossOf(model, batch, in, labels, classes, dropout, tiles.get());
      p = saved;
      const double numeric = (up - down) / (2.0 * h);
      EXPECT_NEAR(grads[l][i], numeric, 2e-3 + 2e-2 * std::fabs(numeric))
          << "layer " << l << " value " << i;
      ++checked;
    }
  EXPECT_GE(checked, 39u); // GCN 5-4-3: 39 values
}

} // namespace

TEST(GnnModel, SageGradientsMatchFiniteDifferences) {
  checkGradients(SLUICE_GNN_SAGE, false);
}
TEST(GnnModel, GcnGradientsMatchFiniteDifferences) {
  checkGradients(SLUICE_GNN_GCN, false);
}
TEST(GnnModel, DropoutGradientsMatchFiniteDifferences) {
  checkGradients(SLUICE_GNN_SAGE, false, 0.5f);
  checkGradients(SLUICE_GNN_GCN, true, 0.3f);
}
// Tiles of 1 and 3 columns (widths 5 and 4: a partial last tile) and one
// wider than the rows.
TEST(GnnModel, TiledGradientsMatchFiniteDifferences) {
  for (size_t tile : {1, 3, 9}) {
    checkGradients(SLUICE_GNN_SAGE, false, 0.0f, tile);
    checkGradients(SLUICE_GNN_GCN, false, 0.25f, tile);
    checkGradients(SLUICE_GNN_GCN, true, 0.0f, tile);
  }
}
TEST(GnnModel, SparseInputGradientsMatchFiniteDifferences) {
  checkGradients(SLUICE_GNN_SAGE, true);
  checkGradients(SLUICE_GNN_GCN, true);
}

// With fanouts at least the largest degree, the layers compute the
// full-neighbourhood models; the reference builds them in double from the
// adjacency lists (GCN as Kipf & Welling's D^-1/2 (A + I) D^-1/2 H W + b,
// SAGE as [h_v | mean of h_u] W + b), independent of blocks and coefficients.
TEST(GnnModel, FullNeighbourhoodMatchesDenseReference) {
  for (sluice_gnn_kind_t kind : {SLUICE_GNN_GCN, SLUICE_GNN_SAGE})
    for (bool sparse : {false, true}) {
      Fixture f;
      const uint32_t width = 6, hidden = 5, classes = 3;
      auto all = randomFeatures(f.n, width, 9, sparse ? 0.5 : 0.0);
      NeighbourSampler sampler(f.offsets, f.targets, f.n, kind,
                               {UINT32_MAX, UINT32_MAX}, 1);
      std::vector<uint32_t> seeds(f.n);
      for (uint32_t v = 0; v < f.n; ++v)
        seeds[v] = v;
      MiniBatch batch;
      sampler.sample(seeds.data(), seeds.size(), 4, 0, batch);
      Input in = sparse ? sparseInput(all, width, batch.blocks[0].src)
                        : denseInput(all, width, batch.blocks[0].src);
      ModelShape shape;
      shape.kind = kind;
      shape.widths = {width, hidden, classes};
      GnnModel model(shape, 23);
      Activations acts;
      model.forward(nullptr, batch, in, acts);

      // Reference, in double, rows in vertex order.
      std::vector<std::vector<double>> h(f.n);
      for (uint32_t v = 0; v < f.n; ++v)
        h[v].assign(all.begin() + size_t(v) * width,
                    all.begin() + size_t(v + 1) * width);
      for (uint32_t l = 0; l < 2; ++l) {
        const size_t inW = shape.widths[l], outW = shape.widths[l + 1];
        const auto &p = model.params()[l];
        const size_t rows = shape.weightRows(l);
        std::vector<std::vector<double>> next(f.n,
                                              std::vector<double>(outW));
        for (uint32_t v = 0; v < f.n; ++v) {
          const uint64_t dv = f.offsets[v + 1] - f.offsets[v];
          std::vector<double> z(rows, 0.0);
          if (kind == SLUICE_GNN_GCN) {
            for (size_t j = 0; j < inW; ++j)
              z[j] = h[v][j] / double(dv + 1);
            for (uint64_t e = f.offsets[v]; e < f.offsets[v + 1]; ++e) {
              uint32_t u = f.targets[e];
              double du = double(f.offsets[u + 1] - f.offsets[u]);
              for (size_t j = 0; j < inW; ++j)
                z[j] += h[u][j] / std::sqrt((dv + 1.0) * (du + 1.0));
            }
          } else {
            for (size_t j = 0; j < inW; ++j)
              z[j] = h[v][j];
            for (uint64_t e = f.offsets[v]; e < f.offsets[v + 1]; ++e)
              for (size_t j = 0; j < inW; ++j)
                z[inW + j] += h[f.targets[e]][j] / double(dv);
          }
          for (size_t o = 0; o < outW; ++o) {
            double s = p[rows * outW + o];
            for (size_t r = 0; r < rows; ++r)
              s += z[r] * p[r * outW + o];
            next[v][o] = l == 0 ? std::max(0.0, s) : s;
          }
        }
        h = std::move(next);
      }
      // The last block's dst are the seeds in order.
      const auto &logits = acts.output.back();
      ASSERT_EQ(logits.size(), size_t(f.n) * classes);
      for (uint32_t v = 0; v < f.n; ++v)
        for (uint32_t c = 0; c < classes; ++c)
          EXPECT_NEAR(logits[v * classes + c], h[v][c], 1e-4)
              << (kind == SLUICE_GNN_GCN ? "gcn" : "sage")
              << (sparse ? " sparse" : " dense") << " vertex " << v;
    }
}

// Each of a vertex's d neighbours is in a sample of k with probability k/d,
// and the k are distinct out-neighbours (chi-square over many batch keys).
TEST(GnnSampler, NeighboursAreUniformWithoutReplacement) {
  // A star: vertex 0 with 10 leaves.
  std::vector<uint32_t> s, t;
  for (uint32_t i = 1; i <= 10; ++i) {
    s.push_back(0);
    t.push_back(i);
  }
  sluice_graph_t *raw = nullptr;
  ASSERT_EQ(sluice_graph_create_from_edges(11, s.size(), s.data(), t.data(),
                                           nullptr, nullptr, nullptr, 0, &raw,
                                           nullptr),
            SLUICE_STATUS_OK);
  GraphPtr g(raw);
  NeighbourSampler sampler(sluice_graph_offsets(raw), sluice_graph_targets(raw),
                           11, SLUICE_GNN_SAGE, {3}, 42);
  const int trials = 20000;
  std::vector<double> hits(11, 0.0);
  MiniBatch batch;
  uint32_t seed = 0;
  for (int k = 0; k < trials; ++k) {
    sampler.sample(&seed, 1, 4, k, batch);
    const Block &b = batch.blocks[0];
    ASSERT_EQ(b.nbr.size(), 3u);
    std::set<uint32_t> distinct;
    for (uint32_t e : b.nbr) {
      uint32_t u = b.src[e];
      ASSERT_GE(u, 1u);
      ASSERT_LE(u, 10u);
      distinct.insert(u);
      hits[u] += 1.0;
    }
    EXPECT_EQ(distinct.size(), 3u);
  }
  // Inclusion counts: expected trials * 3/10 each; 9 degrees of freedom,
  // critical value 27.88 at p = 0.001.
  const double expected = trials * 0.3;
  double chi2 = 0.0;
  for (uint32_t u = 1; u <= 10; ++u)
    chi2 += (hits[u] - expected) * (hits[u] - expected) / expected;
  EXPECT_LT(chi2, 27.88);
}

TEST(GnnSampler, BlocksChainAndKeepSmallNeighbourhoods) {
  Fixture f;
  NeighbourSampler sampler(f.offsets, f.targets, f.n, SLUICE_GNN_GCN, {4, 3},
                           3);
  std::vector<uint32_t> seeds = {1, 2, 3};
  MiniBatch batch;
  sampler.sample(seeds.data(), seeds.size(), 4, 9, batch);
  ASSERT_EQ(batch.blocks.size(), 2u);
  // Block 1 computes the seeds; block 0 computes block 1's src rows.
  EXPECT_EQ(batch.blocks[1].numDst, 3u);
  EXPECT_EQ(std::vector<uint32_t>(batch.blocks[1].src.begin(),
                                  batch.blocks[1].src.begin() + 3),
            seeds);
  EXPECT_EQ(batch.blocks[0].numDst, batch.blocks[1].numSrc());
  for (const Block &b : batch.blocks)
    for (uint32_t d = 0; d < b.numDst; ++d) {
      const uint32_t v = b.src[d];
      const uint64_t deg = f.offsets[v + 1] - f.offsets[v];
      const uint32_t fan = &b == &batch.blocks[1] ? 4 : 3;
      EXPECT_EQ(b.offsets[d + 1] - b.offsets[d], std::min<uint64_t>(deg, fan));
      for (uint32_t e = b.offsets[d]; e < b.offsets[d + 1]; ++e)
        EXPECT_TRUE(sluice_graph_has_edge(f.graph.get(), v, b.src[b.nbr[e]]));
    }
  // Same key, same blocks.
  MiniBatch again;
  sampler.sample(seeds.data(), seeds.size(), 4, 9, again);
  EXPECT_EQ(again.blocks[0].src, batch.blocks[0].src);
  EXPECT_EQ(again.blocks[0].nbr, batch.blocks[0].nbr);
}

// The trainer keeps its buffers from batch to batch: the sampler's
// frontier, the blocks, the gathered rows, the activations and the
// backward pass's scratch grow to the largest batch and are overwritten
// after it. A small batch after a large one (and a large one after that)
// must give the bits of fresh buffers: a value left over from the larger
// batch (a scatter into dH not cleared, a frontier or block not reset)
// would show in the blocks, the logits or the gradients.
TEST(GnnModel, ReusedBuffersGiveTheBitsOfFreshOnes) {
  const std::vector<uint32_t> large = {0, 3, 5, 8, 13, 17, 20, 22, 27, 30, 35},
                              small = {2, 31}, middle = {1, 9, 14, 25, 33};
  for (sluice_gnn_kind_t kind : {SLUICE_GNN_SAGE, SLUICE_GNN_GCN})
    for (bool sparse : {false, true}) {
      SCOPED_TRACE(std::string(kind == SLUICE_GNN_GCN ? "gcn" : "sage") +
                   (sparse ? " sparse" : " dense"));
      Fixture f;
      const uint32_t width = 6, classes = 3;
      auto all = randomFeatures(f.n, width, 9, sparse ? 0.5 : 0.0);
      ModelShape shape;
      shape.kind = kind;
      shape.widths = {width, 7, 5, classes};
      const std::vector<uint32_t> fanouts = {4, 3, 2};
      const Dropout dropout{0.25f, 77, 3};
      // One sampler, model, batch, input and activations for every batch.
      NeighbourSampler sampler(f.offsets, f.targets, f.n, kind, fanouts, 11);
      GnnModel model(shape, 17);
      MiniBatch batch;
      Input in;
      Activations acts;
      std::vector<float> d;
      uint64_t key = 0;
      for (const auto *seeds : {&large, &small, &large, &middle}) {
        ++key;
        sampler.sample(seeds->data(), seeds->size(), 4, key, batch);
        in = sparse ? sparseInput(all, width, batch.blocks[0].src)
                    : denseInput(all, width, batch.blocks[0].src);
        model.forward(nullptr, batch, in, acts, dropout);
        uint64_t correct = 0;
        GnnModel::lossAndGradient(acts.output.back(), f.labels(*seeds), classes,
                                  d, correct);
        model.backward(nullptr, batch, in, acts, d);
        // The same batch with everything new.
        NeighbourSampler freshSampler(f.offsets, f.targets, f.n, kind, fanouts,
                                      11);
        GnnModel fresh(shape, 17);
        MiniBatch freshBatch;
        freshSampler.sample(seeds->data(), seeds->size(), 4, key, freshBatch);
        Input freshIn = sparse
                            ? sparseInput(all, width, freshBatch.blocks[0].src)
                            : denseInput(all, width, freshBatch.blocks[0].src);
        Activations freshActs;
        fresh.forward(nullptr, freshBatch, freshIn, freshActs, dropout);
        std::vector<float> freshD;
        GnnModel::lossAndGradient(freshActs.output.back(), f.labels(*seeds),
                                  classes, freshD, correct);
        fresh.backward(nullptr, freshBatch, freshIn, freshActs, freshD);
        ASSERT_EQ(batch.blocks.size(), freshBatch.blocks.size());
        for (size_t l = 0; l < batch.blocks.size(); ++l) {
          EXPECT_EQ(batch.blocks[l].src, freshBatch.blocks[l].src) << key;
          EXPECT_EQ(batch.blocks[l].nbr, freshBatch.blocks[l].nbr) << key;
          EXPECT_EQ(batch.blocks[l].coef, freshBatch.blocks[l].coef) << key;
        }
        EXPECT_EQ(acts.output.back(), freshActs.output.back()) << key;
        EXPECT_EQ(model.grads(), fresh.grads()) << "batch " << key;
      }
    }
}

namespace {

/// The model the training tests share on the 3-class planted partition:
/// 2 layers, fanouts [5, 5], hidden 16, batch 8, seed 4, dropout 0.25.
sluice_gnn_options_t plantedOptions(uint32_t width, uint32_t epochs) {
  static const uint32_t fanouts[] = {5, 5};
  sluice_gnn_options_t o;
  sluice_gnn_options_init(&o);
  o.layers = 2;
  o.fanouts = fanouts;
  o.features = width;
  o.hidden = 16;
  o.classes = 3;
  o.batch = 8;
  o.epochs = epochs;
  o.seed = 4;
  o.dropout = 0.25f;
  return o;
}

sluice_gnn_result_t train(const sluice_graph_t *g, sluice_gnn_kind_t kind,
                          uint32_t threads, const float *features,
                          uint32_t width, uint32_t epochs = 30,
                          uint32_t pipelineDepth = 2, uint32_t tile = 0) {
  sluice_gnn_options_t o = plantedOptions(width, epochs);
  o.aggregate_tile = tile;
  o.kind = kind;
  o.threads = threads;
  o.feature_data = features;
  o.pipeline_depth = pipelineDepth;
  sluice_gnn_result_t r{};
  sluice_error_t error{};
  EXPECT_EQ(sluice_gnn_train(g, &o, &r, &error), SLUICE_STATUS_OK)
      << error.message;
  return r;
}

} // namespace

TEST(GnnTrain, LearnsPlantedPartitionFromStructureAlone) {
  GraphPtr g = plantedPartition(3, 40, 0.25, 0.01, 8);
  const uint32_t n = 120;
  for (sluice_gnn_kind_t kind : {SLUICE_GNN_SAGE, SLUICE_GNN_GCN}) {
    sluice_gnn_result_t r = train(g.get(), kind, 2, nullptr, n);
    EXPECT_EQ(r.train_vertices, 72u);
    EXPECT_EQ(r.val_vertices, 24u);
    EXPECT_EQ(r.test_vertices, 24u);
    EXPECT_EQ(r.input_sparse, 1);
    // Chance is 1/3.
    EXPECT_GE(r.test_accuracy, 0.85) << (kind == SLUICE_GNN_GCN ? "gcn" : "sage");
  }
}

TEST(GnnTrain, SameBitsForAnyNumberOfThreads) {
  GraphPtr g = plantedPartition(3, 40, 0.25, 0.01, 8);
  auto x = randomFeatures(120, 8, 2);
  for (sluice_gnn_kind_t kind : {SLUICE_GNN_SAGE, SLUICE_GNN_GCN}) {
    sluice_gnn_result_t one = train(g.get(), kind, 1, x.data(), 8, 5);
    sluice_gnn_result_t three = train(g.get(), kind, 3, x.data(), 8, 5);
    EXPECT_EQ(one.final_loss, three.final_loss);
    EXPECT_EQ(one.final_test_accuracy, three.final_test_accuracy);
    EXPECT_EQ(one.input_sparse, 0);
  }
}

// Sampling ahead on the pipeline's thread changes when batches are made,
// not what they are.
TEST(GnnTrain, SameBitsWithAndWithoutPipeline) {
  GraphPtr g = plantedPartition(3, 40, 0.25, 0.01, 8);
  auto x = randomFeatures(120, 8, 2);
  sluice_gnn_result_t none = train(g.get(), SLUICE_GNN_SAGE, 2, x.data(), 8, 4, 0);
  for (uint32_t depth : {1u, 2u, 5u}) {
    sluice_gnn_result_t ahead =
        train(g.get(), SLUICE_GNN_SAGE, 2, x.data(), 8, 4, depth);
    EXPECT_EQ(none.final_loss, ahead.final_loss) << "depth " << depth;
    EXPECT_EQ(none.final_test_accuracy, ahead.final_test_accuracy);
  }
}

// The aggregation's tile (pinned, or the tuner's, probe included) changes
// the time, not the bits; the result reports the tiles.
TEST(GnnTrain, SameBitsForAnyTile) {
  GraphPtr g = plantedPartition(3, 40, 0.25, 0.01, 8);
  auto x = randomFeatures(120, 8, 2);
  for (sluice_gnn_kind_t kind : {SLUICE_GNN_SAGE, SLUICE_GNN_GCN}) {
    sluice_gnn_result_t automatic =
        train(g.get(), kind, 2, x.data(), 8, 4, 2, 0);
    EXPECT_GT(automatic.cache_l2_bytes, 0u);
    EXPECT_GT(automatic.cache_l1d_bytes, 0u);
    for (uint32_t l = 0; l < 2; ++l) {
      EXPECT_GE(automatic.forward_tile[l], 1u) << l;
      EXPECT_GE(automatic.model_forward_tile[l], 1u) << l;
    }
    // The input layer's scatter is never needed; layer 1's is (width 16
    // split over 2 threads: at most 8 columns a thread).
    EXPECT_EQ(automatic.backward_tile[0], 0u);
    EXPECT_GE(automatic.backward_tile[1], 1u);
    EXPECT_LE(automatic.backward_tile[1], 8u);
    for (uint32_t tile : {1u, 3u, 16u, 100u}) {
      sluice_gnn_result_t pinned =
          train(g.get(), kind, 2, x.data(), 8, 4, 2, tile);
      EXPECT_EQ(automatic.final_loss, pinned.final_loss) << "tile " << tile;
      EXPECT_EQ(automatic.final_test_accuracy, pinned.final_test_accuracy);
      EXPECT_EQ(pinned.forward_tile[1], tile);
      EXPECT_EQ(pinned.backward_tile[1], tile);
    }
  }
}

namespace {

std::string writeRaw(const std::vector<float> &x, const std::string &name) {
  ::mkdir(SLUICE_GNN_TEST_DIR, 0755); // EEXIST is fine
  std::string path = std::string(SLUICE_GNN_TEST_DIR) + "/" + name;
  FILE *f = std::fopen(path.c_str(), "wb");
  EXPECT_TRUE(f);
  EXPECT_EQ(std::fwrite(x.data(), sizeof(float), x.size(), f), x.size());
  std::fclose(f);
  return path;
}

sluice_gnn_result_t trainFromFile(const sluice_graph_t *g, const char *path,
                                  int outOfCore, uint64_t cacheBytes,
                                  sluice_status_t expect = SLUICE_STATUS_OK,
                                  std::string *message = nullptr) {
  sluice_gnn_options_t o = plantedOptions(64, 4);
  o.feature_path = path;
  o.feature_out_of_core = outOfCore;
  o.feature_cache_bytes = cacheBytes;
  sluice_gnn_result_t r{};
  sluice_error_t error{};
  EXPECT_EQ(sluice_gnn_train(g, &o, &r, &error), expect) << error.message;
  if (message)
    *message = error.message;
  return r;
}

} // namespace

// Features read from a file, whole or through the out-of-core store with a
// small cache, train exactly as the same array in memory.
TEST(GnnTrain, FeatureFileTrainsLikeMemory) {
  GraphPtr g = plantedPartition(3, 40, 0.25, 0.01, 8);
  // 120 rows of 256 bytes: 7.5 blocks of 4 KiB.
  auto x = randomFeatures(120, 64, 2);
  std::string path = writeRaw(x, "gnn-features.f32");
  sluice_gnn_result_t memory =
      train(g.get(), SLUICE_GNN_SAGE, 2, x.data(), 64, 4);
  sluice_gnn_result_t whole = trainFromFile(g.get(), path.c_str(), 0, 0);
  // 10 rows cached (and the 8 in the file's partial last block, which
  // O_DIRECT cannot read), the rest read with O_DIRECT.
  sluice_gnn_result_t direct =
      trainFromFile(g.get(), path.c_str(), 1, 10 * 64 * sizeof(float));
  EXPECT_EQ(memory.final_loss, whole.final_loss);
  EXPECT_EQ(memory.final_loss, direct.final_loss);
  EXPECT_EQ(memory.final_test_accuracy, direct.final_test_accuracy);
  EXPECT_EQ(direct.feature_cached_rows, 18u);
  EXPECT_GT(direct.feature_file_rows, 0u);
  EXPECT_GT(direct.feature_cache_hits, 0u);
  EXPECT_EQ(whole.feature_file_rows, 0u);
  std::remove(path.c_str());
}

// A read that fails (an injected EIO in the store's engine) fails the
// training with IO_ERROR and the engine's message, leaves `out` untouched,
// and the next training on the same file works.
TEST(GnnTrain, FailedFeatureReadFailsTheTraining) {
  GraphPtr g = plantedPartition(3, 40, 0.25, 0.01, 8);
  auto x = randomFeatures(120, 64, 2);
  std::string path = writeRaw(x, "gnn-fault.f32");
  setStoreObserverForTesting([](features::FeatureStore &store) {
    ASSERT_NE(store.engine(), nullptr);
    // Past the density probe's reads: inside the first epoch.
    sluice_io_engine_inject_fault(store.engine(), 8, SLUICE_IO_FAULT_EIO);
  });
  sluice_gnn_options_t o = plantedOptions(64, 2);
  o.seed = 1;
  o.dropout = 0.0f;
  o.feature_path = path.c_str();
  o.feature_out_of_core = 1;
  sluice_gnn_result_t r{};
  r.epochs = 12345;
  sluice_error_t error{};
  EXPECT_EQ(sluice_gnn_train(g.get(), &o, &r, &error), SLUICE_STATUS_IO_ERROR);
  EXPECT_NE(std::string(error.message).find("gnn-fault.f32"),
            std::string::npos)
      << error.message;
  EXPECT_EQ(r.epochs, 12345u); // untouched
  setStoreObserverForTesting(nullptr);
  EXPECT_EQ(sluice_gnn_train(g.get(), &o, &r, &error), SLUICE_STATUS_OK)
      << error.message;
  EXPECT_EQ(r.epochs, 2u);
  std::remove(path.c_str());
}

TEST(GnnTrain, FeatureFileOfTheWrongSizeIsNamed) {
  GraphPtr g = plantedPartition(3, 40, 0.25, 0.01, 8);
  auto x = randomFeatures(119, 64, 2); // one row short
  std::string path = writeRaw(x, "gnn-short.f32");
  std::string message;
  trainFromFile(g.get(), path.c_str(), 1, 0, SLUICE_STATUS_INVALID_ARGUMENT,
                &message);
  EXPECT_NE(message.find("the file has 119 rows of features but the graph "
                         "has vertex 119 (row 119)"),
            std::string::npos)
      << message;
  // A cache larger than this machine's memory.
  {
    auto ok = randomFeatures(120, 64, 2);
    std::string okPath = writeRaw(ok, "gnn-bigcache.f32");
    trainFromFile(g.get(), okPath.c_str(), 1, uint64_t(1) << 62,
                  SLUICE_STATUS_INVALID_ARGUMENT, &message);
    EXPECT_NE(message.find("a feature cache of 4611686018427387904 bytes, "
                           "more than this machine's"),
              std::string::npos)
        << message;
    std::remove(okPath.c_str());
  }
  // Not a whole number of rows.
  auto odd = randomFeatures(1, 5, 3);
  std::string oddPath = writeRaw(odd, "gnn-odd.f32");
  trainFromFile(g.get(), oddPath.c_str(), 0, 0, SLUICE_STATUS_INVALID_ARGUMENT,
                &message);
  EXPECT_NE(message.find("not a whole number of rows"), std::string::npos)
      << message;
  std::remove(oddPath.c_str());
  trainFromFile(g.get(), "/nonexistent/gnn.npy", 0, 0,
                SLUICE_STATUS_INVALID_ARGUMENT, &message);
  EXPECT_NE(message.find("/nonexistent/gnn.npy"), std::string::npos)
      << message;
  std::remove(path.c_str());
}

TEST(GnnTrain, BadInputsAreNamed) {
  GraphPtr g = plantedPartition(3, 10, 0.3, 0.05, 1);
  const uint32_t fanouts[] = {5, 5};
  sluice_gnn_options_t o;
  sluice_gnn_options_init(&o);
  o.layers = 2;
  o.fanouts = fanouts;
  o.features = 30;
  o.hidden = 4;
  o.classes = 2; // labels go to 2
  sluice_error_t error{};
  EXPECT_EQ(sluice_gnn_train(g.get(), &o, nullptr, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(error.message).find("has label 2 but the model has 2 "
                                            "classes"),
            std::string::npos)
      << error.message;
  o.classes = 3;
  o.features = 29;
  EXPECT_EQ(sluice_gnn_train(g.get(), &o, nullptr, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(error.message).find("identity features give every "
                                            "vertex 30 features"),
            std::string::npos)
      << error.message;
  o.features = 30;
  o.train_fraction = 0.9;
  o.val_fraction = 0.2;
  EXPECT_EQ(sluice_gnn_train(g.get(), &o, nullptr, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  o.train_fraction = 0.6;
  const uint32_t zero[] = {5, 0};
  o.fanouts = zero;
  EXPECT_EQ(sluice_gnn_train(g.get(), &o, nullptr, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(error.message).find("fanout 2 must be positive"),
            std::string::npos);
  // No labels.
  std::vector<uint32_t> s = {0}, t = {1};
  sluice_graph_t *raw = nullptr;
  ASSERT_EQ(sluice_graph_create_from_edges(2, 1, s.data(), t.data(), nullptr,
                                           nullptr, nullptr, 0, &raw, nullptr),
            SLUICE_STATUS_OK);
  GraphPtr unlabelled(raw);
  o.fanouts = fanouts;
  o.features = 2;
  EXPECT_EQ(sluice_gnn_train(unlabelled.get(), &o, nullptr, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(error.message).find("no vertex labels"),
            std::string::npos);
}
