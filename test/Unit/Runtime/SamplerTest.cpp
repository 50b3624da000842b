//===- SamplerTest.cpp - Random-walk samplers and their RNG ---------------===//
//
// Philox4x32-10 known-answer vectors (Random123 KAT), chi-square fits of
// every sampler against the exact normalised weights (with a deliberately
// biased sampler that must fail the same test), determinism per
// (seed, walker, step) whatever the thread count, reservoir versus rejection
// on a history-dependent (node2vec) weight, per-graph alias tables and the
// cost model. All seeds are fixed.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/walk/Sampling.h"
#include "test/Unit/Support/ChiSquare.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace sluice::walk;

namespace {

//===----------------------------------------------------------------------===//
// Chi-square machinery
//===----------------------------------------------------------------------===//

using sluice::testsupport::criticalValue;
using sluice::testsupport::Fit;

/// testsupport::chiSquare with `misses` samples (kNoCandidate or out of
/// range) that fall in no category.
Fit chiSquare(const std::vector<uint64_t> &counts,
              const std::vector<double> &weights, uint64_t misses) {
  Fit fit = sluice::testsupport::chiSquare(counts, weights);
  fit.misses = misses;
  return fit;
}

/// A sampler under test: (weights, rng) -> index or kNoCandidate.
using Sampler =
    std::function<uint64_t(const std::vector<double> &, WalkRng &)>;

/// Draws `samples` times, walker = sample number (a fresh stream each).
Fit run(const Sampler &sampler, const std::vector<double> &weights,
        uint64_t samples, uint64_t seed) {
  std::vector<uint64_t> counts(weights.size(), 0);
  uint64_t misses = 0;
  for (uint64_t s = 0; s < samples; ++s) {
    WalkRng rng(seed, s, 7);
    uint64_t i = sampler(weights, rng);
    if (i < weights.size())
      ++counts[i];
    else
      ++misses;
  }
  return chiSquare(counts, weights, misses);
}

double maxOf(const std::vector<double> &w) {
  return *std::max_element(w.begin(), w.end());
}

std::vector<std::pair<std::string, Sampler>> allSamplers() {
  return {
      {"exact",
       [](const std::vector<double> &w, WalkRng &rng) {
         return sampleExact(w.size(), [&](uint64_t i) { return w[i]; }, rng);
       }},
      {"alias",
       [](const std::vector<double> &w, WalkRng &rng) {
         // Built per call on purpose: the table is a pure function of w.
         AliasTable table(static_cast<uint32_t>(w.size()),
                          [&](uint64_t i) { return w[i]; });
         return table.sample(rng);
       }},
      {"rejection",
       [](const std::vector<double> &w, WalkRng &rng) {
         return sampleRejection(
             w.size(), [&](uint64_t i) { return w[i]; }, maxOf(w), rng);
       }},
      {"rejection-loose-bound-fallback",
       // A bound 3x too large and 2 trials: many calls fall back to exact.
       [](const std::vector<double> &w, WalkRng &rng) {
         return sampleRejection(
             w.size(), [&](uint64_t i) { return w[i]; }, 3 * maxOf(w), rng,
             nullptr, 2);
       }},
      {"reservoir",
       [](const std::vector<double> &w, WalkRng &rng) {
         return sampleReservoir(w.size(), [&](uint64_t i) { return w[i]; },
                                rng);
       }},
      {"adaptive",
       [](const std::vector<double> &w, WalkRng &rng) {
         double sum = std::accumulate(w.begin(), w.end(), 0.0);
         return sampleAdaptive(
             w.size(), [&](uint64_t i) { return w[i]; }, maxOf(w), sum,
             CostModel(4.0), rng);
       }},
  };
}

struct WeightCase {
  std::string name;
  std::vector<double> weights;
  uint64_t samples;
};

std::vector<WeightCase> weightCases() {
  std::vector<WeightCase> cases;
  cases.push_back({"uniform10", std::vector<double>(10, 1.0), 50000});
  std::vector<double> skewed;
  for (int i = 0; i < 20; ++i)
    skewed.push_back(1.0 / ((i + 1) * (i + 1)));
  cases.push_back({"skewed20", skewed, 50000});
  cases.push_back(
      {"zeros", {0, 3, 0, 1, 2, 0, 0, 5, 0, 0.5}, 50000});
  cases.push_back({"oneHuge", {1, 1, 1000, 1, 2, 1, 3}, 50000});
  cases.push_back({"oneVeryHuge", {1e4, 1, 1, 1, 1}, 200000});
  cases.push_back({"length1", {2.5}, 2000});
  std::vector<double> wide;
  for (int i = 0; i < 1000; ++i)
    wide.push_back(i % 13 == 0 ? 0.0 : 1.0 + (i * 7919) % 100);
  cases.push_back({"length1000", wide, 100000});
  return cases;
}

//===----------------------------------------------------------------------===//
// Philox
//===----------------------------------------------------------------------===//

struct Kat {
  uint32_t counter[4], key[2], expected[4];
};

const Kat kKats[] = {
    {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

TEST(SamplerPhilox, KnownAnswerVectors) {
  for (const Kat &kat : kKats) {
    uint32_t viaC[4], viaCxx[4];
    sluice_philox4x32_10(kat.counter, kat.key, viaC);
    philox4x32_10(kat.counter, kat.key, viaCxx);
    for (int j = 0; j < 4; ++j) {
      EXPECT_EQ(viaC[j], kat.expected[j]) << "word " << j;
      EXPECT_EQ(viaCxx[j], kat.expected[j]) << "word " << j;
    }
  }
}

TEST(SamplerPhilox, WalkRngLayout) {
  // Key = seed, counter = (block, step, walker lo, walker hi).
  WalkRng zero(0, 0, 0);
  for (uint32_t expected : kKats[0].expected)
    EXPECT_EQ(zero.nextU32(), expected);
  uint32_t counter[4] = {1, 0, 0, 0}, key[2] = {0, 0}, next[4];
  philox4x32_10(counter, key, next);
  for (uint32_t expected : next)
    EXPECT_EQ(zero.nextU32(), expected);
  EXPECT_EQ(zero.drawn(), 8u);

  WalkRng rng(0x299f31d0a4093822ull, 0x0370734413198a2eull, 0x85a308d3u);
  uint32_t c[4] = {0, 0x85a308d3, 0x13198a2e, 0x03707344};
  uint32_t k[2] = {0xa4093822, 0x299f31d0}, out[4];
  philox4x32_10(c, k, out);
  for (uint32_t expected : out)
    EXPECT_EQ(rng.nextU32(), expected);
}

TEST(SamplerPhilox, UniformsInRange) {
  WalkRng rng(42, 1, 2);
  double sum = 0;
  for (int i = 0; i < 100000; ++i) {
    double d = rng.nextDouble(), o = rng.nextOpenDouble();
    ASSERT_GE(d, 0.0);
    ASSERT_LT(d, 1.0);
    ASSERT_GT(o, 0.0);
    ASSERT_LT(o, 1.0);
    sum += d;
  }
  EXPECT_NEAR(sum / 100000, 0.5, 0.005);
  // uniformIndex is unbiased, also for n beyond 32 bits.
  std::vector<uint64_t> counts(7, 0);
  for (int i = 0; i < 70000; ++i)
    ++counts[rng.uniformIndex(7)];
  EXPECT_TRUE(chiSquare(counts, std::vector<double>(7, 1.0), 0).passes());
  const uint64_t big = (uint64_t(3) << 40) + 5;
  std::vector<uint64_t> thirds(3, 0);
  for (int i = 0; i < 30000; ++i) {
    uint64_t x = rng.uniformIndex(big);
    ASSERT_LT(x, big);
    ++thirds[x / ((uint64_t(1) << 40) + 2)];
  }
  EXPECT_TRUE(chiSquare(thirds, std::vector<double>(3, 1.0), 0).passes());
}

//===----------------------------------------------------------------------===//
// Goodness of fit
//===----------------------------------------------------------------------===//

TEST(SamplerFit, EverySamplerMatchesTheWeights) {
  uint64_t seed = 1000;
  for (const WeightCase &wc : weightCases()) {
    for (const auto &[name, sampler] : allSamplers()) {
      Fit fit = run(sampler, wc.weights, wc.samples, ++seed);
      EXPECT_TRUE(fit.passes())
          << name << " on " << wc.name << ": chi2 " << fit.statistic
          << " df " << fit.df << " critical "
          << (fit.df ? criticalValue(fit.df) : 0) << " zero-weight hits "
          << fit.zeroHits << " misses " << fit.misses;
    }
  }
}

TEST(SamplerFit, TheTestCatchesBiasedSamplers) {
  // Always index 0: fails on every case with more than one category.
  Sampler first = [](const std::vector<double> &, WalkRng &) {
    return uint64_t(0);
  };
  for (const WeightCase &wc : weightCases()) {
    double sum = std::accumulate(wc.weights.begin(), wc.weights.end(), 0.0);
    if (wc.weights[0] / sum > 0.99)
      continue; // index 0 is (almost surely) the right answer there
    EXPECT_FALSE(run(first, wc.weights, wc.samples, 5).passes()) << wc.name;
  }
  // A subtle bias: one weight 10% too heavy on a uniform vector.
  Sampler skewedAlias = [](const std::vector<double> &w, WalkRng &rng) {
    std::vector<double> wrong = w;
    wrong[3] *= 1.1;
    AliasTable table(static_cast<uint32_t>(wrong.size()),
                     [&](uint64_t i) { return wrong[i]; });
    return table.sample(rng);
  };
  Fit biased = run(skewedAlias, std::vector<double>(10, 1.0), 50000, 6);
  EXPECT_FALSE(biased.passes()) << "chi2 " << biased.statistic;
  // Rejection against a bound that is too small is biased, and says so.
  std::vector<double> w = {1, 1, 1, 8};
  SamplerStats stats;
  Sampler lowBound = [&](const std::vector<double> &v, WalkRng &rng) {
    return sampleRejection(v.size(), [&](uint64_t i) { return v[i]; }, 2.0,
                           rng, &stats);
  };
  EXPECT_FALSE(run(lowBound, w, 50000, 7).passes());
  EXPECT_GT(stats.boundViolations, 0u);
  // A sampler that picks zero-weight candidates fails outright.
  Sampler uniform = [](const std::vector<double> &v, WalkRng &rng) {
    return rng.uniformIndex(v.size());
  };
  EXPECT_FALSE(run(uniform, {0, 1, 1, 1}, 1000, 8).passes());
}

TEST(SamplerFit, AllZeroAndEmptyMeanNoMove) {
  std::vector<double> zeros(5, 0.0);
  auto weight = [&](uint64_t i) { return zeros[i]; };
  for (int s = 0; s < 100; ++s) {
    WalkRng rng(3, s, 0);
    EXPECT_EQ(sampleExact(5, weight, rng), kNoCandidate);
    EXPECT_EQ(sampleReservoir(5, weight, rng), kNoCandidate);
    EXPECT_EQ(sampleReservoir(0, weight, rng), kNoCandidate);
    EXPECT_EQ(sampleRejection(0, weight, 1.0, rng), kNoCandidate);
    EXPECT_EQ(AliasTable(5, weight).sample(rng), kNoCandidate);
    EXPECT_EQ(AliasTable().sample(rng), kNoCandidate);
  }
  SamplerStats stats;
  WalkRng rng(3, 0, 1);
  EXPECT_EQ(sampleRejection(5, weight, 1.0, rng, &stats, 16), kNoCandidate);
  EXPECT_EQ(stats.rejectionTrials, 16u);
  EXPECT_EQ(stats.rejectionFallbacks, 1u);
  // Negative and NaN weights count as zero.
  std::vector<double> odd = {-1, std::nan(""), 2, 0};
  for (int s = 0; s < 200; ++s) {
    WalkRng r(4, s, 0);
    auto w = [&](uint64_t i) { return odd[i]; };
    EXPECT_EQ(sampleReservoir(4, w, r), 2u);
    EXPECT_EQ(sampleRejection(4, w, 2.0, r), 2u);
    EXPECT_EQ(AliasTable(4, w).sample(r), 2u);
  }
}

TEST(SamplerFit, RejectionFallbackIsCounted) {
  std::vector<double> w = {1, 2, 3};
  SamplerStats stats;
  uint64_t calls = 2000;
  for (uint64_t s = 0; s < calls; ++s) {
    WalkRng rng(11, s, 0);
    sampleRejection(3, [&](uint64_t i) { return w[i]; }, 30.0, rng, &stats,
                    1);
  }
  // Acceptance 2/30 per trial: most calls fall back.
  EXPECT_GT(stats.rejectionFallbacks, calls * 8 / 10);
  EXPECT_EQ(stats.rejectionTrials, calls);
  EXPECT_EQ(stats.boundViolations, 0u);
}

TEST(SamplerFit, ReservoirUsesFewRandomNumbers) {
  // Naive weighted reservoir draws a key per candidate (2000 words for
  // 1000 candidates); A-ExpJ draws O(log n).
  std::vector<double> w(1000, 1.0);
  uint64_t words = 0, calls = 2000;
  for (uint64_t s = 0; s < calls; ++s) {
    WalkRng rng(12, s, 0);
    sampleReservoir(w.size(), [&](uint64_t i) { return w[i]; }, rng);
    words += rng.drawn();
  }
  EXPECT_LT(double(words) / calls, 64.0);
}

//===----------------------------------------------------------------------===//
// Determinism
//===----------------------------------------------------------------------===//

TEST(SamplerDeterminism, SameStreamSameChoice) {
  std::vector<double> w;
  for (int i = 0; i < 300; ++i)
    w.push_back(1 + (i * 37) % 11);
  for (const auto &[name, sampler] : allSamplers()) {
    uint64_t differences = 0;
    for (uint64_t walker = 0; walker < 200; ++walker) {
      for (uint32_t step = 0; step < 5; ++step) {
        WalkRng a(99, walker, step), b(99, walker, step), c(100, walker, step);
        uint64_t x = sampler(w, a);
        EXPECT_EQ(x, sampler(w, b)) << name;
        differences += x != sampler(w, c);
      }
    }
    EXPECT_GT(differences, 500u) << name << ": the seed should matter";
  }
}

TEST(SamplerDeterminism, IndependentOfThreadCount) {
  std::vector<double> w;
  for (int i = 0; i < 64; ++i)
    w.push_back(i % 5 == 0 ? 0.0 : 1.0 + i % 7);
  const uint64_t walkers = 4000;
  const uint32_t steps = 10;
  auto walkAll = [&](unsigned threads) {
    std::vector<uint64_t> out(walkers * steps);
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        // Threads take walkers round-robin and steps in reverse order, so
        // the schedule differs from the single-threaded one.
        for (uint64_t wk = t; wk < walkers; wk += threads)
          for (uint32_t st = steps; st-- > 0;) {
            WalkRng rng(2026, wk, st);
            out[wk * steps + st] = sampleReservoir(
                w.size(), [&](uint64_t i) { return w[i]; }, rng);
          }
      });
    }
    for (std::thread &th : pool)
      th.join();
    return out;
  };
  std::vector<uint64_t> one = walkAll(1);
  EXPECT_EQ(one, walkAll(3));
  EXPECT_EQ(one, walkAll(8));
}

