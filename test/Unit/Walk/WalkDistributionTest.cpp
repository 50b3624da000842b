//===- WalkDistributionTest.cpp - Exact transition laws of every workload -===//
//
// For every reference workload and every sampler that is sound for it, the
// engine's first and second steps from a fixed start are compared, by
// chi-square at significance 1e-4 with fixed seeds, with exact transition
// probabilities computed by an oracle written straight from the workloads'
// definitions (docs/language.md 10, examples/walks/*.sluice): it reads the
// graph through the C API and calls neither the kernels nor the samplers.
//
// The second step is taken from a fixed context (prev = start, cur = c):
// among the walks whose first step went to c, the next vertex must follow
// the oracle's law for (prev, cur, hop 1). Then the statistic is shown to
// reject a biased kernel (node2vec with p in place of 1/p) and a wrong
// oracle.
//
//===----------------------------------------------------------------------===//
#include "WalkTestUtil.h"

#include <cstring>
#include <functional>
#include <map>

using namespace sluice::walktest;
using namespace sluice::walkref;

namespace {

/// The parameters the oracle uses (defaults of the workloads).
struct OracleParams {
  double p = 2.0, q = 0.5, alpha = 0.2;
  std::vector<int64_t> schema = {0, 1, 2, 3, 4};
};

/// Unnormalised transition weights from `cur`, having come from `prev`
/// after `hop` steps, by target vertex (parallel edges add up).
std::vector<double> oracle(Workload w, const sluice_graph_t *g, uint32_t prev,
                           uint32_t cur, int64_t hop,
                           const OracleParams &par = {}) {
  uint64_t n = sluice_graph_num_vertices(g);
  std::vector<double> out(n, 0.0);
  const uint64_t *off = sluice_graph_offsets(g);
  const uint32_t *tg = sluice_graph_targets(g);
  const float *wt = sluice_graph_weights(g);
  double degCur = double(sluice_graph_degree(g, cur));
  double degPrev = double(sluice_graph_degree(g, prev));
  for (uint64_t e = off[cur]; e < off[cur + 1]; ++e) {
    uint32_t next = tg[e];
    double x = wt ? double(wt[e]) : 1.0;
    double y = 0;
    switch (w) {
    case Workload::DeepWalk:
    case Workload::PPR:
      y = x;
      break;
    case Workload::UniformDeepWalk:
      y = 1.0;
      break;
    case Workload::Node2Vec:
    case Workload::WeightedNode2Vec:
      if (next == prev)
        y = x / par.p;
      else if (sluice_graph_has_edge(g, prev, next))
        y = x;
      else
        y = x / par.q;
      break;
    case Workload::MetaPath: {
      int64_t want = par.schema[(hop + 1) % int64_t(par.schema.size())];
      y = sluice_graph_vertex_label(g, next) == want ? x : 0.0;
      break;
    }
    case Workload::PPR2:
      y = (1.0 - par.alpha) / degCur;
      if (next != prev && sluice_graph_has_edge(g, prev, next))
        y += par.alpha / degPrev;
      break;
    }
    if (y > 0)
      out[next] += y;
  }
  return out;
}

size_t positives(const std::vector<double> &p) {
  return size_t(std::count_if(p.begin(), p.end(), [](double x) { return x > 0; }));
}

/// What a distribution check found.
struct StepFits {
  Fit first, second;
  bool hasSecond = false;
  uint32_t start = 0, middle = 0;
};

using Oracle = std::function<std::vector<double>(uint32_t prev, uint32_t cur,
                                                 int64_t hop)>;

/// Runs `walks` walks of 3 vertices from `start` and fits both steps.
StepFits checkSteps(const sluice_graph_t *g, const sluice_walk_kernel_t *k,
                    const void *params, Workload w, uint32_t start,
                    sluice_walk_sampler_t sampler, double costRatio,
                    const Oracle &exact, uint64_t walks = 100000,
                    uint32_t engineFlags = 0) {
  StepFits fits;
  fits.start = start;
  sluice_walk_options_t o = testOptions();
  applyOptions(w, &o, nullptr);
  o.starts = &start;
  o.num_starts = 1;
  o.walks_per_vertex = static_cast<uint32_t>(walks);
  o.max_length = 3;
  o.sampler = sampler;
  o.cost_ratio = costRatio;
  o.engine_flags = engineFlags;
  o.seed = 0xC0FFEE + uint64_t(sampler) * 7919 + uint64_t(w);
  Walks out = runWalks(g, k, params, o);
  EXPECT_EQ(out.status, SLUICE_STATUS_OK) << out.error.message;
  if (out.status != SLUICE_STATUS_OK)
    return fits;
  uint64_t n = sluice_graph_num_vertices(g);
  std::vector<double> p1 = exact(start, start, 0);
  std::vector<uint64_t> c1(n, 0);
  for (auto &walk : out.walks)
    if (walk.size() >= 2)
      ++c1[walk[1]];
  fits.first = chiSquare(c1, p1);
  // The context: the likeliest first step with at least two choices next.
  double best = 0;
  for (uint32_t c = 0; c < n; ++c)
    if (p1[c] > best && positives(exact(start, c, 1)) >= 2) {
      best = p1[c];
      fits.middle = c;
      fits.hasSecond = true;
    }
  if (!fits.hasSecond)
    return fits;
  std::vector<uint64_t> c2(n, 0);
  for (auto &walk : out.walks)
    if (walk.size() >= 3 && walk[1] == fits.middle)
      ++c2[walk[2]];
  fits.second = chiSquare(c2, exact(start, fits.middle, 1));
  return fits;
}

/// The samplers that are sound for a kernel, with the cost ratio to use
/// (AUTO twice: a fixed ratio and the calibrated one).
std::vector<std::pair<sluice_walk_sampler_t, double>>
soundSamplers(const sluice_walk_kernel_t *k) {
  std::vector<std::pair<sluice_walk_sampler_t, double>> s = {
      {SLUICE_WALK_SAMPLER_RESERVOIR, 4.0},
      {SLUICE_WALK_SAMPLER_AUTO, 4.0},
      {SLUICE_WALK_SAMPLER_AUTO, 0.0}};
  if (!(k->flags & SLUICE_WALK_UNBOUNDED))
    s.push_back({SLUICE_WALK_SAMPLER_REJECTION, 4.0});
  if (k->weight_class != SLUICE_WALK_WEIGHT_DYNAMIC)
    s.push_back({SLUICE_WALK_SAMPLER_ALIAS, 4.0});
  if (k->weight_class == SLUICE_WALK_WEIGHT_CONSTANT)
    s.push_back({SLUICE_WALK_SAMPLER_UNIFORM, 4.0});
  return s;
}

const char *samplerName(sluice_walk_sampler_t s) {
  switch (s) {
  case SLUICE_WALK_SAMPLER_AUTO:
    return "auto";
  case SLUICE_WALK_SAMPLER_REJECTION:
    return "rejection";
  case SLUICE_WALK_SAMPLER_RESERVOIR:
    return "reservoir";
  case SLUICE_WALK_SAMPLER_ALIAS:
    return "alias";
  case SLUICE_WALK_SAMPLER_UNIFORM:
    return "uniform";
  }
  return "?";
}

/// A dense hand-made graph of 10 vertices: u - v for u < v with
/// (u + 2v) % 3 != 0, plus a self loop at 2; distinct-ish weights
/// 1 + (7u + 11v) % 5; labels v % 5. Undirected.
struct HandGraphs {
  GraphPtr plain, weighted;
  HandGraphs() {
    std::vector<std::pair<uint32_t, uint32_t>> e;
    std::vector<float> w;
    for (uint32_t u = 0; u < 10; ++u)
      for (uint32_t v = u + 1; v < 10; ++v)
        if ((u + 2 * v) % 3 != 0) {
          e.push_back({u, v});
          w.push_back(float(1 + (7 * u + 11 * v) % 5));
        }
    e.push_back({2, 2});
    w.push_back(2.5f);
    std::vector<int32_t> labels(10);
    for (int32_t v = 0; v < 10; ++v)
      labels[size_t(v)] = v % 5;
    plain = makeGraph(10, e, {}, labels, SLUICE_GRAPH_LOAD_UNDIRECTED);
    weighted = makeGraph(10, e, w, labels, SLUICE_GRAPH_LOAD_UNDIRECTED);
  }
};

/// The start used on a graph: for the hand graph vertex 2 (self loop);
/// on larger graphs the vertex of degree closest to `degree` that has at
/// least three first-step choices.
uint32_t pickStart(const sluice_graph_t *g, Workload w, uint64_t degree = 25) {
  uint64_t n = sluice_graph_num_vertices(g);
  if (n <= 10)
    return 2;
  uint32_t best = 0;
  uint64_t bestGap = UINT64_MAX;
  for (uint32_t v = 0; v < n; ++v) {
    uint64_t d = sluice_graph_degree(g, v);
    uint64_t gap = d > degree ? d - degree : degree - d;
    if (gap < bestGap && positives(oracle(w, g, v, v, 0)) >= 3) {
      bestGap = gap;
      best = v;
    }
  }
  return best;
}

void checkAllSamplers(const sluice_graph_t *plain,
                      const sluice_graph_t *weighted, const char *graphName) {
  for (Workload w : kAllWorkloads) {
    const sluice_graph_t *g = needsWeights(w) ? weighted : plain;
    // DeepWalk and PPR on the weighted graph as well: weights matter.
    for (const sluice_graph_t *graph :
         {g, (w == Workload::DeepWalk || w == Workload::PPR ||
              w == Workload::UniformDeepWalk)
                 ? weighted
                                                             : nullptr}) {
      if (!graph)
        continue;
      const sluice_walk_kernel_t *k = kernel(w);
      Params params(w);
      uint32_t start = pickStart(graph, w);
      Oracle exact = [&](uint32_t prev, uint32_t cur, int64_t hop) {
        return oracle(w, graph, prev, cur, hop);
      };
      for (auto [sampler, ratio] : soundSamplers(k)) {
        StepFits f = checkSteps(graph, k, params.data(), w, start, sampler,
                                ratio, exact);
        std::string what = std::string(graphName) + " " + name(w) + " " +
                           samplerName(sampler) + " r=" +
                           std::to_string(ratio) + " start " +
                           std::to_string(start);
        EXPECT_TRUE(f.first.passes()) << what << " first step: "
                                      << f.first.describe();
        EXPECT_GT(f.first.df, 0) << what;
        ASSERT_TRUE(f.hasSecond) << what;
        EXPECT_TRUE(f.second.passes())
            << what << " second step via " << f.middle << ": "
            << f.second.describe();
        EXPECT_GT(f.second.total, 1000u) << what;
      }
    }
  }
}

TEST(WalkDistribution, EveryWorkloadEverySamplerHandGraph) {
  HandGraphs h;
  checkAllSamplers(h.plain.get(), h.weighted.get(), "hand");
}

TEST(WalkDistribution, EveryWorkloadEverySamplerEmailEuCore) {
  GraphPtr email = loadEmail();
  if (!email)
    GTEST_SKIP() << "no shared data (set SLUICE_SHARED_DATA_DIR)";
  GraphPtr weighted = withSyntheticWeights(email.get(), 11);
  checkAllSamplers(email.get(), weighted.get(), "email");
}

/// The metapath oracle with another schema, through the parameter block.
/// The second-order workloads with the hubs' neighbour sets forced on
/// (SLUICE_WALK_ENGINE_EDGE_SETS; by default only graphs with 16 MiB of
/// targets get them): the start has degree about 100, above
/// rt::EdgeSets::kMinDegree, so the second step's has_edge(prev, next)
/// reads the start's set. The exact transition probabilities of the
/// oracles, as above.
TEST(WalkDistribution, SecondOrderWithHubSetsEmailEuCore) {
  GraphPtr email = loadEmail();
  if (!email)
    GTEST_SKIP() << "no shared data (set SLUICE_SHARED_DATA_DIR)";
  GraphPtr weighted = withSyntheticWeights(email.get(), 11);
  for (Workload w :
       {Workload::Node2Vec, Workload::WeightedNode2Vec, Workload::PPR2}) {
    const sluice_graph_t *g = needsWeights(w) ? weighted.get() : email.get();
    const sluice_walk_kernel_t *k = kernel(w);
    Params params(w);
    uint32_t start = pickStart(g, w, 100);
    ASSERT_GE(sluice_graph_degree(g, start), 64u);
    Oracle exact = [&](uint32_t prev, uint32_t cur, int64_t hop) {
      return oracle(w, g, prev, cur, hop);
    };
    for (auto [sampler, ratio] : soundSamplers(k)) {
      StepFits f = checkSteps(g, k, params.data(), w, start, sampler, ratio,
                              exact, 300000, SLUICE_WALK_ENGINE_EDGE_SETS);
      std::string what = std::string(name(w)) + " " + samplerName(sampler);
      EXPECT_TRUE(f.first.passes()) << what << ": " << f.first.describe();
      ASSERT_TRUE(f.hasSecond) << what;
      EXPECT_TRUE(f.second.passes()) << what << " second step via " << f.middle
                                     << ": " << f.second.describe();
      EXPECT_GT(f.second.total, 1000u) << what;
    }
  }
}

TEST(WalkDistribution, MetaPathCustomSchema) {
  HandGraphs h;
  Params params(Workload::MetaPath);
  params.setSchema({0, 2, 4, 1});
  OracleParams par;
  par.schema = {0, 2, 4, 1};
  const sluice_graph_t *g = h.weighted.get();
  for (auto [sampler, ratio] : soundSamplers(kernel(Workload::MetaPath))) {
    StepFits f = checkSteps(
        g, kernel(Workload::MetaPath), params.data(), Workload::MetaPath, 0,
        sampler, ratio, [&](uint32_t prev, uint32_t cur, int64_t hop) {
          return oracle(Workload::MetaPath, g, prev, cur, hop, par);
        });
    EXPECT_TRUE(f.first.passes()) << f.first.describe();
    if (f.hasSecond) {
      EXPECT_TRUE(f.second.passes()) << f.second.describe();
    }
  }
}

//===--- the statistic can fail -------------------------------------------===//

/// node2vec as one well-known GPU sampler has it: p instead of 1/p.
double biasedNode2Vec(const sluice_walk_frame_t *f, uint32_t next,
                      uint64_t edge, double w) {
  double p, q;
  std::memcpy(&p, static_cast<const int64_t *>(f->params), sizeof(p));
  std::memcpy(&q, static_cast<const int64_t *>(f->params) + 1, sizeof(q));
  if (next == f->prev)
    return w * p;
  return kernel(Workload::Node2Vec)->weight(f, next, edge, w);
}
double biasedUpper(const sluice_walk_frame_t *f) {
  return 2.0 * kernel(Workload::Node2Vec)->upper_bound(f);
}

TEST(WalkDistribution, RejectsBiasedKernel) {
  HandGraphs h;
  const sluice_graph_t *g = h.plain.get();
  sluice_walk_kernel_t biased = *kernel(Workload::Node2Vec);
  biased.weight = biasedNode2Vec;
  biased.upper_bound = biasedUpper;
  Params params(Workload::Node2Vec);
  Oracle exact = [&](uint32_t prev, uint32_t cur, int64_t hop) {
    return oracle(Workload::Node2Vec, g, prev, cur, hop);
  };
  for (sluice_walk_sampler_t sampler :
       {SLUICE_WALK_SAMPLER_RESERVOIR, SLUICE_WALK_SAMPLER_REJECTION}) {
    StepFits f = checkSteps(g, &biased, params.data(), Workload::Node2Vec, 2,
                            sampler, 4.0, exact);
    ASSERT_TRUE(f.hasSecond);
    EXPECT_FALSE(f.second.passes()) << f.second.describe();
  }
}

TEST(WalkDistribution, RejectsWrongOracles) {
  HandGraphs h;
  const sluice_graph_t *g = h.weighted.get();
  Params params(Workload::WeightedNode2Vec);
  OracleParams swapped; // 1/q and 1/p confused: q = 2, p = 0.5
  swapped.p = 0.5;
  swapped.q = 2.0;
  StepFits f = checkSteps(
      g, kernel(Workload::WeightedNode2Vec), params.data(),
      Workload::WeightedNode2Vec, 2, SLUICE_WALK_SAMPLER_AUTO, 4.0,
      [&](uint32_t prev, uint32_t cur, int64_t hop) {
        return oracle(Workload::WeightedNode2Vec, g, prev, cur, hop, swapped);
      });
  ASSERT_TRUE(f.hasSecond);
  EXPECT_FALSE(f.second.passes()) << f.second.describe();
  // An unweighted oracle for the weighted deepwalk.
  Params dw(Workload::DeepWalk);
  f = checkSteps(g, kernel(Workload::DeepWalk), dw.data(), Workload::DeepWalk,
                 2, SLUICE_WALK_SAMPLER_ALIAS, 4.0,
                 [&](uint32_t prev, uint32_t cur, int64_t hop) {
                   return oracle(Workload::DeepWalk, h.plain.get(), prev, cur,
                                 hop);
                 });
  EXPECT_FALSE(f.first.passes()) << f.first.describe();
  // ppr2 with alpha 0.5 in the oracle.
  OracleParams alpha;
  alpha.alpha = 0.5;
  Params p2(Workload::PPR2);
  f = checkSteps(h.plain.get(), kernel(Workload::PPR2), p2.data(),
                 Workload::PPR2, 2, SLUICE_WALK_SAMPLER_RESERVOIR, 4.0,
                 [&](uint32_t prev, uint32_t cur, int64_t hop) {
                   return oracle(Workload::PPR2, h.plain.get(), prev, cur, hop,
                                 alpha);
                 });
  ASSERT_TRUE(f.hasSecond);
  EXPECT_FALSE(f.second.passes()) << f.second.describe();
}

} // namespace
