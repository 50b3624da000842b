//===- ParallelSearch.cpp - Choosing a 3D-parallel plan -------------------===//
#include "compiler/Analysis/Parallel/ParallelSearch.h"

#include "support/Units.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

using namespace sluice;
using namespace sluice::parallel;
using model::Recompute;

static std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d <= n; ++d)
    if (n % d == 0)
      out.push_back(d);
  return out;
}

std::vector<ParallelConfig>
parallel::enumerateConfigs(const TrainJob &job, const ParallelCluster &cluster,
                           const SearchOptions &opts) {
  std::vector<ParallelConfig> out;
  const int64_t n = cluster.gpus();
  std::vector<Recompute> recomputes = {Recompute::None, Recompute::Selective,
                                       Recompute::Full};
  if (job.recomputeRequired)
    recomputes.erase(recomputes.begin());
  for (int64_t t : divisors(n))
    for (int64_t p : divisors(n / t)) {
      const int64_t d = n / (t * p);
      std::vector<int64_t> micro;
      if (job.microBatch > 0)
        micro = {job.microBatch};
      else if (job.globalBatch % d == 0)
        for (int64_t b : divisors(job.globalBatch / d))
          if (b <= opts.maxMicroBatch)
            micro.push_back(b);
      if (micro.empty())
        micro = {1};
      // Expert parallelism: every ep dividing dp and the experts.
      std::vector<int64_t> eps = {1};
      if (job.model.moe()) {
        eps.clear();
        for (int64_t e : divisors(d))
          if (job.model.experts % e == 0)
            eps.push_back(e);
      }
      for (int64_t e : eps)
        for (int64_t b : micro)
          for (int64_t v = 1; v <= (p > 1 ? opts.maxVirtualStages : 1); v *= 2)
            for (Recompute r : recomputes)
              for (bool sp : {false, true}) {
                if (sp && t == 1)
                  continue;
                // ZeRO shards over the data-parallel ranks: nothing to
                // shard with dp 1.
                // DeepSpeed's ZeRO-3 does not take a mixture of experts.
                const int64_t maxZero =
                    d == 1 ? 0 : (p == 1 ? (job.model.moe() ? 2 : 3) : 1);
                for (int64_t z = 0; z <= maxZero; ++z)
                  for (bool off : {false, true}) {
                    // Optimizer offload: with ZeRO, on hosts that can.
                    if (off && (z == 0 || !cluster.canOffload()))
                      continue;
                    ParallelConfig c;
                    c.tp = t;
                    c.pp = p;
                    c.dp = d;
                    c.ep = e;
                    c.microBatch = b;
                    c.virtualStages = v;
                    c.recompute = r;
                    c.sequenceParallel = sp;
                    c.zeroStage = z;
                    c.offloadOptimizer = off;
                    out.push_back(c);
                  }
              }
    }
  return out;
}

std::optional<std::pair<ParallelConfig, double>>
parallel::exhaustiveBest(const TrainJob &job, const ParallelCluster &cluster,
                         const SearchOptions &opts) {
  std::optional<std::pair<ParallelConfig, double>> best;
  const Placement id = Placement::identity(cluster.gpus());
  for (const ParallelConfig &c : enumerateConfigs(job, cluster, opts)) {
    Estimate e = evaluate(job, cluster, c, id, opts.model);
    if (e.rejected != Constraint::None)
      continue;
    if (!best || e.time.iteration < best->second)
      best = {c, e.time.iteration};
  }
  return best;
}

//===----------------------------------------------------------------------===//
// Placement
//===----------------------------------------------------------------------===//

llvm::StringRef parallel::placementMethodName(PlacementResult::Method m) {
  switch (m) {
  case PlacementResult::Method::Default:
    return "default";
  case PlacementResult::Method::Uniform:
    return "uniform links";
  case PlacementResult::Method::Exact:
    return "exact";
  case PlacementResult::Method::Annealing:
    return "simulated annealing";
  }
  llvm_unreachable("unknown placement method");
}

int64_t parallel::placementCount(const ParallelCluster &cluster) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  auto mul = [](int64_t a, int64_t b) { return a > kMax / b ? kMax : a * b; };
  int64_t local = 1;
  for (int64_t i = 2; i <= cluster.gpusPerHost; ++i)
    local = mul(local, i);
  int64_t count = 1;
  for (int64_t i = 2; i <= cluster.hosts; ++i)
    count = mul(count, i);
  for (int64_t h = 0; h < cluster.hosts; ++h)
    count = mul(count, local);
  return count;
}

