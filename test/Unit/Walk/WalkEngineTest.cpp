//===- WalkEngineTest.cpp - sluice_walk_run: determinism, rules, errors ---===//
//
// Output identical for any thread count and interleaving width; stop
// probability gives geometric lengths; walks end at sinks and at vertices
// without a positive candidate; metapath label sequences; random(); stats;
// every bad option or kernel refused with a clear message.
//
//===----------------------------------------------------------------------===//
#include "WalkTestUtil.h"

#include "runtime/src/walk/Sampling.h"

#include "runtime/src/walk/PhiloxLanes.h"
#include "runtime/src/walk/RunPlan.h"

#include <cstring>
#include <map>
#include <set>
#include <tuple>

using namespace sluice::walktest;
using namespace sluice::walkref;

namespace {

/// A directed ring 0 -> 1 -> ... -> n-1 -> 0 plus chords: no sinks.
GraphPtr ring(uint32_t n) {
  std::vector<std::pair<uint32_t, uint32_t>> e;
  for (uint32_t v = 0; v < n; ++v) {
    e.push_back({v, (v + 1) % n});
    e.push_back({v, (v + 3) % n});
  }
  return makeGraph(n, e);
}

TEST(WalkEngine, OptionsDefaults) {
  sluice_walk_options_t o;
  std::memset(&o, 0xff, sizeof(o));
  sluice_walk_options_init(&o);
  EXPECT_EQ(o.max_length, 80u);
  EXPECT_EQ(o.walks_per_vertex, 1u);
  EXPECT_EQ(o.starts, nullptr);
  EXPECT_EQ(o.seed, 0u);
  EXPECT_EQ(o.sampler, SLUICE_WALK_SAMPLER_AUTO);
  EXPECT_EQ(o.cost_ratio, 0.0);
  EXPECT_EQ(o.stop_probability, 0.0);
  EXPECT_EQ(o.quiet, 0);
  sluice_walk_options_init(nullptr); // no crash
}

/// Every workload, every sound sampler: identical bytes for 1, 2, 3, 8
/// threads and several interleaving widths (more walkers than one chunk).
TEST(WalkEngine, DeterministicForAnyThreadCount) {
  GraphPtr email = randomGraph(600, 4000, 3);
  GraphPtr weighted = withSyntheticWeights(email.get(), 7);
  for (Workload w : kAllWorkloads) {
    const sluice_graph_t *g =
        needsWeights(w) ? weighted.get() : email.get();
    const sluice_walk_kernel_t *k = kernel(w);
    Params params(w);
    std::vector<sluice_walk_sampler_t> samplers = {
        SLUICE_WALK_SAMPLER_AUTO, SLUICE_WALK_SAMPLER_REJECTION,
        SLUICE_WALK_SAMPLER_RESERVOIR};
    if (k->weight_class != SLUICE_WALK_WEIGHT_DYNAMIC)
      samplers.push_back(SLUICE_WALK_SAMPLER_ALIAS);
    for (sluice_walk_sampler_t sampler : samplers) {
      std::string reference;
      for (auto [threads, width] :
           std::vector<std::pair<uint32_t, uint32_t>>{
               {1, 0}, {2, 1}, {3, 7}, {8, 64}, {2, 200}}) {
        sluice_walk_options_t o = testOptions();
        applyOptions(w, &o, nullptr);
        o.max_length = 12;
        o.walks_per_vertex = 8; // 4,800 walkers: two chunks
        o.threads = threads;
        o.walkers_per_thread = width;
        o.sampler = sampler;
        Walks out = runWalks(g, k, params.data(), o);
        ASSERT_EQ(out.status, SLUICE_STATUS_OK) << out.error.message;
        ASSERT_EQ(out.walks.size(),
                  sluice_graph_num_vertices(g) * o.walks_per_vertex);
        EXPECT_EQ(out.stats.walks, out.walks.size());
        if (reference.empty())
          reference = out.bytes;
        else
          EXPECT_TRUE(out.bytes == reference)
              << name(w) << " sampler " << sampler << " threads " << threads
              << " width " << width << " differs";
      }
    }
  }
}

TEST(WalkEngine, WalkerOrderAndStarts) {
  GraphPtr g = ring(10);
  const uint32_t starts[] = {3, 7, 3};
  sluice_walk_options_t o = testOptions();
  o.starts = starts;
  o.num_starts = 3;
  o.walks_per_vertex = 4;
  o.max_length = 5;
  Params params(Workload::DeepWalk);
  Walks out = runWalks(g.get(), kernel(Workload::DeepWalk), params.data(), o);
  ASSERT_EQ(out.status, SLUICE_STATUS_OK) << out.error.message;
  ASSERT_EQ(out.walks.size(), 12u);
  for (size_t i = 0; i < 12; ++i) {
    ASSERT_EQ(out.walks[i].size(), 5u);
    EXPECT_EQ(out.walks[i][0], starts[i / 4]);
    for (size_t j = 1; j < 5; ++j)
      EXPECT_TRUE(sluice_graph_has_edge(g.get(), out.walks[i][j - 1],
                                        out.walks[i][j]));
  }
  EXPECT_EQ(out.stats.steps, 12u * 4);
  // Walks 0 and 8 start at the same vertex but are different walkers.
  EXPECT_EQ(out.walks[0][0], out.walks[8][0]);
  // Same run without a writer: same stats.
  sluice_walk_stats_t stats;
  ASSERT_EQ(sluice_walk_run(g.get(), kernel(Workload::DeepWalk),
                            params.data(), &o, nullptr, &stats, nullptr),
            SLUICE_STATUS_OK);
  EXPECT_EQ(stats.steps, out.stats.steps);
  EXPECT_EQ(stats.walks, 12u);
  EXPECT_EQ(stats.alias_steps, stats.steps);
}

/// Lengths under stop probability p on a graph without sinks:
/// P(length = k) = (1 - p)^(k-1) p for k < L, the rest at L.
TEST(WalkEngine, StopProbabilityGivesGeometricLengths) {
  GraphPtr g = ring(50);
  const double p = 0.2;
  const uint32_t L = 30;
  for (sluice_walk_sampler_t sampler :
       {SLUICE_WALK_SAMPLER_ALIAS, SLUICE_WALK_SAMPLER_REJECTION,
        SLUICE_WALK_SAMPLER_RESERVOIR}) {
    sluice_walk_options_t o = testOptions();
    o.stop_probability = p;
    o.max_length = L;
    o.walks_per_vertex = 2000; // 100,000 walks
    o.sampler = sampler;
    Params params(Workload::PPR);
    Walks out = runWalks(g.get(), kernel(Workload::PPR), params.data(), o);
    ASSERT_EQ(out.status, SLUICE_STATUS_OK) << out.error.message;
    std::vector<uint64_t> counts(L + 1, 0);
    for (auto &walk : out.walks)
      ++counts[walk.size()];
    std::vector<double> probs(L + 1, 0);
    for (uint32_t k = 1; k < L; ++k)
      probs[k] = std::pow(1 - p, k - 1) * p;
    probs[L] = std::pow(1 - p, L - 1);
    Fit fit = chiSquare(counts, probs);
    EXPECT_TRUE(fit.passes()) << fit.describe();
    // And a wrong p is rejected by the same statistic.
    std::vector<double> wrong(L + 1, 0);
    for (uint32_t k = 1; k < L; ++k)
      wrong[k] = std::pow(1 - 0.22, k - 1) * 0.22;
    wrong[L] = std::pow(1 - 0.22, L - 1);
    EXPECT_FALSE(chiSquare(counts, wrong).passes());
  }
}

TEST(WalkEngine, StopProbabilityOneAndMaxLengthOne) {
  GraphPtr g = ring(5);
  Params params(Workload::DeepWalk);
  sluice_walk_options_t o = testOptions();
  o.stop_probability = 1.0;
  Walks out = runWalks(g.get(), kernel(Workload::DeepWalk), params.data(), o);
  ASSERT_EQ(out.status, SLUICE_STATUS_OK);
  for (size_t i = 0; i < out.walks.size(); ++i)
    EXPECT_EQ(out.walks[i], std::vector<uint32_t>{uint32_t(i)});
  o.stop_probability = 0;
  o.max_length = 1;
  out = runWalks(g.get(), kernel(Workload::DeepWalk), params.data(), o);
  ASSERT_EQ(out.status, SLUICE_STATUS_OK);
  EXPECT_EQ(out.stats.steps, 0u);
  for (size_t i = 0; i < out.walks.size(); ++i)
    EXPECT_EQ(out.walks[i], std::vector<uint32_t>{uint32_t(i)});
}

/// 0 -> 1 -> 2 (sink), 3 isolated; zero-weight edge 4 -> 5 only.
TEST(WalkEngine, EndsAtSinksAndZeroWeightVertices) {
  GraphPtr g = makeGraph(6, {{0, 1}, {1, 2}, {4, 5}}, {1.0f, 2.0f, 0.0f});
  for (Workload w : {Workload::DeepWalk, Workload::Node2Vec}) {
    for (sluice_walk_sampler_t sampler :
         {SLUICE_WALK_SAMPLER_AUTO, SLUICE_WALK_SAMPLER_REJECTION,
          SLUICE_WALK_SAMPLER_RESERVOIR}) {
      sluice_walk_options_t o = testOptions();
      o.sampler = sampler;
      Params params(w);
      Walks out = runWalks(g.get(), kernel(w), params.data(), o);
      ASSERT_EQ(out.status, SLUICE_STATUS_OK) << out.error.message;
      ASSERT_EQ(out.walks.size(), 6u);
      EXPECT_EQ(out.walks[0], (std::vector<uint32_t>{0, 1, 2}));
      EXPECT_EQ(out.walks[1], (std::vector<uint32_t>{1, 2}));
      EXPECT_EQ(out.walks[2], (std::vector<uint32_t>{2}));
      EXPECT_EQ(out.walks[3], (std::vector<uint32_t>{3}));
      EXPECT_EQ(out.walks[4], (std::vector<uint32_t>{4})) << name(w);
      EXPECT_EQ(out.walks[5], (std::vector<uint32_t>{5}));
      EXPECT_EQ(out.stats.steps, 3u);
    }
  }
}

/// DeepWalk's kernel with weight `weight` bounded by `upper` alone (no
/// lower or sum bounds), `flags` and `weightClass`.
sluice_walk_kernel_t kernelWith(sluice_walk_weight_fn_t weight,
                                sluice_walk_bound_fn_t upper, uint32_t flags,
                                sluice_walk_weight_class_t weightClass) {
  sluice_walk_kernel_t k = *kernel(Workload::DeepWalk);
  k.weight = weight;
  k.upper_bound = upper;
  k.lower_bound = nullptr;
  k.sum_upper_bound = nullptr;
  k.sum_lower_bound = nullptr;
  k.flags = flags;
  k.weight_class = weightClass;
  return k;
}

/// A kernel's weight that comes out negative at run time (walk.h: "values
/// <= 0 (and NaN) mean never"; docs/language.md, 10.1) weighs as 0 under
/// every sampler: such an edge is never taken, and a vertex whose weights
/// are all negative ends the walk.
double negativeToOdd(const sluice_walk_frame_t *, uint32_t next, uint64_t,
                     double w) {
  return next % 2 ? -w : w;
}
double maxWeight(const sluice_walk_frame_t *f) {
  return sluice_graph_weight_max(f->graph, f->cur);
}

TEST(WalkEngine, NegativeKernelWeightsAreNeverTaken) {
  // 0 -> {1, 2, 3, 4}; 2 -> {0, 1, 3}; 4 -> {1, 3} (only negative weights);
  // 1 -> 0 and 3 -> 0.
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  for (uint32_t target : {1, 2, 3, 4})
    edges.push_back({0, target});
  for (uint32_t target : {0, 1, 3})
    edges.push_back({2, target});
  edges.insert(edges.end(), {{1, 0}, {3, 0}, {4, 1}, {4, 3}});
  GraphPtr g = makeGraph(5, edges, {1, 2, 3, 4, 1, 5, 5, 1, 1, 2, 2});
  sluice_walk_kernel_t k =
      kernelWith(negativeToOdd, maxWeight, SLUICE_WALK_MAY_BE_ZERO,
                 SLUICE_WALK_WEIGHT_STATIC);
  for (sluice_walk_sampler_t sampler :
       {SLUICE_WALK_SAMPLER_AUTO, SLUICE_WALK_SAMPLER_REJECTION,
        SLUICE_WALK_SAMPLER_RESERVOIR, SLUICE_WALK_SAMPLER_ALIAS}) {
    sluice_walk_options_t o = testOptions();
    o.sampler = sampler;
    o.max_length = 12;
    o.walks_per_vertex = 40;
    Walks out = runWalks(g.get(), &k, nullptr, o);
    ASSERT_EQ(out.status, SLUICE_STATUS_OK) << out.error.message;
    ASSERT_EQ(out.walks.size(), 5u * 40);
    uint64_t endsAtFour = 0;
    for (const std::vector<uint32_t> &walk : out.walks) {
      for (size_t i = 1; i < walk.size(); ++i)
        EXPECT_EQ(walk[i] % 2, 0u) << "sampler " << sampler << ": step " << i;
      // Only at 4 (all weights negative) does a walk end early.
      if (walk.size() < o.max_length) {
        EXPECT_EQ(walk.back(), 4u) << "sampler " << sampler;
        ++endsAtFour;
      }
    }
    EXPECT_GT(endsAtFour, 0u) << "sampler " << sampler;
  }
}

/// A static walk without stop or update function (DeepWalk; with a stop
/// probability, PPR) runs in the engine's specialised alias loop; the same
/// kernel with a stop function that never stops runs in the general one.
/// Both must give the same bytes and counts, also with sinks, zero-weight
/// vertices, walks of one vertex, stop probabilities 0, 0.3 and 1 and any
/// thread count and interleaving width.
int neverStop(const sluice_walk_frame_t *) { return 0; }

TEST(WalkEngine, AliasFastPathMatchesGeneralPath) {
  // Directed, weighted, with sinks and all-zero-weight vertices.
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  std::vector<float> weights;
  uint64_t x = 99;
  for (uint32_t i = 0; i < 6000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t u = static_cast<uint32_t>((x >> 33) % 700);
    uint32_t v = static_cast<uint32_t>((x >> 13) % 700);
    if (u % 50 == 7)
      continue; // sinks
    edges.push_back({u, v});
    weights.push_back(u % 40 == 3 ? 0.0f : float((x >> 5) % 7) + 0.5f);
  }
  GraphPtr g = makeGraph(700, edges, weights);
  sluice_walk_kernel_t general = *kernel(Workload::DeepWalk);
  general.stop = neverStop;
  for (double stop : {0.0, 0.3, 1.0})
    for (uint32_t length : {1u, 2u, 6u, 13u}) {
      std::string reference;
      uint64_t steps = 0;
      for (auto [threads, width] : std::vector<std::pair<uint32_t, uint32_t>>{
               {1, 0}, {2, 1}, {3, 7}, {2, 200}}) {
        const sluice_walk_kernel_t *fast = kernel(Workload::DeepWalk);
        const sluice_walk_kernel_t *both[] = {fast, &general};
        for (const sluice_walk_kernel_t *k : both) {
          sluice_walk_options_t o = testOptions();
          o.max_length = length;
          o.walks_per_vertex = 7; // 4,900 walkers: two chunks
          o.threads = threads;
          o.walkers_per_thread = width;
          o.sampler = SLUICE_WALK_SAMPLER_ALIAS;
          o.stop_probability = stop;
          Walks out = runWalks(g.get(), k, nullptr, o);
          ASSERT_EQ(out.status, SLUICE_STATUS_OK) << out.error.message;
          ASSERT_EQ(out.walks.size(), 4900u);
          EXPECT_EQ(out.stats.walks, 4900u);
          EXPECT_EQ(out.stats.alias_steps, out.stats.steps);
          if (reference.empty()) {
            reference = out.bytes;
            steps = out.stats.steps;
            if (stop == 1.0 || length == 1) {
              EXPECT_EQ(steps, 0u);
            } else if (stop == 0) {
              EXPECT_GT(steps, uint64_t(length - 1) * 4900 / 2);
            } else { // a step survives the coin with probability 0.7
              EXPECT_GT(steps, 4900u / 4);
            }
            continue;
          }
          EXPECT_TRUE(out.bytes == reference)
              << "stop " << stop << " length " << length << " threads "
              << threads << " width " << width
              << (k == &general ? " general" : " fast") << " differs";
          EXPECT_EQ(out.stats.steps, steps);
        }
      }
    }
}

/// An unweighted walk (a CONSTANT weight) without stop, update or state,
/// with or without a stop probability, runs in the engine's specialised
/// uniform loop (no table, the index from the degree); engine_flags
/// SLUICE_WALK_ENGINE_GENERIC sends it through the general loop. Both must
/// give the same bytes and counts, with sinks, walks of one vertex, a
/// vertex of high degree, stop probabilities 0, 0.3 and 1, any thread
/// count and width; a constant that is not positive ends every walk at its
/// start in both.
double constantWeight(const sluice_walk_frame_t *f, uint32_t, uint64_t,
                      double) {
  return *static_cast<const double *>(f->params);
}

TEST(WalkEngine, UniformFastPathMatchesGeneralPath) {
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  uint64_t x = 7;
  for (uint32_t i = 0; i < 6000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t u = static_cast<uint32_t>((x >> 33) % 700);
    uint32_t v = static_cast<uint32_t>((x >> 13) % 700);
    if (u % 50 == 7)
      continue; // sinks
    edges.push_back({u, v});
  }
  for (uint32_t v = 0; v < 700; ++v)
    if (v % 50 != 7)
      edges.push_back({3, v}); // vertex 3: degree above 680
  GraphPtr g = makeGraph(700, edges, {});
  sluice_walk_kernel_t k = *kernel(Workload::DeepWalk);
  k.weight = constantWeight;
  k.weight_class = SLUICE_WALK_WEIGHT_CONSTANT;
  k.flags = 0;
  for (double stop : {0.0, 0.3, 1.0})
    for (double constant : {1.0, 2.5, 0.0, -1.0}) {
      for (uint32_t length : {1u, 2u, 6u, 13u}) {
        std::string reference;
        uint64_t steps = 0;
        for (auto [threads, width] : std::vector<std::pair<uint32_t, uint32_t>>{
                 {1, 0}, {2, 1}, {3, 7}, {2, 200}}) {
          for (uint32_t flags : {0u, uint32_t(SLUICE_WALK_ENGINE_GENERIC)}) {
            sluice_walk_options_t o = testOptions();
            o.max_length = length;
            o.walks_per_vertex = 7; // 4,900 walkers: two chunks
            o.threads = threads;
            o.walkers_per_thread = width;
            o.engine_flags = flags;
            o.stop_probability = stop;
            Walks out = runWalks(g.get(), &k, &constant, o);
            ASSERT_EQ(out.status, SLUICE_STATUS_OK) << out.error.message;
            ASSERT_EQ(out.walks.size(), 4900u);
            EXPECT_EQ(out.stats.alias_steps, out.stats.steps);
            if (reference.empty()) {
              reference = out.bytes;
              steps = out.stats.steps;
              if (constant <= 0 || length == 1 || stop == 1.0)
                EXPECT_EQ(steps, 0u);
              else if (stop == 0)
                EXPECT_GT(steps, uint64_t(length - 1) * 4900 / 2);
              else // a step survives the coin with probability 0.7
                EXPECT_GT(steps, 4900u / 4);
              continue;
            }
            EXPECT_TRUE(out.bytes == reference)
                << "stop " << stop << " constant " << constant << " length "
                << length << " threads " << threads << " width " << width
                << (flags ? " general" : " fast") << " differs";
            EXPECT_EQ(out.stats.steps, steps);
          }
        }
      }
    }
}

/// A graph whose offsets and edges are 16 MiB or more is walked from
/// copies on huge pages (kernels see them through frame->graph, so
/// has_edge reads them too) with engine_flags SLUICE_WALK_ENGINE_HUGE_PAGES
/// walks the graph's own arrays. The walks are the same bytes, for the
/// alias, uniform and rejection loops and the general one.
TEST(WalkEngine, HugePageCopiesGiveTheSameWalks) {
  GraphPtr g = randomGraph(2200000, 2300000, 11); // 17.6 MB of offsets
  ASSERT_GE(sluice_graph_num_edges(g.get()) * 4, uint64_t(16) << 20);
  GraphPtr weighted = withSyntheticWeights(g.get(), 3);
  std::vector<uint32_t> starts;
  for (uint32_t v = 0; v < 2200000; v += 733)
    starts.push_back(v);
  struct Case {
    Workload w;
    sluice_walk_sampler_t sampler;
    uint32_t flags;
  };
  for (Case c : {Case{Workload::DeepWalk, SLUICE_WALK_SAMPLER_ALIAS, 0},
                 Case{Workload::UniformDeepWalk, SLUICE_WALK_SAMPLER_AUTO, 0},
                 Case{Workload::Node2Vec, SLUICE_WALK_SAMPLER_AUTO, 0},
                 Case{Workload::Node2Vec, SLUICE_WALK_SAMPLER_REJECTION,
                      SLUICE_WALK_ENGINE_GENERIC}}) {
    const sluice_graph_t *graph =
        c.w == Workload::DeepWalk ? weighted.get() : g.get();
    Params params(c.w);
    std::string reference;
    for (uint32_t huge : {uint32_t(SLUICE_WALK_ENGINE_HUGE_PAGES), 0u}) {
      sluice_walk_options_t o = testOptions();
      o.starts = starts.data();
      o.num_starts = starts.size();
      o.max_length = 10;
      o.threads = 2;
      o.sampler = c.sampler;
      o.engine_flags = c.flags | huge;
      Walks out = runWalks(graph, kernel(c.w), params.data(), o);
      ASSERT_EQ(out.status, SLUICE_STATUS_OK) << out.error.message;
      EXPECT_GT(out.stats.steps, starts.size() * 4);
      if (reference.empty())
        reference = out.bytes;
      else
        EXPECT_TRUE(out.bytes == reference) << name(c.w) << " differs";
    }
  }
}

/// Second-order kernels (node2vec, weighted node2vec, ppr2) with the hubs'
/// neighbour sets (forced on with SLUICE_WALK_ENGINE_EDGE_SETS, off with
/// NO_EDGE_SETS) give the same bytes: on a skewed random graph and on a
/// multigraph with duplicate edges and self loops, through the rejection
/// loop, the general loop and reservoir; the stats count the sets only
/// when they were built. A small graph gets none by default.
TEST(WalkEngine, HubNeighbourSetsGiveTheSameWalks) {
  GraphPtr skewed = randomGraph(4000, 60000, 5);
  std::vector<std::pair<uint32_t, uint32_t>> e;
  for (uint32_t v = 0; v < 300; ++v) {
    e.push_back({0, v});
    e.push_back({v, 0});
    e.push_back({0, v}); // duplicates
    if (v % 2)
      e.push_back({v, 1}), e.push_back({1, v});
    e.push_back({v, (v + 1) % 300});
    e.push_back({(v + 1) % 300, v});
  }
  e.push_back({0, 0});
  e.push_back({1, 1});
  GraphPtr multi = makeGraph(300, e);
  for (const sluice_graph_t *g : {skewed.get(), multi.get()}) {
    GraphPtr weighted = withSyntheticWeights(g, 9);
    for (Workload w :
         {Workload::Node2Vec, Workload::WeightedNode2Vec, Workload::PPR2}) {
      const sluice_graph_t *graph = needsWeights(w) ? weighted.get() : g;
      Params params(w);
      for (auto [sampler, flags] :
           {std::pair{SLUICE_WALK_SAMPLER_AUTO, 0u},
            std::pair{SLUICE_WALK_SAMPLER_REJECTION,
                      uint32_t(SLUICE_WALK_ENGINE_GENERIC)},
            std::pair{SLUICE_WALK_SAMPLER_RESERVOIR, 0u}}) {
        std::string reference;
        for (uint32_t sets : {uint32_t(SLUICE_WALK_ENGINE_NO_EDGE_SETS), 0u,
                              uint32_t(SLUICE_WALK_ENGINE_EDGE_SETS)}) {
          sluice_walk_options_t o = testOptions();
          applyOptions(w, &o, nullptr);
          o.max_length = 20;
          o.walks_per_vertex = 2;
          o.sampler = sampler;
          o.engine_flags = flags | sets;
          Walks out = runWalks(graph, kernel(w), params.data(), o);
          ASSERT_EQ(out.status, SLUICE_STATUS_OK) << out.error.message;
          std::string what = std::string(name(w)) + " sampler " +
                             std::to_string(int(sampler)) + " flags " +
                             std::to_string(o.engine_flags);
          if (sets == SLUICE_WALK_ENGINE_EDGE_SETS) {
            EXPECT_GT(out.stats.edge_set_vertices, 0u) << what;
            EXPECT_GT(out.stats.edge_set_bytes, 0u) << what;
          } else {
            EXPECT_EQ(out.stats.edge_set_vertices, 0u) << what;
            EXPECT_EQ(out.stats.edge_set_bytes, 0u) << what;
          }
          EXPECT_GT(out.stats.steps, uint64_t(1000)) << what;
          if (reference.empty())
            reference = out.bytes;
          else
            EXPECT_TRUE(out.bytes == reference) << what << " differs";
        }
      }
    }
  }
}

/// Rejection and Auto runs of a kernel without stop, update, init or state,
/// with or without a stop probability (node2vec, weighted node2vec,
/// second-order PPR, DeepWalk forced to rejection, a weight that draws
/// random()) take the engine's specialised rejection loop; engine_flags
/// SLUICE_WALK_ENGINE_GENERIC sends them through the general one, and
/// SLUICE_WALK_ENGINE_NO_PRE_ACCEPT turns off pre-acceptance by the lower
/// bound. Both must give the same bytes and counts: with sinks, zero-weight
/// vertices, walks of one and two vertices, a cost ratio that mixes reservoir
/// and rejection steps, a too-small bound (violations and fallbacks), stop
/// probabilities 0 and 0.25 (the stop coin moves every trial's words two places
/// along the stream), any thread count and interleaving width.
/// The options the rejection loop's tests run each kernel under: stop
/// probabilities 0 and 0.25, rejection and auto, walks of 1, 2 and
/// `longWalk` vertices, 1 to 3 threads, widths 1 to 300 and cost ratios
/// that mix reservoir and rejection steps; `f(options, description)`.
template <class F>
void forEachRejectionCase(uint32_t longWalk, uint32_t walksPerVertex, F &&f) {
  for (double stop : {0.0, 0.25})
    for (sluice_walk_sampler_t sampler :
         {SLUICE_WALK_SAMPLER_REJECTION, SLUICE_WALK_SAMPLER_AUTO})
      for (uint32_t length : {1u, 2u, longWalk})
        for (auto [threads, width, ratio] :
             std::vector<std::tuple<uint32_t, uint32_t, double>>{
                 {1, 0, 1.0}, {2, 1, 3.0}, {3, 7, 0.5}, {2, 300, 8.0}}) {
          sluice_walk_options_t o = testOptions();
          o.max_length = length;
          o.walks_per_vertex = walksPerVertex;
          o.threads = threads;
          o.walkers_per_thread = width;
          o.sampler = sampler;
          o.cost_ratio = ratio;
          o.stop_probability = stop;
          f(o, " stop " + std::to_string(stop) + " sampler " +
                   std::to_string(sampler) + " length " +
                   std::to_string(length) + " threads " +
                   std::to_string(threads) + " width " + std::to_string(width));
        }
}

/// Runs `o` on the loop the plan picks and again through the general loop
/// (SLUICE_WALK_ENGINE_GENERIC): the same bytes and sampler counters.
/// Returns the first run.
Walks expectSameAsGeneral(const sluice_graph_t *g,
                          const sluice_walk_kernel_t *k, const void *params,
                          sluice_walk_options_t o, const std::string &where) {
  Walks fast = runWalks(g, k, params, o);
  o.engine_flags |= SLUICE_WALK_ENGINE_GENERIC;
  Walks general = runWalks(g, k, params, o);
  EXPECT_EQ(fast.status, SLUICE_STATUS_OK) << fast.error.message;
  EXPECT_EQ(general.status, SLUICE_STATUS_OK) << general.error.message;
  EXPECT_TRUE(fast.bytes == general.bytes) << where << " differs";
  EXPECT_EQ(fast.stats.walks, general.stats.walks) << where;
  EXPECT_EQ(fast.stats.steps, general.stats.steps) << where;
  EXPECT_EQ(fast.stats.rejection_steps, general.stats.rejection_steps) << where;
  EXPECT_EQ(fast.stats.reservoir_steps, general.stats.reservoir_steps) << where;
  EXPECT_EQ(fast.stats.rejection_trials, general.stats.rejection_trials)
      << where;
  EXPECT_EQ(fast.stats.pre_accepted, general.stats.pre_accepted) << where;
  EXPECT_EQ(fast.stats.bound_violations, general.stats.bound_violations)
      << where;
  return fast;
}

double randomWeight(const sluice_walk_frame_t *f, uint32_t, uint64_t, double);
double lowBound(const sluice_walk_frame_t *f) {
  return 0.3 * sluice_graph_weight_max(f->graph, f->cur);
}
double randomUpper(const sluice_walk_frame_t *) { return 1.0; }

TEST(WalkEngine, RejectionFastPathMatchesGeneralPath) {
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  std::vector<float> weights;
  uint64_t x = 4242;
  const uint32_t n = 500;
  for (uint32_t i = 0; i < 2500; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t u = static_cast<uint32_t>((x >> 33) % n);
    uint32_t v = static_cast<uint32_t>((x >> 13) % n);
    if (u % 37 == 5 || v % 37 == 5)
      continue; // isolated vertices (sinks)
    float w = u % 29 == 3 || v % 29 == 3 ? 0.0f : float((x >> 5) % 7) + 0.5f;
    edges.push_back({u, v});
    edges.push_back({v, u});
    weights.push_back(w);
    weights.push_back(w);
  }
  // A long path (degree 2 and 1: many rejections, as on road networks).
  for (uint32_t v = n; v + 1 < n + 60; ++v) {
    edges.push_back({v, v + 1});
    edges.push_back({v + 1, v});
    weights.push_back(1.0f);
    weights.push_back(1.0f);
  }
  GraphPtr g = makeGraph(n + 60, edges, weights);
  sluice_walk_kernel_t loose = *kernel(Workload::DeepWalk);
  loose.upper_bound = lowBound;
  sluice_walk_kernel_t random =
      kernelWith(randomWeight, randomUpper, 0, SLUICE_WALK_WEIGHT_DYNAMIC);
  struct Case {
    const char *what;
    const sluice_walk_kernel_t *k;
    Workload params;
  } cases[] = {
      {"node2vec", kernel(Workload::Node2Vec), Workload::Node2Vec},
      {"wnode2vec", kernel(Workload::WeightedNode2Vec),
       Workload::WeightedNode2Vec},
      {"deepwalk", kernel(Workload::DeepWalk), Workload::DeepWalk},
      {"too-small bound", &loose, Workload::DeepWalk},
      {"random weight", &random, Workload::DeepWalk},
      {"ppr2", kernel(Workload::PPR2), Workload::PPR2},
  };
  for (const Case &c : cases)
    forEachRejectionCase(
        40, 5, [&](const sluice_walk_options_t &o, const std::string &what) {
          Params params(c.params);
          std::string where = c.what + what;
          Walks fast =
              expectSameAsGeneral(g.get(), c.k, params.data(), o, where);
          EXPECT_EQ(fast.walks.size(), size_t(n + 60) * 5) << where;
          if (o.max_length == 40 && c.k == &loose && o.stop_probability == 0 &&
              o.sampler == SLUICE_WALK_SAMPLER_REJECTION) {
            EXPECT_GT(fast.stats.bound_violations, 0u) << where;
          }
        });
}

/// A kernel with every hook, each drawing random(): init picks a colour
/// (state 0) and zeroes a step count (state 1); stop ends some walks after
/// three steps; the weight depends on the colour and draws; update
/// recolours from the vertex taken and counts. The draws of a step run
/// across stop, the weights and update, so a loop that reset or skipped
/// them where the general loop does not would walk differently.
void hookInit(sluice_walk_frame_t *f) {
  f->state[0] = static_cast<int64_t>(sluice_walk_random(f) * 3);
  f->state[1] = 0;
}
int hookStop(const sluice_walk_frame_t *f) {
  return f->state[1] >= 3 && sluice_walk_random(f) < 0.2;
}
double hookWeight(const sluice_walk_frame_t *f, uint32_t next, uint64_t,
                  double w) {
  double r = sluice_walk_random(f);
  return (next + f->state[0]) % 3 == 0 ? 0.0 : w * (1.0 + r);
}
void hookUpdate(sluice_walk_frame_t *f, uint32_t next) {
  f->state[0] = (f->state[0] + next + (sluice_walk_random(f) < 0.5)) % 3;
  f->state[1] += 1;
}
double hookUpper(const sluice_walk_frame_t *f) {
  return 2.0 * sluice_graph_weight_max(f->graph, f->cur);
}

/// Kernels with init, stop, update or state (metapath; the hooks above)
/// take the rejection loop with the hooks as its policy: the same bytes and
/// counts as the general loop (SLUICE_WALK_ENGINE_GENERIC), with and
/// without a stop probability, for any thread count and width, rejection
/// and Auto (reservoir steps mixed in by the cost ratio).
TEST(WalkEngine, HookedKernelsFastPathMatchesGeneralPath) {
  GraphPtr labelled = randomGraph(1500, 9000, 21);
  GraphPtr weighted = withSyntheticWeights(labelled.get(), 4);
  sluice_walk_kernel_t hooks =
      kernelWith(hookWeight, hookUpper, SLUICE_WALK_MAY_BE_ZERO,
                 SLUICE_WALK_WEIGHT_DYNAMIC);
  hooks.init = hookInit;
  hooks.stop = hookStop;
  hooks.update = hookUpdate;
  hooks.num_state = 2;
  struct Case {
    const char *what;
    const sluice_walk_kernel_t *k;
    Workload params;
    const sluice_graph_t *g;
  } cases[] = {
      {"metapath", kernel(Workload::MetaPath), Workload::MetaPath,
       labelled.get()},
      {"hooks", &hooks, Workload::DeepWalk, weighted.get()},
  };
  // The plan picks the rejection loop (the hooks its policy), unless told
  // otherwise.
  for (const Case &c : cases)
    for (uint32_t flags : {0u, uint32_t(SLUICE_WALK_ENGINE_GENERIC)}) {
      Params params(c.params);
      sluice_walk_options_t o = testOptions();
      o.sampler = SLUICE_WALK_SAMPLER_REJECTION;
      o.cost_ratio = 1.0;
      o.engine_flags = flags;
      sluice::walkengine::RunPlan plan;
      sluice_error_t error;
      ASSERT_EQ(sluice::walkengine::planRun(c.g, c.k, params.data(), o, nullptr,
                                            plan, &error),
                SLUICE_STATUS_OK)
          << error.message;
      EXPECT_EQ(plan.loop, flags ? sluice::walkengine::Loop::General
                                 : sluice::walkengine::Loop::Rejection)
          << c.what;
    }
  for (const Case &c : cases)
    forEachRejectionCase(
        30, 2, [&](const sluice_walk_options_t &o, const std::string &what) {
          Params params(c.params);
          std::string where = c.what + what;
          Walks fast = expectSameAsGeneral(c.g, c.k, params.data(), o, where);
          EXPECT_EQ(fast.walks.size(), size_t(1500) * 2) << where;
          if (o.max_length == 30) {
            EXPECT_GT(fast.stats.steps, uint64_t(1500)) << where;
          }
        });
}

/// Pre-acceptance by the per-vertex lower bound skips weight evaluations,
/// never a random number: SLUICE_WALK_ENGINE_NO_PRE_ACCEPT gives the same
/// walks and steps with no trial pre-accepted, on either loop.
TEST(WalkEngine, PreAcceptanceChangesNoWalk) {
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  std::vector<float> weights;
  const uint32_t n = 300;
  uint64_t x = 99;
  for (uint32_t i = 0; i < 2000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t u = static_cast<uint32_t>((x >> 33) % n);
    uint32_t v = static_cast<uint32_t>((x >> 13) % n);
    float w = float((x >> 5) % 5) + 1.0f;
    edges.push_back({u, v});
    edges.push_back({v, u});
    weights.push_back(w);
    weights.push_back(w);
  }
  GraphPtr g = makeGraph(n, edges, weights);
  for (Workload w : {Workload::Node2Vec, Workload::WeightedNode2Vec})
    for (uint32_t generic : {0u, SLUICE_WALK_ENGINE_GENERIC}) {
      Params params(w);
      sluice_walk_options_t o = testOptions();
      o.sampler = SLUICE_WALK_SAMPLER_REJECTION;
      o.max_length = 30;
      o.walks_per_vertex = 3;
      o.engine_flags = generic;
      Walks with = runWalks(g.get(), kernel(w), params.data(), o);
      o.engine_flags = generic | SLUICE_WALK_ENGINE_NO_PRE_ACCEPT;
      Walks without = runWalks(g.get(), kernel(w), params.data(), o);
      ASSERT_EQ(with.status, SLUICE_STATUS_OK) << with.error.message;
      ASSERT_EQ(without.status, SLUICE_STATUS_OK) << without.error.message;
      EXPECT_TRUE(with.bytes == without.bytes);
      EXPECT_EQ(with.stats.steps, without.stats.steps);
      EXPECT_EQ(with.stats.rejection_trials, without.stats.rejection_trials);
      EXPECT_GT(with.stats.pre_accepted, 0u);
      EXPECT_EQ(without.stats.pre_accepted, 0u);
    }
}

TEST(WalkEngine, UnknownEngineFlagsAreRejected) {
  GraphPtr g = makeGraph(2, {{0, 1}, {1, 0}}, {});
  Params params(Workload::DeepWalk);
  sluice_walk_options_t o = testOptions();
  o.engine_flags = 0x20;
  Walks out = runWalks(g.get(), kernel(Workload::DeepWalk), params.data(), o);
  EXPECT_EQ(out.status, SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(out.error.message)
                .find("engine_flags has unknown "
                      "bits 32"),
            std::string::npos)
      << out.error.message;
}

/// Every step of a metapath walk goes to the schema's next label; a walk
/// that ends early is at a vertex without a neighbour of that label.
TEST(WalkEngine, MetaPathFollowsSchema) {
  GraphPtr email = randomGraph(1000, 8000, 5);
  const sluice_graph_t *g = email.get();
  const int64_t schema[] = {0, 1, 2, 3, 4};
  for (sluice_walk_sampler_t sampler :
       {SLUICE_WALK_SAMPLER_AUTO, SLUICE_WALK_SAMPLER_REJECTION,
        SLUICE_WALK_SAMPLER_RESERVOIR}) {
    sluice_walk_options_t o = testOptions();
    o.sampler = sampler;
    o.walks_per_vertex = 3;
    Params params(Workload::MetaPath);
    Walks out = runWalks(g, kernel(Workload::MetaPath), params.data(), o);
    ASSERT_EQ(out.status, SLUICE_STATUS_OK) << out.error.message;
    uint64_t early = 0, full = 0;
    for (auto &walk : out.walks) {
      for (size_t i = 1; i < walk.size(); ++i)
        ASSERT_EQ(sluice_graph_vertex_label(g, walk[i]), schema[i % 5]);
      if (walk.size() < o.max_length) {
        ++early;
        uint32_t last = walk.back();
        const uint64_t *off = sluice_graph_offsets(g);
        const uint32_t *tg = sluice_graph_targets(g);
        for (uint64_t e = off[last]; e < off[last + 1]; ++e)
          EXPECT_NE(sluice_graph_vertex_label(g, tg[e]),
                    schema[walk.size() % 5]);
      } else {
        ++full;
      }
    }
    EXPECT_GT(early, 0u);
    EXPECT_GT(full, 0u);
  }
}

/// random() in a kernel: in [0, 1), a pure function of (seed, walker,
/// step, draw), advancing within a step, different across steps/walkers.
TEST(WalkEngine, RandomStream) {
  uint64_t draws = 0;
  sluice_walk_frame_t f;
  std::memset(&f, 0, sizeof(f));
  f.seed = 99;
  f.walker = 5;
  f.step = 3;
  f.random_draws = &draws;
  double a = sluice_walk_random(&f), b = sluice_walk_random(&f),
         c = sluice_walk_random(&f);
  EXPECT_EQ(draws, 3u);
  EXPECT_NE(a, b);
  EXPECT_NE(b, c);
  draws = 0;
  EXPECT_EQ(sluice_walk_random(&f), a);
  EXPECT_EQ(sluice_walk_random(&f), b);
  draws = 0;
  f.step = 4;
  EXPECT_NE(sluice_walk_random(&f), a);
  draws = 0;
  f.step = 3;
  f.walker = 6;
  EXPECT_NE(sluice_walk_random(&f), a);
  // Uniform in [0, 1): mean and range over many draws.
  draws = 0;
  double sum = 0;
  for (int i = 0; i < 100000; ++i) {
    double u = sluice_walk_random(&f);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  EXPECT_NEAR(sum / 100000, 0.5, 0.005);
}

/// A kernel whose weight is random() (a random walk with random weights):
/// it runs, and deterministically.
double randomWeight(const sluice_walk_frame_t *f, uint32_t, uint64_t, double) {
  return sluice_walk_random(f);
}
int stopAtStep(const sluice_walk_frame_t *f) { return f->step >= 6; }
void initState(sluice_walk_frame_t *f) { f->state[0] = 100; }
void countUpdate(sluice_walk_frame_t *f, uint32_t next) {
  f->state[0] += 1;
  EXPECT_EQ(f->state[0] - 100, f->step + 1);
  EXPECT_TRUE(sluice_graph_has_edge(f->graph, f->cur, next));
}

TEST(WalkEngine, StopFunctionInitAndUpdate) {
  GraphPtr g = ring(20);
  sluice_walk_kernel_t k;
  std::memset(&k, 0, sizeof(k));
  k.abi_version = SLUICE_WALK_ABI_VERSION;
  k.name = "random";
  k.weight_class = SLUICE_WALK_WEIGHT_DYNAMIC;
  k.flags = SLUICE_WALK_UNBOUNDED | SLUICE_WALK_MAY_BE_ZERO;
  k.num_state = 1;
  k.weight = randomWeight;
  k.stop = stopAtStep;
  k.init = initState;
  k.update = countUpdate;
  sluice_walk_options_t o = testOptions();
  Walks a = runWalks(g.get(), &k, nullptr, o);
  ASSERT_EQ(a.status, SLUICE_STATUS_OK) << a.error.message;
  for (auto &walk : a.walks)
    EXPECT_EQ(walk.size(), 7u);
  EXPECT_EQ(a.stats.reservoir_steps, a.stats.steps);
  o.threads = 3;
  o.walkers_per_thread = 5;
  Walks b = runWalks(g.get(), &k, nullptr, o);
  EXPECT_EQ(a.bytes, b.bytes);
  // Rejection needs a bound this kernel does not have.
  o.sampler = SLUICE_WALK_SAMPLER_REJECTION;
  Walks c = runWalks(g.get(), &k, nullptr, o);
  EXPECT_EQ(c.status, SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(c.error.message).find("needs an upper bound"),
            std::string::npos)
      << c.error.message;
}

TEST(WalkEngine, StatsCountSamplers) {
  GraphPtr email = randomGraph(1000, 8000, 5);
  Params params(Workload::Node2Vec);
  sluice_walk_options_t o = testOptions();
  o.max_length = 10;
  sluice_walk_stats_t s;
  // r = 4: low-degree vertices go to reservoir, high-degree to rejection.
  ASSERT_EQ(sluice_walk_run(email.get(), kernel(Workload::Node2Vec),
                            params.data(), &o, nullptr, &s, nullptr),
            SLUICE_STATUS_OK);
  EXPECT_EQ(s.walks, sluice_graph_num_vertices(email.get()));
  EXPECT_EQ(s.rejection_steps + s.reservoir_steps, s.steps);
  EXPECT_GT(s.rejection_steps, 0u);
  EXPECT_GT(s.reservoir_steps, 0u);
  EXPECT_GE(s.rejection_trials, s.rejection_steps);
  EXPECT_EQ(s.bound_violations, 0u);
  EXPECT_EQ(s.cost_ratio, 4.0);
  EXPECT_GT(s.seconds, 0.0);
  // Calibrated: a ratio within the clamp.
  o.cost_ratio = 0;
  ASSERT_EQ(sluice_walk_run(email.get(), kernel(Workload::Node2Vec),
                            params.data(), &o, nullptr, &s, nullptr),
            SLUICE_STATUS_OK);
  EXPECT_GE(s.cost_ratio, 1.0 / 16);
  EXPECT_LE(s.cost_ratio, 256.0);
  // Forced samplers count only themselves.
  o.sampler = SLUICE_WALK_SAMPLER_RESERVOIR;
  ASSERT_EQ(sluice_walk_run(email.get(), kernel(Workload::Node2Vec),
                            params.data(), &o, nullptr, &s, nullptr),
            SLUICE_STATUS_OK);
  EXPECT_EQ(s.reservoir_steps, s.steps);
  EXPECT_EQ(s.rejection_trials, 0u);
}

/// A bound below the true maximum is counted.
double tooSmallBound(const sluice_walk_frame_t *f) {
  return 0.5 * sluice_graph_weight_max(f->graph, f->cur);
}

TEST(WalkEngine, BoundViolationsCounted) {
  GraphPtr g = makeGraph(3, {{0, 1}, {0, 2}, {1, 0}, {2, 0}},
                         {1.0f, 3.0f, 1.0f, 1.0f});
  sluice_walk_kernel_t k = *kernel(Workload::DeepWalk);
  k.upper_bound = tooSmallBound;
  k.weight_class = SLUICE_WALK_WEIGHT_DYNAMIC;
  sluice_walk_options_t o = testOptions();
  o.sampler = SLUICE_WALK_SAMPLER_REJECTION;
  o.walks_per_vertex = 100;
  sluice_walk_stats_t s;
  ASSERT_EQ(sluice_walk_run(g.get(), &k, nullptr, &o, nullptr, &s, nullptr),
            SLUICE_STATUS_OK);
  EXPECT_GT(s.bound_violations, 0u);
}

/// Pre-acceptance (walk.h: SLUICE_WALK_PURE_WEIGHT) decides a rejection
/// trial from the coin and the kernel's lower bound when it can: the same
/// walks as evaluating every weight, with fewer weight calls; kernels
/// without the flag never use it.
TEST(WalkEngine, PreAcceptanceGivesTheSameWalks) {
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  std::vector<float> weights;
  uint64_t x = 7;
  for (uint32_t i = 0; i < 8000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t u = static_cast<uint32_t>((x >> 33) % 600);
    uint32_t v = static_cast<uint32_t>((x >> 13) % 600);
    edges.push_back({u, v});
    edges.push_back({v, u});
    float w = float((x >> 5) % 5) + 0.5f;
    weights.push_back(w);
    weights.push_back(w);
  }
  GraphPtr g = makeGraph(600, edges, weights);
  for (Workload w : {Workload::Node2Vec, Workload::WeightedNode2Vec,
                     Workload::PPR2}) {
    Params params(w);
    const sluice_walk_kernel_t *k = kernel(w);
    ASSERT_TRUE(k->flags & SLUICE_WALK_PURE_WEIGHT) << name(w);
    sluice_walk_kernel_t impure = *k;
    impure.flags &= ~SLUICE_WALK_PURE_WEIGHT;
    for (sluice_walk_sampler_t sampler :
         {SLUICE_WALK_SAMPLER_REJECTION, SLUICE_WALK_SAMPLER_AUTO}) {
      sluice_walk_options_t o = testOptions();
      applyOptions(w, &o, nullptr);
      o.sampler = sampler;
      o.cost_ratio = 1.0;
      o.walks_per_vertex = 3;
      o.threads = 2;
      Walks with = runWalks(g.get(), k, params.data(), o);
      Walks without = runWalks(g.get(), &impure, params.data(), o);
      ASSERT_EQ(with.status, SLUICE_STATUS_OK) << with.error.message;
      ASSERT_EQ(without.status, SLUICE_STATUS_OK) << without.error.message;
      EXPECT_TRUE(with.bytes == without.bytes) << name(w) << " differs";
      EXPECT_EQ(with.stats.steps, without.stats.steps);
      EXPECT_EQ(with.stats.rejection_trials, without.stats.rejection_trials);
      EXPECT_EQ(without.stats.pre_accepted, 0u);
      if (with.stats.rejection_steps > 0) {
        EXPECT_GT(with.stats.pre_accepted, 0u) << name(w);
      }
      EXPECT_LE(with.stats.pre_accepted, with.stats.rejection_trials);
    }
  }
}

/// A rejection step at a vertex of degree 1 whose pre-acceptance threshold
/// is positive can only take that edge (EngineInternal.h: isForcedStep): the
/// engine takes it without a trial, in the specialised and in the general
/// loop; the walks equal those of the same kernel without the pure-weight
/// flag, which draws the trials.
TEST(WalkEngine, ForcedStepsTakeTheOnlyEdgeWithoutATrial) {
  // A path 0 - 1 - ... - 9: both ends have degree 1.
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  std::vector<float> weights;
  for (uint32_t v = 0; v + 1 < 10; ++v) {
    edges.push_back({v, v + 1});
    edges.push_back({v + 1, v});
    weights.push_back(1.0f + float(v % 3));
    weights.push_back(1.0f + float(v % 3));
  }
  GraphPtr path = makeGraph(10, edges, weights);
  // One edge: every step is forced.
  GraphPtr pair = makeGraph(2, {{0, 1}, {1, 0}}, {2.0f, 2.0f});
  for (Workload w : {Workload::Node2Vec, Workload::PPR2}) {
    Params params(w);
    const sluice_walk_kernel_t *k = kernel(w);
    ASSERT_TRUE(k->flags & SLUICE_WALK_PURE_WEIGHT) << name(w);
    sluice_walk_kernel_t impure = *k;
    impure.flags &= ~SLUICE_WALK_PURE_WEIGHT;
    for (uint32_t generic : {0u, unsigned(SLUICE_WALK_ENGINE_GENERIC)}) {
      sluice_walk_options_t o = testOptions();
      applyOptions(w, &o, nullptr);
      o.sampler = SLUICE_WALK_SAMPLER_REJECTION;
      o.walks_per_vertex = 20;
      o.max_length = 30;
      o.engine_flags |= generic;
      std::string where = std::string(name(w)) + (generic ? " generic" : "");
      Walks with = runWalks(path.get(), k, params.data(), o);
      Walks without = runWalks(path.get(), &impure, params.data(), o);
      ASSERT_EQ(with.status, SLUICE_STATUS_OK) << with.error.message;
      ASSERT_EQ(without.status, SLUICE_STATUS_OK) << without.error.message;
      EXPECT_TRUE(with.bytes == without.bytes) << where << " differs";
      EXPECT_EQ(with.stats.steps, without.stats.steps) << where;
      EXPECT_EQ(with.stats.rejection_steps, with.stats.steps) << where;
      EXPECT_LT(with.stats.rejection_trials, without.stats.rejection_trials)
          << where;
      Walks forced = runWalks(pair.get(), k, params.data(), o);
      ASSERT_EQ(forced.status, SLUICE_STATUS_OK) << forced.error.message;
      EXPECT_GT(forced.stats.steps, 0u) << where;
      EXPECT_EQ(forced.stats.rejection_steps, forced.stats.steps) << where;
      EXPECT_EQ(forced.stats.rejection_trials, 0u) << where;
      EXPECT_EQ(forced.stats.pre_accepted, 0u) << where;
      // Without a stop probability every walk alternates 0, 1, 0, ...
      if (o.stop_probability == 0) {
        EXPECT_EQ(forced.stats.steps, uint64_t(2) * 20 * 29) << where;
      }
    }
  }
}

std::vector<std::string> progressLines;
void collect(void *, const char *line) { progressLines.push_back(line); }

TEST(WalkEngine, ProgressCallbackOnlyForLongRuns) {
  GraphPtr g = ring(10);
  Params params(Workload::DeepWalk);
  sluice_walk_options_t o = testOptions();
  o.quiet = 0;
  o.progress = collect;
  progressLines.clear();
  ASSERT_EQ(sluice_walk_run(g.get(), kernel(Workload::DeepWalk),
                            params.data(), &o, nullptr, nullptr, nullptr),
            SLUICE_STATUS_OK);
  EXPECT_TRUE(progressLines.empty()); // well under a second
}

//===--- errors -----------------------------------------------------------===//

struct ErrorCase {
  const char *what;
  sluice_status_t status;
  const char *message; // a substring of the message
};

sluice_error_t runExpectingError(const sluice_graph_t *g,
                                 const sluice_walk_kernel_t *k,
                                 const void *params,
                                 const sluice_walk_options_t *o,
                                 sluice_walk_writer_t *writer,
                                 sluice_status_t expected) {
  sluice_error_t error;
  sluice_walk_stats_t stats;
  std::memset(&stats, 0x5a, sizeof(stats));
  sluice_status_t status =
      sluice_walk_run(g, k, params, o, writer, &stats, &error);
  EXPECT_EQ(status, expected) << error.message;
  EXPECT_EQ(error.status, expected);
  return error;
}

void expectMessage(const sluice_error_t &e, const std::string &part) {
  EXPECT_NE(std::string(e.message).find(part), std::string::npos)
      << "message '" << e.message << "' lacks '" << part << "'";
}

TEST(WalkEngine, BadArguments) {
  GraphPtr g = ring(10);
  Params n2v(Workload::Node2Vec);
  const sluice_walk_kernel_t *k = kernel(Workload::Node2Vec);
  sluice_walk_options_t o = testOptions();
  const auto INVALID = SLUICE_STATUS_INVALID_ARGUMENT;

  expectMessage(runExpectingError(nullptr, k, n2v.data(), &o, nullptr, INVALID),
                "graph is NULL");
  expectMessage(
      runExpectingError(g.get(), nullptr, n2v.data(), &o, nullptr, INVALID),
      "kernel is NULL");
  expectMessage(runExpectingError(g.get(), k, nullptr, &o, nullptr, INVALID),
                "takes 2 parameters but params is NULL");

  sluice_walk_options_t bad = o;
  bad.max_length = 0;
  expectMessage(runExpectingError(g.get(), k, n2v.data(), &bad, nullptr, INVALID),
                "max_length must be at least 1");
  bad = o;
  bad.walks_per_vertex = 0;
  expectMessage(runExpectingError(g.get(), k, n2v.data(), &bad, nullptr, INVALID),
                "walks_per_vertex must be at least 1");
  for (double p : {-0.1, 1.5, std::nan("")}) {
    bad = o;
    bad.stop_probability = p;
    expectMessage(
        runExpectingError(g.get(), k, n2v.data(), &bad, nullptr, INVALID),
        "stop_probability must be in [0, 1]");
  }
  for (double r : {-1.0, std::nan(""), HUGE_VAL}) {
    bad = o;
    bad.cost_ratio = r;
    expectMessage(
        runExpectingError(g.get(), k, n2v.data(), &bad, nullptr, INVALID),
        "cost_ratio must be finite and >= 0");
  }
  bad = o;
  bad.walkers_per_thread = 1u << 20;
  expectMessage(runExpectingError(g.get(), k, n2v.data(), &bad, nullptr, INVALID),
                "walkers_per_thread must be at most");
  bad = o;
  int raw = 17;
  std::memcpy(&bad.sampler, &raw, sizeof(raw));
  expectMessage(runExpectingError(g.get(), k, n2v.data(), &bad, nullptr, INVALID),
                "unknown sampler 17");
  // The uniform sampler draws an index from the degree: only for a
  // constant weight (node2vec's is dynamic).
  bad = o;
  bad.sampler = SLUICE_WALK_SAMPLER_UNIFORM;
  expectMessage(
      runExpectingError(g.get(), k, n2v.data(), &bad, nullptr, INVALID),
      "sampler uniform needs a constant weight");
  bad = o;
  const uint32_t starts[] = {1, 10};
  bad.starts = starts;
  bad.num_starts = 2;
  expectMessage(runExpectingError(g.get(), k, n2v.data(), &bad, nullptr,
                                  SLUICE_STATUS_OUT_OF_RANGE),
                "start vertex 10 (starts[1]) is not in the graph (10 vertices)");
  bad = o;
  bad.num_starts = 3;
  expectMessage(runExpectingError(g.get(), k, n2v.data(), &bad, nullptr, INVALID),
                "num_starts is 3 but starts is NULL");

  // Unsound forced samplers.
  bad = o;
  bad.sampler = SLUICE_WALK_SAMPLER_ALIAS;
  sluice_error_t e =
      runExpectingError(g.get(), k, n2v.data(), &bad, nullptr, INVALID);
  expectMessage(e, "sampler alias needs a static weight");
  expectMessage(e, "walk 'node2vec'");
  sluice_walk_kernel_t unbounded = *k;
  unbounded.flags |= SLUICE_WALK_UNBOUNDED;
  unbounded.upper_bound = nullptr;
  bad.sampler = SLUICE_WALK_SAMPLER_REJECTION;
  expectMessage(
      runExpectingError(g.get(), &unbounded, n2v.data(), &bad, nullptr, INVALID),
      "sampler rejection needs an upper bound");
  // ...while auto and reservoir are fine on it.
  bad.sampler = SLUICE_WALK_SAMPLER_AUTO;
  sluice_walk_stats_t s;
  EXPECT_EQ(sluice_walk_run(g.get(), &unbounded, n2v.data(), &bad, nullptr, &s,
                            nullptr),
            SLUICE_STATUS_OK);
  EXPECT_EQ(s.reservoir_steps, s.steps);

  // Inconsistent kernels.
  sluice_walk_kernel_t kk = *k;
  kk.abi_version = 99;
  expectMessage(runExpectingError(g.get(), &kk, n2v.data(), &o, nullptr,
                                  SLUICE_STATUS_UNSUPPORTED),
                "walk ABI version 99");
  kk = *k;
  kk.upper_bound = nullptr;
  expectMessage(runExpectingError(g.get(), &kk, n2v.data(), &o, nullptr, INVALID),
                "has no upper_bound but is not marked SLUICE_WALK_UNBOUNDED");
  kk = *k;
  kk.flags |= 1u << 7;
  expectMessage(runExpectingError(g.get(), &kk, n2v.data(), &o, nullptr, INVALID),
                "unknown flags 0x80");
  kk = *k;
  kk.weight_class = SLUICE_WALK_WEIGHT_STATIC;
  expectMessage(runExpectingError(g.get(), &kk, n2v.data(), &o, nullptr, INVALID),
                "must be classified DYNAMIC");
  kk = *k;
  raw = 5;
  std::memcpy(&kk.weight_class, &raw, sizeof(raw));
  expectMessage(runExpectingError(g.get(), &kk, n2v.data(), &o, nullptr, INVALID),
                "unknown weight class 5");

  // A writer narrower than max_length.
  TempFile file(".walks");
  sluice_walk_writer_t *writer = nullptr;
  ASSERT_EQ(sluice_walk_writer_open(file.path().c_str(),
                                    SLUICE_WALK_FORMAT_TEXT, 10, 0, g.get(),
                                    &writer, nullptr),
            SLUICE_STATUS_OK);
  bad = o;
  bad.max_length = 11;
  expectMessage(runExpectingError(g.get(), k, n2v.data(), &bad, writer, INVALID),
                "the writer takes walks of at most 10 vertices, but max_length "
                "is 11");
  // A wider writer is fine (rows padded by the writer).
  bad.max_length = 4;
  EXPECT_EQ(sluice_walk_run(g.get(), k, n2v.data(), &bad, writer, nullptr,
                            nullptr),
            SLUICE_STATUS_OK);
  EXPECT_EQ(sluice_walk_writer_num_walks(writer), 10u);
  // A committed writer: the engine reports the writer's error.
  ASSERT_EQ(sluice_walk_writer_commit(writer, nullptr), SLUICE_STATUS_OK);
  runExpectingError(g.get(), k, n2v.data(), &bad, writer,
                    SLUICE_STATUS_FAILED_PRECONDITION);
  sluice_walk_writer_release(writer);

  // NULL options = defaults.
  EXPECT_EQ(sluice_walk_run(g.get(), kernel(Workload::DeepWalk), nullptr,
                            nullptr, nullptr, nullptr, nullptr),
            SLUICE_STATUS_OK);
}

TEST(WalkEngine, EmptyRuns) {
  GraphPtr g = ring(4);
  sluice_walk_options_t o = testOptions();
  const uint32_t starts[] = {0};
  o.starts = starts;
  o.num_starts = 0;
  Walks out = runWalks(g.get(), kernel(Workload::DeepWalk), nullptr, o);
  ASSERT_EQ(out.status, SLUICE_STATUS_OK) << out.error.message;
  EXPECT_TRUE(out.walks.empty());
  EXPECT_EQ(out.stats.walks, 0u);
  GraphPtr empty = makeGraph(0, {});
  out = runWalks(empty.get(), kernel(Workload::DeepWalk), nullptr,
                 testOptions());
  ASSERT_EQ(out.status, SLUICE_STATUS_OK) << out.error.message;
  EXPECT_TRUE(out.walks.empty());
}

} // namespace

namespace {

/// WalkRng with a precomputed first block (what the engine's batched
/// Philox gives it) draws exactly the words of WalkRng(seed, walker, step).
TEST(WalkEngine, PrecomputedFirstBlockGivesTheSameStream) {
  using sluice::walk::WalkRng;
  for (uint64_t seed : {0ull, 12345ull, 0xfedcba9876543210ull})
    for (uint64_t walker : {0ull, 7ull, (1ull << 40) + 3})
      for (uint32_t step : {0u, 1u, 79u}) {
        uint32_t counter[4] = {0, step, static_cast<uint32_t>(walker),
                               static_cast<uint32_t>(walker >> 32)};
        uint32_t key[2] = {static_cast<uint32_t>(seed),
                           static_cast<uint32_t>(seed >> 32)};
        uint32_t block[4];
        sluice_philox4x32_10(counter, key, block);
        WalkRng plain(seed, walker, step), pre(seed, walker, step, block);
        for (int i = 0; i < 37; ++i)
          ASSERT_EQ(plain.nextU32(), pre.nextU32()) << i;
        EXPECT_EQ(plain.drawn(), pre.drawn());
      }
}

/// The engine's batched Philox (every implementation this CPU has) equals
/// the one-block function, for any lane count and block index.
TEST(WalkEngine, PhiloxLanesMatchOneBlock) {
  using namespace sluice::walk::detail;
  int tested = 0;
  for (const char *isa : {"avx512f", "avx2", "portable"}) {
    PhiloxLanesFn fn = philoxLanesFor(isa);
    if (!fn)
      continue;
    ++tested;
    for (uint32_t n : {0u, 1u, 7u, 8u, 9u, 16u, 33u, 64u, 100u})
      for (uint32_t blockIndex : {0u, 1u, 9u})
        for (uint64_t seed : {0ull, 0x0123456789abcdefull}) {
          uint32_t cap = philoxLaneCapacity(n);
          std::vector<uint32_t> c0(cap, 77), c1(cap), c2(cap), c3(cap);
          for (uint32_t i = 0; i < n; ++i) {
            c1[i] = i * 3 + 1;
            c2[i] = 0x9e3779b9u * i;
            c3[i] = i >> 2;
          }
          std::vector<uint32_t> in1 = c1, in2 = c2, in3 = c3;
          fn(n, seed, c0.data(), c1.data(), c2.data(), c3.data(), blockIndex);
          for (uint32_t i = 0; i < n; ++i) {
            uint32_t counter[4] = {blockIndex, in1[i], in2[i], in3[i]};
            uint32_t key[2] = {static_cast<uint32_t>(seed),
                               static_cast<uint32_t>(seed >> 32)};
            uint32_t out[4];
            sluice_philox4x32_10(counter, key, out);
            ASSERT_EQ(c0[i], out[0]) << isa << " n " << n << " lane " << i;
            ASSERT_EQ(c1[i], out[1]) << isa << " n " << n << " lane " << i;
            ASSERT_EQ(c2[i], out[2]) << isa << " n " << n << " lane " << i;
            ASSERT_EQ(c3[i], out[3]) << isa << " n " << n << " lane " << i;
          }
        }
  }
  EXPECT_GE(tested, 1);
  EXPECT_NE(philoxLanesFor(philoxLanesIsa()), nullptr);
}

/// When the cost model picks reservoir at every vertex (a huge cost
/// ratio), auto runs as a reservoir run: the same bytes as forced
/// reservoir, every step a reservoir step, and the ratio reported.
TEST(WalkEngine, AutoChoosingReservoirEverywhereIsAReservoirRun) {
  GraphPtr g = ring(300);
  for (Workload w : {Workload::Node2Vec, Workload::MetaPath,
                     Workload::PPR2}) {
    Params params(w);
    GraphPtr labelled = withSyntheticLabels(g.get(), 5, 3);
    const sluice_graph_t *graph =
        needsLabels(w) ? labelled.get() : g.get();
    sluice_walk_options_t o = testOptions();
    applyOptions(w, &o, nullptr);
    o.max_length = 30;
    o.walks_per_vertex = 3;
    o.sampler = SLUICE_WALK_SAMPLER_AUTO;
    o.cost_ratio = 1e9;
    Walks automatic = runWalks(graph, kernel(w), params.data(), o);
    o.sampler = SLUICE_WALK_SAMPLER_RESERVOIR;
    Walks reservoir = runWalks(graph, kernel(w), params.data(), o);
    ASSERT_EQ(automatic.status, SLUICE_STATUS_OK)
        << automatic.error.message;
    ASSERT_EQ(reservoir.status, SLUICE_STATUS_OK)
        << reservoir.error.message;
    EXPECT_TRUE(automatic.bytes == reservoir.bytes) << name(w);
    EXPECT_GT(automatic.stats.steps, 0u) << name(w);
    EXPECT_EQ(automatic.stats.reservoir_steps, automatic.stats.steps)
        << name(w);
    EXPECT_EQ(automatic.stats.cost_ratio, 1e9) << name(w);
    EXPECT_EQ(reservoir.stats.cost_ratio, 0.0) << name(w);
  }
}

/// A stream positioned inside block k after `used` words, from that
/// block's words, continues as the plain stream.
TEST(WalkEngine, PositionedStreamGivesTheSameWords) {
  using sluice::walk::WalkRng;
  for (uint64_t seed : {0ull, 0xfedcba9876543210ull})
    for (uint32_t blockIndex : {0u, 1u, 5u})
      for (unsigned used : {0u, 1u, 3u, 4u}) {
        const uint64_t walker = (1ull << 33) + 9;
        const uint32_t step = 17;
        uint32_t counter[4] = {blockIndex, step, static_cast<uint32_t>(walker),
                               static_cast<uint32_t>(walker >> 32)};
        uint32_t key[2] = {static_cast<uint32_t>(seed),
                           static_cast<uint32_t>(seed >> 32)};
        uint32_t block[4];
        sluice_philox4x32_10(counter, key, block);
        WalkRng plain(seed, walker, step);
        for (uint32_t i = 0; i < 4 * blockIndex + used; ++i)
          plain.nextU32();
        WalkRng positioned(seed, walker, step, block, blockIndex, used);
        EXPECT_EQ(plain.drawn(), positioned.drawn());
        for (int i = 0; i < 23; ++i)
          ASSERT_EQ(plain.nextU32(), positioned.nextU32())
              << "block " << blockIndex << " used " << used << " word " << i;
      }
}

} // namespace
