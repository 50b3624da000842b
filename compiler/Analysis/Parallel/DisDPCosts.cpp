//===- DisDPCosts.cpp - DisDP's durations from a topology -----------------===//
//
// See DisDPCosts.h.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Parallel/DisDPCosts.h"

#include "compiler/Analysis/Flow/Collectives.h"
#include "compiler/Analysis/Offload/OffloadMachine.h"
#include "compiler/Analysis/Parallel/ParallelCluster.h"
#include "compiler/Analysis/TopoAnalysis.h"
#include "support/Units.h"

using namespace sluice;
using namespace sluice::parallel;

namespace {

llvm::Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

std::string bytes(double b) { return formatQuantity(b, Dim::bytes()); }

const char *recomputeWord(model::Recompute r) {
  switch (r) {
  case model::Recompute::None:
    return "no";
  case model::Recompute::Selective:
    return "selective";
  case model::Recompute::Full:
    return "full";
  }
  return "?";
}

/// GPU bytes of one layout: `states` (sharded model states), `buffers`
/// (gathered layers) and the activations, calibrated.
double gpuNeed(double states, double buffers, double activations,
               const ModelOptions &o) {
  return (states + buffers + activations) * o.memoryCalibration;
}

} // namespace

llvm::Expected<DisdpPlan> parallel::planDisdpOnTopology(
    const analysis::TopoGraph &g, llvm::StringRef name, const TrainJob &job,
    llvm::StringRef psPath, const ModelOptions &opts) {
  DisdpPlan plan;
  plan.topology = name.str();
  plan.parameterServer = psPath.str();
  auto cluster = clusterFromTopo(g, name);
  if (!cluster)
    return cluster.takeError();
  const int64_t d = cluster->gpus();
  if (d < 2)
    return fail("model-sharded data parallelism needs at least 2 gpus, '" +
                name + "' has " + llvm::Twine(d));
  std::optional<unsigned> ps = g.findDevice(psPath);
  if (!ps)
    return fail("parameter server '" + psPath + "' is not a device of '" +
                name + "'");
  const analysis::TopoDevice &psDev = g.devices[*ps];
  const analysis::QuantityProp *psMem = psDev.findQuantity("memory");
  const analysis::QuantityProp *psBw = psDev.findQuantity("memory_bandwidth");
  if (psDev.kind != "cpu" || !psMem || !psBw)
    return fail("parameter server '" + psPath +
                "' must be a cpu with memory and memory_bandwidth (it holds "
                "the optimizer states and updates them), got a " +
                psDev.kind + (psMem && psBw ? "" : " without them"));
  std::vector<unsigned> reducers = flow::findReducers(g);
  if (reducers.empty())
    return fail("topology '" + name +
                "' has no switch with `reduce: true` to run the collectives "
                "in the network");
  for (unsigned r : reducers)
    plan.reducers.push_back(g.devices[r].name);

  // Model and batch.
  const model::ParameterBreakdown params = model::countParameters(job.model);
  plan.parameters = static_cast<double>(params.total());
  const int64_t L = job.model.layers;
  const double layerParams = plan.parameters / static_cast<double>(L);
  const double layerBytes = 2 * layerParams;
  const int64_t b = job.microBatch > 0 ? job.microBatch : 1;
  if (job.globalBatch % (d * b) != 0)
    return fail("batch " + llvm::Twine(job.globalBatch) +
                " is not a multiple of " + llvm::Twine(d) +
                " gpus x micro-batch " + llvm::Twine(b));
  plan.microBatch = b;
  DisdpProblem &p = plan.problem;
  p.gpus = d;
  p.layers = L;
  p.microBatches = job.globalBatch / (d * b);

  // Memory: the least recomputation under which DisDP's GPUs (two gathered
  // layers, one layer's gradients, the activations) fit, and conventional
  // ZeRO-3 fits with its shards on the GPU or, failing that, in host memory.
  const double N = plan.parameters;
  const double dd = static_cast<double>(d);
  const bool hostCpus = cluster->canOffload();
  ParallelConfig c;
  c.dp = d;
  c.microBatch = b;
  c.zeroStage = 3;
  c.offloadOptimizer = hostCpus;
  std::string lastReason;
  bool found = false;
  for (model::Recompute r :
       {model::Recompute::None, model::Recompute::Selective,
        model::Recompute::Full}) {
    if (job.recomputeRequired && r == model::Recompute::None)
      continue;
    c.recompute = r;
    const MemoryEstimate m = estimateMemory(job, *cluster, c, opts);
    plan.gpuAvailable = m.available;
    plan.disdpGpuMemory = gpuNeed(0, 3 * layerBytes, m.activations, opts);
    const double states = hostCpus ? 4 * N / dd : 16 * N / dd;
    plan.baselineOffloadsParams = false;
    plan.baselineGpuMemory =
        gpuNeed(states, 2 * layerBytes, m.activations, opts);
    if (plan.baselineGpuMemory > m.available && hostCpus) {
      plan.baselineOffloadsParams = true;
      plan.baselineGpuMemory = gpuNeed(0, 3 * layerBytes, m.activations, opts);
    }
    if (plan.disdpGpuMemory <= m.available &&
        plan.baselineGpuMemory <= m.available) {
      found = true;
      plan.recompute = r;
      break;
    }
    lastReason = "with " + std::string(recomputeWord(r)) +
                 " recomputation DisDP needs " + bytes(plan.disdpGpuMemory) +
                 " and ZeRO-3 " + bytes(plan.baselineGpuMemory) +
                 " per gpu, have " + bytes(m.available);
  }
  if (!found)
    return fail("GPU memory: " + lastReason);
  plan.baselineOffloadsOptimizer = hostCpus;
  const double hostNeed = (12 + (plan.baselineOffloadsParams ? 4 : 0)) * N /
                          dd * static_cast<double>(cluster->gpusPerHost);
  if (hostCpus && hostNeed > cluster->hostMemory * opts.hostUsableFraction)
    return fail("host memory: conventional ZeRO-3 offloads " + bytes(hostNeed) +
                " per host, have " +
                bytes(cluster->hostMemory * opts.hostUsableFraction));
  plan.psMemory = 16 * N;
  plan.psAvailable = psMem->value * opts.hostUsableFraction;
  if (plan.psMemory > plan.psAvailable)
    return fail("parameter server '" + psPath + "' holds " +
                bytes(plan.psMemory) + " of model states (16 B/param), has " +
                bytes(plan.psAvailable) + " usable");

  // Compute (no communication: the 3D planner's roofline).
  const Estimate e = evaluateWithComm(job, *cluster, c, CommTimes{}, opts);
  p.forward = e.time.forward / static_cast<double>(L);
  p.backward = e.time.backward / static_cast<double>(L);

  // Collectives of one layer, over the GPUs in host order.
  flow::FlowNetwork net = flow::buildNetwork(g);
  std::vector<unsigned> group;
  for (const HostGpus &h : gpusByHost(g, name))
    group.insert(group.end(), h.devices.begin(), h.devices.end());
  for (unsigned v : group)
    plan.gpus.push_back(g.devices[v].name);
  const double eff = opts.collectiveEfficiency;
  auto timed = [&](llvm::Expected<flow::CollectivePlan> cp,
                   double &out) -> llvm::Error {
    if (!cp)
      return cp.takeError();
    out = cp->flowTime / eff;
    return llvm::Error::success();
  };
  using flow::CollectiveKind;
  if (auto err = timed(flow::planRingCollective(
                           net, group, CollectiveKind::AllGather, layerBytes),
                       p.ringAllGather))
    return std::move(err);
  if (auto err =
          timed(flow::planRingCollective(
                    net, group, CollectiveKind::ReduceScatter, layerBytes),
                p.ringReduceScatter))
    return std::move(err);
  if (auto err = timed(flow::planInNetworkCollective(net, group,
                                                     CollectiveKind::AllGather,
                                                     layerBytes, reducers),
                       p.netAllGather))
    return std::move(err);
  if (auto err = timed(
          flow::planInNetworkCollective(
              net, group, CollectiveKind::ReduceScatter, layerBytes, reducers),
          p.netReduceScatter))
    return std::move(err);
  // The PS sends every layer once and receives its reduced gradients once.
  plan.psBandwidth =
      std::min(analysis::computeMinCut(g, {*ps}, reducers).capacity,
               analysis::computeMinCut(g, reducers, {*ps}).capacity);
  if (!(plan.psBandwidth > 0))
    return fail("parameter server '" + psPath +
                "' has no path to the reducing switch(es)");
  p.netAllGather =
      std::max(p.netAllGather, layerBytes / plan.psBandwidth / eff);
  p.netReduceScatter =
      std::max(p.netReduceScatter, layerBytes / plan.psBandwidth / eff);

  // Optimizers: the PS updates every parameter; ZeRO-3 its shards.
  const double psRate = psBw->value * offload::kDefaultAdamBandwidthFraction /
                        offload::kAdamHostBytesPerParam;
  p.psUpdate = layerParams / psRate;
  const double shard = layerParams / dd;
  if (hostCpus) {
    const double link = cluster->hostLinkBandwidth;
    p.baselineOptimizer = 2 * shard / link +
                          shard * static_cast<double>(cluster->gpusPerHost) /
                              cluster->hostAdamRate +
                          2 * shard / link;
    if (plan.baselineOffloadsParams)
      p.paramFetch = 2 * shard / link;
  } else {
    if (!(cluster->gpuMemoryBandwidth > 0))
      return fail("conventional ZeRO-3 updates on the gpu: the gpus of '" +
                  name + "' need a memory_bandwidth");
    p.baselineOptimizer = 2 * 16 * shard / cluster->gpuMemoryBandwidth;
  }
  std::string bad = p.validate();
  if (!bad.empty())
    return fail(bad);
  plan.result = planDisdp(p);
  return plan;
}