Placement
parallel::makePlacement(const ParallelCluster &cluster,
                        const std::vector<int64_t> &hostOfNode,
                        const std::vector<std::vector<int64_t>> &localOrder) {
  const int64_t g = cluster.gpusPerHost;
  Placement p;
  p.gpuOfRank.resize(static_cast<size_t>(cluster.gpus()));
  for (int64_t r = 0; r < cluster.gpus(); ++r) {
    const int64_t host = hostOfNode[static_cast<size_t>(r / g)];
    p.gpuOfRank[static_cast<size_t>(r)] =
        host * g +
        localOrder[static_cast<size_t>(host)][static_cast<size_t>(r % g)];
  }
  return p;
}

namespace {

/// Iteration time of `c` under `pl` (shape already checked).
double timeOf(const TrainJob &job, const ParallelCluster &cluster,
              const ParallelConfig &c, const Placement &pl,
              const ModelOptions &o) {
  return evaluateWithComm(job, cluster, c, commTimes(job, cluster, c, pl, o), o)
      .time.iteration;
}

bool uniformLinks(const ParallelCluster &cl) {
  const int64_t n = cl.gpus();
  std::optional<float> intra, inter, intraLat, interLat;
  for (int64_t a = 0; a < n; ++a)
    for (int64_t b = 0; b < n; ++b) {
      if (a == b)
        continue;
      const bool same = cl.hostOf(a) == cl.hostOf(b);
      std::optional<float> &bw = same ? intra : inter;
      std::optional<float> &lat = same ? intraLat : interLat;
      const float vb = cl.links[static_cast<size_t>(a * n + b)].bandwidth;
      const float vl = cl.links[static_cast<size_t>(a * n + b)].latency;
      if (!bw) {
        bw = vb;
        lat = vl;
      } else if (*bw != vb || *lat != vl) {
        return false;
      }
    }
  return true;
}

struct PlacementState {
  std::vector<int64_t> hostOfNode;
  std::vector<std::vector<int64_t>> localOrder;
  static PlacementState identity(const ParallelCluster &cl) {
    PlacementState s;
    s.hostOfNode.resize(static_cast<size_t>(cl.hosts));
    std::iota(s.hostOfNode.begin(), s.hostOfNode.end(), 0);
    std::vector<int64_t> local(static_cast<size_t>(cl.gpusPerHost));
    std::iota(local.begin(), local.end(), 0);
    s.localOrder.assign(static_cast<size_t>(cl.hosts), local);
    return s;
  }
};

} // namespace

PlacementResult parallel::exactPlacement(const TrainJob &job,
                                         const ParallelCluster &cluster,
                                         const ParallelConfig &c,
                                         const SearchOptions &opts) {
  assert(placementCount(cluster) <= opts.exactPlacementLimit &&
         "too many placements to enumerate");
  PlacementState s = PlacementState::identity(cluster);
  PlacementResult r;
  r.method = PlacementResult::Method::Exact;
  r.placement = Placement::identity(cluster.gpus());
  r.defaultTime = r.time = timeOf(job, cluster, c, r.placement, opts.model);
  // Every local order of one host.
  std::vector<std::vector<int64_t>> locals;
  std::vector<int64_t> perm = s.localOrder.front();
  do
    locals.push_back(perm);
  while (std::next_permutation(perm.begin(), perm.end()));
  const size_t hosts = static_cast<size_t>(cluster.hosts);
  do {
    std::vector<size_t> digit(hosts, 0);
    while (true) {
      for (size_t h = 0; h < hosts; ++h)
        s.localOrder[h] = locals[digit[h]];
      Placement pl = makePlacement(cluster, s.hostOfNode, s.localOrder);
      const double t = timeOf(job, cluster, c, pl, opts.model);
      ++r.evaluated;
      if (t < r.time) {
        r.time = t;
        r.placement = std::move(pl);
      }
      size_t h = 0;
      while (h < hosts && ++digit[h] == locals.size())
        digit[h++] = 0;
      if (h == hosts)
        break;
    }
  } while (std::next_permutation(s.hostOfNode.begin(), s.hostOfNode.end()));
  return r;
}