//===----------------------------------------------------------------------===//
// Reservoir versus rejection on a history-dependent weight (node2vec)
//===----------------------------------------------------------------------===//

struct GraphDeleter {
  void operator()(sluice_graph_t *g) const { sluice_graph_release(g); }
};
using GraphPtr = std::unique_ptr<sluice_graph_t, GraphDeleter>;

GraphPtr makeGraph(uint64_t n, const std::vector<std::pair<uint32_t, uint32_t>>
                                   &edges,
                   const std::vector<float> *weights, uint32_t flags = 0) {
  std::vector<uint32_t> src, dst;
  for (auto [u, v] : edges) {
    src.push_back(u);
    dst.push_back(v);
  }
  sluice_graph_t *g = nullptr;
  EXPECT_EQ(sluice_graph_create_from_edges(
                n, edges.size(), src.data(), dst.data(),
                weights ? weights->data() : nullptr, nullptr, nullptr, flags,
                &g, nullptr),
            SLUICE_STATUS_OK);
  return GraphPtr(g);
}

TEST(SamplerNode2vec, ReservoirAndRejectionDrawTheSameDistribution) {
  // A weighted graph; the walker came from `prev` to `cur`.
  std::vector<std::pair<uint32_t, uint32_t>> edges = {
      {0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {0, 6}, {1, 2}, {1, 3},
      {2, 5}, {3, 4}, {4, 6}, {5, 6}, {6, 7}, {1, 7}};
  std::vector<float> weights = {1, 2, 3, 1, 5, 2, 1, 1, 1, 1, 1, 1, 1, 1};
  GraphPtr graph =
      makeGraph(8, edges, &weights, SLUICE_GRAPH_LOAD_UNDIRECTED);
  const sluice_graph_t *g = graph.get();
  const double p = 2.0, q = 0.5;
  const uint32_t prev = 1, cur = 0;
  const uint64_t *off = sluice_graph_offsets(g);
  const uint32_t *tgt = sluice_graph_targets(g);
  const float *wt = sluice_graph_weights(g);
  uint64_t begin = off[cur], degree = off[cur + 1] - begin;
  auto weight = [&](uint64_t i) {
    uint32_t x = tgt[begin + i];
    double bias = x == prev                          ? 1 / p
                  : sluice_graph_has_edge(g, prev, x) ? 1.0
                                                      : 1 / q;
    return double(wt[begin + i]) * bias;
  };
  // The compile-time bound: maxw[cur] * max(1, 1/p, 1/q).
  double bound = sluice_graph_weight_max(g, cur) * std::max({1.0, 1 / p, 1 / q});
  std::vector<double> exact;
  for (uint64_t i = 0; i < degree; ++i)
    exact.push_back(weight(i));

  const uint64_t samples = 60000;
  std::vector<uint64_t> res(degree, 0), rej(degree, 0);
  SamplerStats stats;
  for (uint64_t s = 0; s < samples; ++s) {
    WalkRng a(77, s, 1), b(78, s, 1);
    ++res.at(sampleReservoir(degree, weight, a, &stats));
    ++rej.at(sampleRejection(degree, weight, bound, b, &stats));
  }
  EXPECT_EQ(stats.boundViolations, 0u);
  EXPECT_TRUE(chiSquare(res, exact, 0).passes());
  EXPECT_TRUE(chiSquare(rej, exact, 0).passes());
  // Homogeneity of the two samples (2 x k contingency table).
  double stat = 0;
  for (uint64_t i = 0; i < degree; ++i) {
    double both = double(res[i] + rej[i]);
    if (both == 0)
      continue;
    double e = both / 2;
    stat += (res[i] - e) * (res[i] - e) / e + (rej[i] - e) * (rej[i] - e) / e;
  }
  EXPECT_LT(stat, criticalValue(static_cast<int>(degree) - 1));
}

//===----------------------------------------------------------------------===//
// Alias tables over a graph
//===----------------------------------------------------------------------===//

TEST(SamplerGraphAlias, PerVertexDistributions) {
  std::vector<std::pair<uint32_t, uint32_t>> edges = {
      {0, 1}, {0, 2}, {0, 3}, {1, 0}, {1, 2}, {3, 0}, {3, 1}, {3, 2}, {3, 3}};
  std::vector<float> weights = {1, 2, 3, 0, 0, 0.25f, 0, 4, 100};
  GraphPtr graph = makeGraph(5, edges, &weights);
  GraphAliasTables tables(graph.get());
  EXPECT_EQ(tables.memoryBytes(), 9 * 8u + 5);
  std::vector<std::vector<double>> expected = {{1, 2, 3}, {}, {}, {0.25, 0, 4, 100}};
  for (uint32_t v : {0u, 3u}) {
    std::vector<uint64_t> counts(expected[v].size(), 0);
    uint64_t misses = 0;
    for (uint64_t s = 0; s < 40000; ++s) {
      WalkRng rng(5, s, v);
      uint64_t i = tables.sample(v, rng);
      if (i < counts.size())
        ++counts[i];
      else
        ++misses;
    }
    Fit fit = chiSquare(counts, expected[v], misses);
    EXPECT_TRUE(fit.passes()) << "vertex " << v << " chi2 " << fit.statistic;
  }
  WalkRng rng(5, 0, 0);
  EXPECT_EQ(tables.sample(1, rng), kNoCandidate); // all-zero weights
  EXPECT_EQ(tables.sample(2, rng), kNoCandidate); // no out-edges
  EXPECT_EQ(tables.sample(4, rng), kNoCandidate); // isolated
  EXPECT_EQ(tables.sample(5, rng), kNoCandidate); // out of range
  EXPECT_EQ(tables.sampleNeighbor(1, rng), SLUICE_VERTEX_NONE);
  for (int s = 0; s < 100; ++s) {
    uint32_t x = tables.sampleNeighbor(0, rng);
    EXPECT_TRUE(x == 1 || x == 2 || x == 3);
  }
  EXPECT_THROW(GraphAliasTables(nullptr), std::invalid_argument);
}

TEST(SamplerGraphAlias, UnweightedGraphIsUniform) {
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  for (uint32_t v = 1; v <= 6; ++v)
    edges.push_back({0, v});
  GraphPtr graph = makeGraph(7, edges, nullptr);
  GraphAliasTables tables(graph.get());
  std::vector<uint64_t> counts(7, 0);
  for (uint64_t s = 0; s < 30000; ++s) {
    WalkRng rng(6, s, 0);
    ++counts[tables.sampleNeighbor(0, rng)];
  }
  EXPECT_EQ(counts[0], 0u);
  counts.erase(counts.begin());
  EXPECT_TRUE(chiSquare(counts, std::vector<double>(6, 1.0), 0).passes());
}

//===----------------------------------------------------------------------===//
// Cost model
//===----------------------------------------------------------------------===//

TEST(SamplerCostModel, DecisionOnHandMadeAggregates) {
  // Uniform degree-3 vertex: W_sum 3, w_max 1. r = 4: 4 > 3, reservoir.
  EXPECT_TRUE(prefersReservoir(4, 1, 3));
  // Degree 10, weights 1: expected 1 rejection trial vs 10 edges.
  EXPECT_FALSE(prefersReservoir(4, 1, 10));
  // Equality goes to rejection (strict inequality).
  EXPECT_FALSE(prefersReservoir(4, 1, 4));
  // One huge weight: d = 100, w_max = 1000, W_sum = 1099: rejection would
  // need ~9 trials per sample per edge ratio; reservoir wins.
  EXPECT_TRUE(prefersReservoir(4, 1000, 1099));
  // ... unless rejection trials are very cheap.
  EXPECT_FALSE(prefersReservoir(1.0 / 16, 1000, 1099));
  // node2vec bound on unit weights, p = 2, q = 0.5: w_max = 2; degree 50
  // (W_sum about 75): rejection.
  EXPECT_FALSE(prefersReservoir(4, 2, 75));
  // Nothing positive (or unknown sum): reservoir, which returns no move.
  EXPECT_TRUE(prefersReservoir(4, 1, 0));
  EXPECT_TRUE(prefersReservoir(4, 1, std::nan("")));
  // Unbounded weight: reservoir.
  EXPECT_TRUE(prefersReservoir(4, INFINITY, 10));

  for (double r : {0.5, 4.0, 32.0})
    for (double wMax : {0.0, 1.0, 7.5})
      for (double wSum : {0.0, 3.0, 20.0, 100.0})
        EXPECT_EQ(sluice_sampler_prefers_reservoir(r, wMax, wSum),
                  prefersReservoir(r, wMax, wSum) ? 1 : 0);

  CostModel model(3.0); // an override
  EXPECT_EQ(model.ratio(), 3.0);
  EXPECT_EQ(model.choose(1, 2.5), SamplerKind::Reservoir);
  EXPECT_EQ(model.choose(1, 3.5), SamplerKind::Rejection);
  EXPECT_EQ(CostModel().ratio(), CostModel::kDefaultRatio);
}

TEST(SamplerCostModel, AdaptiveFollowsTheModel) {
  std::vector<double> w = {1, 1, 1, 1};
  auto weight = [&](uint64_t i) { return w[i]; };
  SamplerStats stats;
  WalkRng rng(8, 0, 0);
  sampleAdaptive(4, weight, 1.0, 4.0, CostModel(8.0), rng, &stats);
  EXPECT_EQ(stats.reservoirCalls, 1u);
  EXPECT_EQ(stats.rejectionTrials, 0u);
  sampleAdaptive(4, weight, 1.0, 4.0, CostModel(2.0), rng, &stats);
  EXPECT_EQ(stats.reservoirCalls, 1u);
  EXPECT_EQ(stats.rejectionTrials, 1u); // all weights = bound: accepted
}

TEST(SamplerCostModel, CalibrationIsSane) {
  double r = sluice_sampler_calibrate_cost_ratio();
  EXPECT_TRUE(std::isfinite(r));
  EXPECT_GE(r, 1.0 / 16);
  EXPECT_LE(r, 256.0);
  CostModel model = CostModel::calibrated();
  EXPECT_GE(model.ratio(), 1.0 / 16);
  EXPECT_LE(model.ratio(), 256.0);
}

} // namespace
