//===- ExpertParallel.cpp - The all-to-all of expert parallelism ----------===//
//
// The communication terms of a mixture of experts under expert parallelism
// (ParallelModel.h; docs/parallel.md, "Mixtures of experts"): the bytes of
// one dispatch or combine all-to-all and its time on the cluster's links.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Parallel/ParallelModel.h"

#include <algorithm>

using namespace sluice;
using namespace sluice::parallel;

double parallel::pairwiseAllToAll(const ParallelCluster &cluster,
                                  llvm::ArrayRef<int64_t> ranks, double bytes,
                                  double efficiency) {
  const size_t k = ranks.size();
  if (k < 2 || bytes <= 0)
    return 0;
  const double chunk = bytes / static_cast<double>(k);
  double slowest = 0;
  for (int64_t a : ranks) {
    double t = 0;
    for (int64_t b : ranks)
      if (a != b)
        t += chunk / (cluster.bw(a, b) * efficiency) + cluster.lat(a, b);
    slowest = std::max(slowest, t);
  }
  return slowest;
}

double parallel::expertAllToAllBytes(const TrainJob &job,
                                     const ParallelConfig &c) {
  const model::TransformerConfig &m = job.model;
  if (!m.moe())
    return 0;
  const double tokens = static_cast<double>(c.microBatch) *
                        static_cast<double>(m.seq) / static_cast<double>(c.tp);
  return tokens * m.routedPerToken() * static_cast<double>(m.hidden) *
         static_cast<double>(m.dtypeBytes);
}
