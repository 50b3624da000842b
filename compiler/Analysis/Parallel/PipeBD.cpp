//===- PipeBD.cpp - Pipelined blockwise distillation plans ----------------===//
//
// See PipeBD.h. best[i][g]: the smallest slowest-stage time of a pipeline
// covering blocks [0, i) on GPUs [0, g); a stage [j, i) x [h, g) extends
// best[j][h]. O(n^2 N^2) stage evaluations for n blocks and N GPUs.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Parallel/PipeBD.h"

#include "compiler/Analysis/Parallel/ParallelModel.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <limits>
#include <numeric>

using namespace sluice;
using namespace sluice::parallel;

namespace {

/// Samples one GPU of a k-way data-parallel group computes per batch.
double perGpuBatch(const DistillJob &job, int64_t k) {
  return std::ceil(static_cast<double>(job.batch) / static_cast<double>(k));
}

/// Samples whose activations one GPU of a k-way group holds at once.
double residentSamples(const DistillJob &job, int64_t k) {
  const double perGpu = perGpuBatch(job, k);
  return job.residentSamples > 0
             ? std::min(perGpu, static_cast<double>(job.residentSamples))
             : perGpu;
}

std::vector<int64_t> gpuRange(int64_t first, int64_t k) {
  std::vector<int64_t> r(static_cast<size_t>(k));
  std::iota(r.begin(), r.end(), first);
  return r;
}

} // namespace

PipeBDStage parallel::pipeBDStage(const DistillJob &job,
                                  const ParallelCluster &cluster, int64_t b0,
                                  int64_t nb, int64_t g0, int64_t k) {
  PipeBDStage s;
  s.firstBlock = b0;
  s.blocks = nb;
  s.firstGpu = g0;
  s.gpus = k;
  const double rate = cluster.gpuPeakFlops * job.efficiency;
  const double samples = perGpuBatch(job, k);
  const std::vector<int64_t> ranks = gpuRange(g0, k);
  double params = 0, states = 0, activations = 0;
  for (int64_t j = b0; j < b0 + nb; ++j) {
    const DistillBlock &b = job.blocks[static_cast<size_t>(j)];
    s.compute += (b.teacherFlops + b.studentFlops) * samples / rate;
    params += b.studentParamBytes;
    states += b.teacherParamBytes + b.studentStateBytes;
    activations += b.activationBytes;
  }
  s.memory =
      (states + activations * residentSamples(job, k)) * job.memoryCalibration;
  // One all-reduce of the stage's student gradients per batch.
  s.allReduce = ringAllReduce(cluster, ranks, params, job.commEfficiency);
  // The last teacher output goes to the next stage's first GPU (each of
  // this stage's GPUs sends its share of the batch).
  const int64_t last = b0 + nb - 1;
  if (last + 1 < static_cast<int64_t>(job.blocks.size()) &&
      g0 + k < cluster.gpus()) {
    const double bytes = job.blocks[static_cast<size_t>(last)].outputBytes *
                         static_cast<double>(job.batch);
    double slowest = std::numeric_limits<double>::infinity();
    for (int64_t g : ranks)
      slowest = std::min(slowest, cluster.bw(g, g0 + k));
    s.p2p = bytes / (slowest * job.commEfficiency) +
            cluster.lat(g0 + k - 1, g0 + k);
  }
  return s;
}

double parallel::pipeBDBaseline(const DistillJob &job,
                                const ParallelCluster &cluster) {
  const int64_t n = cluster.gpus();
  const double rate = cluster.gpuPeakFlops * job.efficiency;
  const double samples = perGpuBatch(job, n);
  const std::vector<int64_t> all = gpuRange(0, n);
  double total = 0, teacherPrefix = 0;
  for (const DistillBlock &b : job.blocks) {
    teacherPrefix += b.teacherFlops;
    total +=
        (teacherPrefix + b.studentFlops) * samples / rate +
        ringAllReduce(cluster, all, b.studentParamBytes, job.commEfficiency);
  }
  return total;
}

double parallel::pipeBDBaselineMemory(const DistillJob &job,
                                      const ParallelCluster &cluster) {
  const double resident = residentSamples(job, cluster.gpus());
  double teacherPrefix = 0, most = 0;
  for (const DistillBlock &b : job.blocks) {
    teacherPrefix += b.teacherParamBytes;
    most = std::max(most, teacherPrefix + b.studentStateBytes +
                              b.activationBytes * resident);
  }
  return most * job.memoryCalibration;
}