PlacementResult parallel::annealPlacement(const TrainJob &job,
                                          const ParallelCluster &cluster,
                                          const ParallelConfig &c,
                                          const SearchOptions &opts) {
  PlacementState cur = PlacementState::identity(cluster);
  PlacementResult r;
  r.method = PlacementResult::Method::Annealing;
  r.placement = Placement::identity(cluster.gpus());
  r.defaultTime = r.time = timeOf(job, cluster, c, r.placement, opts.model);
  const int64_t H = cluster.hosts, g = cluster.gpusPerHost;
  if (H < 2 && g < 2)
    return r;
  std::mt19937_64 rng(opts.seed);
  auto pick = [&](int64_t n) {
    return static_cast<int64_t>(rng() % static_cast<uint64_t>(n));
  };
  double curTime = r.time;
  PlacementState best = cur;
  const double t0 = 0.05 * curTime, t1 = 1e-5 * curTime;
  const int64_t iters = std::max<int64_t>(
      1, std::min(opts.annealIterations, opts.annealBudget / cluster.gpus()));
  for (int64_t i = 0; i < iters; ++i) {
    const double temp = t0 * std::pow(t1 / t0, static_cast<double>(i) /
                                                   static_cast<double>(iters));
    PlacementState next = cur;
    const bool swapHosts = H > 1 && (g < 2 || pick(2) == 0);
    if (swapHosts) {
      int64_t a = pick(H), b = pick(H - 1);
      if (b >= a)
        ++b;
      std::swap(next.hostOfNode[static_cast<size_t>(a)],
                next.hostOfNode[static_cast<size_t>(b)]);
    } else {
      auto &order = next.localOrder[static_cast<size_t>(pick(H))];
      int64_t a = pick(g), b = pick(g - 1);
      if (b >= a)
        ++b;
      std::swap(order[static_cast<size_t>(a)], order[static_cast<size_t>(b)]);
    }
    Placement pl = makePlacement(cluster, next.hostOfNode, next.localOrder);
    const double t = timeOf(job, cluster, c, pl, opts.model);
    ++r.evaluated;
    const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    if (t <= curTime || u < std::exp((curTime - t) / temp)) {
      cur = std::move(next);
      curTime = t;
      if (t < r.time) {
        r.time = t;
        best = cur;
        r.placement = std::move(pl);
      }
    }
  }
  // Undo what did not help: put each host's GPUs back in device order where
  // that costs nothing (the launch lines stay readable).
  for (int64_t h = 0; h < H && r.time < r.defaultTime; ++h) {
    std::vector<int64_t> &order = best.localOrder[static_cast<size_t>(h)];
    if (std::is_sorted(order.begin(), order.end()))
      continue;
    PlacementState tidy = best;
    std::iota(tidy.localOrder[static_cast<size_t>(h)].begin(),
              tidy.localOrder[static_cast<size_t>(h)].end(), 0);
    Placement pl = makePlacement(cluster, tidy.hostOfNode, tidy.localOrder);
    const double t = timeOf(job, cluster, c, pl, opts.model);
    ++r.evaluated;
    if (t <= r.time) {
      best = std::move(tidy);
      r.time = t;
      r.placement = std::move(pl);
    }
  }
  return r;
}

PlacementResult parallel::searchPlacement(const TrainJob &job,
                                          const ParallelCluster &cluster,
                                          const ParallelConfig &c,
                                          const SearchOptions &opts) {
  if (!opts.searchPlacement || uniformLinks(cluster)) {
    PlacementResult r;
    r.method = opts.searchPlacement ? PlacementResult::Method::Uniform
                                    : PlacementResult::Method::Default;
    r.placement = Placement::identity(cluster.gpus());
    r.defaultTime = r.time = timeOf(job, cluster, c, r.placement, opts.model);
    r.evaluated = 1;
    return r;
  }
  if (placementCount(cluster) <= opts.exactPlacementLimit)
    return exactPlacement(job, cluster, c, opts);
  return annealPlacement(job, cluster, c, opts);
}

//===----------------------------------------------------------------------===//
// The search
//===----------------------------------------------------------------------===//

static llvm::Error searchError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

