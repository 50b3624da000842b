//===- FinetuneDataParallel.cpp - Offloaded fine-tuning on several GPUs ---===//
#include "compiler/Analysis/Offload/FinetuneDataParallel.h"

#include "support/Units.h"

#include <algorithm>

using namespace sluice;
using namespace sluice::offload;

static std::string timeStr(double v) { return formatQuantity(v, Dim::time()); }

/// The stream that works longest in `p` ("CPU optimizer").
static std::string busiest(const FinetunePlan &p) {
  unsigned best = 0;
  for (unsigned s = 1; s < kNumStreams; ++s)
    if (p.busy[s] > p.busy[best])
      best = s;
  return streamName(static_cast<Stream>(best)).str();
}

llvm::Expected<DataParallelPlan>
offload::planFinetuneOverGpus(const FinetuneJob &job,
                              llvm::ArrayRef<Machine> machines,
                              const FinetuneOptions &opts) {
  if (machines.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no machine to plan on");
  std::vector<FinetunePlan> plans(machines.size());
  std::vector<FinetunePlan::GpuCount> counts;
  std::optional<size_t> best, lastSplit;
  for (size_t i = 0; i < machines.size(); ++i) {
    FinetunePlan::GpuCount c;
    c.gpus = machines[i].gpus;
    if (job.batch % c.gpus != 0) {
      c.rejection = "batch " + std::to_string(job.batch) +
                    " does not split evenly over " + std::to_string(c.gpus) +
                    " GPUs";
      counts.push_back(std::move(c));
      continue;
    }
    if (job.microBatch > 0 && (job.batch / c.gpus) % job.microBatch != 0) {
      c.rejection = "batch " + std::to_string(job.batch / c.gpus) +
                    " per GPU is not a multiple of the micro-batch " +
                    std::to_string(job.microBatch);
      counts.push_back(std::move(c));
      continue;
    }
    auto p = planFinetune(job, machines[i], opts);
    if (!p)
      return p.takeError();
    lastSplit = i;
    c.feasible = p->feasible;
    if (p->feasible)
      c.iterationTime = p->iterationTime;
    else
      c.rejection = p->infeasibleReason;
    counts.push_back(std::move(c));
    plans[i] = std::move(*p);
    if (plans[i].feasible &&
        (!best || plans[i].iterationTime < plans[*best].iterationTime))
      best = i;
  }
  if (!lastSplit)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   counts.front().rejection);
  DataParallelPlan out;
  if (best) {
    // Equally fast with fewer GPUs: keep those.
    for (size_t i = 0; i < *best; ++i)
      if (counts[i].feasible &&
          counts[i].iterationTime <=
              plans[*best].iterationTime * (1 + kDataParallelTie)) {
        best = i;
        break;
      }
    out.machine = *best;
  } else {
    out.machine = *lastSplit;
  }
  const FinetunePlan &chosen = plans[out.machine];
  for (size_t i = 0; i < counts.size(); ++i) {
    FinetunePlan::GpuCount &c = counts[i];
    if (i == out.machine || !c.feasible)
      continue;
    c.rejection = c.gpus < chosen.gpus
                      ? std::string("slower")
                      : "not faster (bounded by " + busiest(plans[i]) + ")";
  }
  if (best && out.machine + 1 < machines.size()) {
    const FinetunePlan::GpuCount &most = counts.back();
    out.plan.fewerGpusReason =
        std::to_string(most.gpus) + " GPUs: " +
        (most.feasible ? timeStr(most.iterationTime) + ", " : std::string()) +
        most.rejection + "; " + std::to_string(chosen.gpus) + " GPU" +
        (chosen.gpus > 1 ? "s" : "") + ": " + timeStr(chosen.iterationTime);
  }
  std::string reason = std::move(out.plan.fewerGpusReason);
  out.plan = std::move(plans[out.machine]);
  out.plan.fewerGpusReason = std::move(reason);
  if (machines.size() > 1)
    out.plan.gpuCounts = std::move(counts);
  return out;
}