llvm::Expected<PipeBDPlan>
parallel::planPipeBD(const DistillJob &job, const ParallelCluster &cluster) {
  const int64_t n = static_cast<int64_t>(job.blocks.size());
  const int64_t N = cluster.gpus();
  auto bad = [](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), why);
  };
  if (n < 1)
    return bad("a distillation needs at least one block");
  if (job.batch < 1)
    return bad("the batch must have at least one sample");
  if (N < 1)
    return bad("the cluster has no gpu");
  if (!(cluster.gpuPeakFlops > 0) || !(job.efficiency > 0) ||
      !(job.commEfficiency > 0))
    return bad("the gpus' peak FLOP/s and the efficiencies must be positive");
  for (const DistillBlock &b : job.blocks)
    if (!(b.teacherFlops >= 0 && b.studentFlops >= 0 &&
          b.studentParamBytes >= 0 && b.outputBytes >= 0))
      return bad("block costs must be finite and not negative");
  for (const DistillBlock &b : job.blocks)
    if (!(b.teacherParamBytes >= 0 && b.studentStateBytes >= 0 &&
          b.activationBytes >= 0))
      return bad("block memory sizes must be finite and not negative");
  if (!(job.memoryCalibration > 0) || !(job.memoryReserve >= 0))
    return bad("the memory calibration must be positive and the reserve not "
               "negative");
  const double available = cluster.gpuMemory - job.memoryReserve;
  const double inf = std::numeric_limits<double>::infinity();
  const size_t W = static_cast<size_t>(N + 1);
  // best[i * W + g], and the last stage's start (j, h) for the backtrack.
  std::vector<double> best(static_cast<size_t>(n + 1) * W, inf);
  std::vector<std::pair<int64_t, int64_t>> from(best.size(), {-1, -1});
  best[0] = 0;
  for (int64_t i = 1; i <= n; ++i)
    for (int64_t g = 1; g <= N; ++g)
      for (int64_t j = 0; j < i; ++j)
        for (int64_t h = 0; h < g; ++h) {
          const double before = best[static_cast<size_t>(j) * W + h];
          if (before == inf || (j == 0) != (h == 0))
            continue;
          const PipeBDStage stage =
              pipeBDStage(job, cluster, j, i - j, h, g - h);
          if (!(stage.memory <= available))
            continue;
          const double t = std::max(before, stage.time());
          double &cell = best[static_cast<size_t>(i) * W + g];
          if (t < cell) {
            cell = t;
            from[static_cast<size_t>(i) * W + g] = {j, h};
          }
        }
  // Every GPU is used (an idle GPU never helps a data-parallel stage), but
  // fewer may tie: take the smallest time over g <= N for robustness.
  int64_t bestG = N;
  for (int64_t g = 1; g <= N; ++g)
    if (best[static_cast<size_t>(n) * W + g] <
        best[static_cast<size_t>(n) * W + bestG])
      bestG = g;
  if (best[static_cast<size_t>(n) * W + bestG] == inf) {
    // Each block alone on every GPU is the least any split asks of a GPU.
    int64_t worst = 0;
    double need = 0;
    for (int64_t j = 0; j < n; ++j) {
      double m = pipeBDStage(job, cluster, j, 1, 0, N).memory;
      if (m > need) {
        need = m;
        worst = j;
      }
    }
    return bad(llvm::formatv(
        "no split fits in GPU memory: block {0} alone on all {1} GPUs needs "
        "{2:F2} GiB per GPU, {3:F2} GiB are usable",
        worst, N, need / (1024.0 * 1024 * 1024),
        available / (1024.0 * 1024 * 1024)));
  }
  PipeBDPlan plan;
  plan.memoryAvailable = available;
  plan.baselineMemory = pipeBDBaselineMemory(job, cluster);
  plan.batchTime = best[static_cast<size_t>(n) * W + bestG];
  for (int64_t i = n, g = bestG; i > 0;) {
    auto [j, h] = from[static_cast<size_t>(i) * W + g];
    plan.stages.insert(plan.stages.begin(),
                       pipeBDStage(job, cluster, j, i - j, h, g - h));
    i = j;
    g = h;
  }
  plan.baselineTime = pipeBDBaseline(job, cluster);
  return plan;
}