llvm::Expected<ParallelPlan>
parallel::planParallel(const TrainJob &job, const ParallelCluster &cluster,
                       const SearchOptions &opts) {
  if (std::string err = job.model.validate(); !err.empty())
    return searchError("bad model: " + err);
  if (std::string err = cluster.validate(); !err.empty())
    return searchError("bad cluster: " + err);
  if (job.globalBatch <= 0)
    return searchError("batch must be positive");
  if (job.model.moe() && opts.model.compressRank > 0)
    return searchError("not supported yet: Optimus-CC compression of a "
                       "mixture of experts (its expert gradients and "
                       "all-to-alls are not modelled compressed)");
  if (job.microBatch < 0 ||
      (job.microBatch > 0 && job.globalBatch % job.microBatch))
    return searchError("micro_batch " + llvm::Twine(job.microBatch) +
                       " must divide batch " + llvm::Twine(job.globalBatch));

  ParallelPlan plan;
  const std::vector<ParallelConfig> configs =
      enumerateConfigs(job, cluster, opts);
  plan.configurations = static_cast<int64_t>(configs.size());
  // Shape and memory first; survivors get their compute lower bound.
  struct Candidate {
    double bound;
    size_t index;
  };
  std::vector<Candidate> survivors;
  std::string firstShapeReason;
  std::optional<size_t> closest; // least memory over the GPU's
  double closestRatio = INFINITY;
  MemoryEstimate closestMemory;
  for (size_t i = 0; i < configs.size(); ++i) {
    std::string why;
    Constraint k = checkShape(job, cluster, configs[i], &why);
    if (k != Constraint::None) {
      ++plan.rejected[static_cast<size_t>(k)];
      if (firstShapeReason.empty())
        firstShapeReason = configs[i].str() + ": " + why;
      continue;
    }
    Estimate lb = evaluateWithComm(job, cluster, configs[i], {}, opts.model);
    if (lb.rejected == Constraint::Memory) {
      ++plan.rejected[static_cast<size_t>(Constraint::Memory)];
      const double ratio = lb.memory.ratio();
      if (ratio < closestRatio) {
        closestRatio = ratio;
        closest = i;
        closestMemory = lb.memory;
      }
      continue;
    }
    survivors.push_back({lb.time.iteration, i});
  }
  if (survivors.empty()) {
    if (closest) {
      plan.binding = Constraint::Memory;
      const MemoryEstimate &m = closestMemory;
      if (m.hostNeed > 0 &&
          m.hostNeed / m.hostAvailable > m.calibrated / m.available)
        plan.infeasibleReason =
            "host memory: the configuration needing the least (" +
            configs[*closest].str() + ") needs " +
            formatQuantity(m.hostNeed, Dim::bytes()) +
            " per host for its gpus' offloaded optimizer states, have " +
            formatQuantity(m.hostAvailable, Dim::bytes());
      else
        plan.infeasibleReason =
            "GPU memory: the configuration needing the least (" +
            configs[*closest].str() + ") needs " +
            formatQuantity(m.calibrated, Dim::bytes()) + " per gpu (states " +
            formatQuantity(m.params + m.grads + m.optimizer, Dim::bytes()) +
            ", activations " + formatQuantity(m.activations, Dim::bytes()) +
            ", x" +
            llvm::formatv("{0:F2}", opts.model.memoryCalibration).str() +
            " calibration), have " + formatQuantity(m.available, Dim::bytes());
    } else {
      plan.binding = plan.rejected[static_cast<size_t>(Constraint::TensorSpan)]
                         ? Constraint::TensorSpan
                         : Constraint::Divisibility;
      plan.infeasibleReason = "no configuration has a valid shape on " +
                              std::to_string(cluster.gpus()) +
                              " gpus (first: " + firstShapeReason + ")";
    }
    return plan;
  }
  std::stable_sort(survivors.begin(), survivors.end(),
                   [](const Candidate &a, const Candidate &b) {
                     return a.bound < b.bound ||
                            (a.bound == b.bound && a.index < b.index);
                   });
  // Branch and bound under the default placement.
  const Placement id = Placement::identity(cluster.gpus());
  std::vector<std::pair<double, size_t>> ranked; // (time, index)
  double best = INFINITY;
  for (const Candidate &cand : survivors) {
    if (cand.bound > best)
      break;
    const double t = timeOf(job, cluster, configs[cand.index], id, opts.model);
    ++plan.evaluated;
    ranked.push_back({t, cand.index});
    best = std::min(best, t);
  }
  std::sort(ranked.begin(), ranked.end());
  for (size_t i = 1; i < ranked.size() && plan.runnersUp.size() < 5; ++i)
    plan.runnersUp.push_back({configs[ranked[i].second], ranked[i].first});
  // Placement for the best few.
  std::optional<size_t> chosen;
  for (size_t i = 0;
       i < ranked.size() && static_cast<int64_t>(i) < opts.placementCandidates;
       ++i) {
    PlacementResult pr =
        searchPlacement(job, cluster, configs[ranked[i].second], opts);
    if (!chosen || pr.time < plan.placement.time) {
      chosen = ranked[i].second;
      plan.placement = std::move(pr);
    }
  }
  plan.feasible = true;
  plan.config = configs[*chosen];
  plan.estimate =
      evaluate(job, cluster, plan.config, plan.placement.placement, opts.model);
  plan.defaultEstimate = evaluate(job, cluster, plan.config, id, opts.model);
  // Why this ep: the chosen configuration with every other ep.
  if (job.model.moe())
    for (int64_t e : divisors(plan.config.dp)) {
      if (job.model.experts % e)
        continue;
      ParallelConfig c = plan.config;
      c.ep = e;
      EpAlternative alt;
      alt.ep = e;
      alt.estimate =
          evaluate(job, cluster, c, plan.placement.placement, opts.model);
      plan.epAlternatives.push_back(std::move(alt));
    }
  return plan;
}
