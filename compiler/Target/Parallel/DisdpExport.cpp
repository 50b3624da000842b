//===- DisdpExport.cpp - DisDP plans as text, JSON and a trace ------------===//
//
// See DisdpExport.h. The timelines are re-simulated from the plan's
// durations (the simulation is deterministic: the same iterations as the
// pass wrote).
//
//===----------------------------------------------------------------------===//
#include "compiler/Target/Parallel/DisdpExport.h"

#include "compiler/Analysis/Parallel/DisDP.h"
#include "compiler/Analysis/TraceEvents.h"
#include "dialects/Model/IR/ModelOps.h"
#include "dialects/Plan/IR/PlanOps.h"
#include "support/Units.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace sluice;
using namespace sluice::target;
using llvm::json::Object;
using parallel::DisdpSpan;
using parallel::DisdpTimeline;

namespace {

double f64(FloatAttr a) { return a.getValueAsDouble(); }
std::string t(double s) { return formatQuantity(s, Dim::time()); }
std::string bytes(double b) { return formatQuantity(b, Dim::bytes()); }

parallel::DisdpProblem problemOf(plan::DisdpOp op) {
  parallel::DisdpProblem p;
  p.gpus = op.getGpus();
  p.layers = op.getLayers();
  p.microBatches = op.getMicroBatches();
  p.forward = f64(op.getForwardAttr());
  p.backward = f64(op.getBackwardAttr());
  p.ringAllGather = f64(op.getRingAllGatherAttr());
  p.ringReduceScatter = f64(op.getRingReduceScatterAttr());
  p.paramFetch = f64(op.getParamFetchAttr());
  p.baselineOptimizer = f64(op.getBaselineOptimizerAttr());
  p.netAllGather = f64(op.getNetAllGatherAttr());
  p.netReduceScatter = f64(op.getNetReduceScatterAttr());
  p.psUpdate = f64(op.getPsUpdateAttr());
  return p;
}

const char *laneName(DisdpSpan::Lane l) {
  switch (l) {
  case DisdpSpan::Lane::Compute:
    return "gpu compute";
  case DisdpSpan::Lane::Down:
    return "parameters in (all-gather)";
  case DisdpSpan::Lane::Up:
    return "gradients out (reduce-scatter)";
  case DisdpSpan::Lane::Optimizer:
    return "optimizer";
  }
  return "?";
}

/// The lane busiest over `tl`, and its busy time.
std::pair<const char *, double> binding(const DisdpTimeline &tl) {
  std::pair<const char *, double> lanes[] = {
      {"gpu compute", tl.compute},
      {"in-network all-gather", tl.down},
      {"in-network reduce-scatter", tl.up},
      {"parameter-server update", tl.optimizer}};
  return *std::max_element(
      std::begin(lanes), std::end(lanes),
      [](const auto &a, const auto &b) { return a.second < b.second; });
}

std::string recomputeWord(plan::Recompute r) {
  return r == plan::Recompute::None ? "none"
                                    : plan::stringifyRecompute(r).str();
}

void writeSummary(plan::DisdpOp op, model::JobOp job, llvm::raw_ostream &os) {
  const parallel::DisdpProblem p = problemOf(op);
  const DisdpTimeline base = parallel::simulateZero3(p);
  const DisdpTimeline dis = parallel::simulateDisdp(p);
  std::string reducers;
  for (Attribute a : op.getReducers())
    reducers +=
        (reducers.empty() ? "" : ", ") + cast<StringAttr>(a).getValue().str();
  os << "job " << job.getSymName() << ": train " << job.getModel() << " on "
     << op.getTopology() << " (" << p.gpus << " gpus), DisDP: parameter server "
     << op.getParameterServer() << ", collectives in the network on "
     << reducers << "\n";
  os << "  ZeRO-3 data parallel, micro-batch " << op.getMicroBatch() << " x "
     << p.microBatches << " per gpu (batch " << job.getBatchAttr().getInt()
     << "), recompute " << recomputeWord(op.getRecompute()) << "; " << p.layers
     << " layers, "
     << llvm::formatv("{0:f2}", f64(op.getParametersAttr()) / 1e9).str()
     << " B parameters\n";
  os << "  iteration: DisDP " << t(dis.iteration) << " predicted; ZeRO-3 "
     << t(base.iteration) << " serialised ("
     << llvm::formatv("{0:f2}", base.iteration / dis.iteration).str() << "x)\n";
  auto [lane, busy] = binding(dis);
  os << "  DisDP is bound by the " << lane << " (busy " << t(busy)
     << "); ZeRO-3: compute " << t(base.compute) << ", collectives "
     << t(base.down + base.up) << ", optimizer " << t(base.optimizer) << "\n";
  os << "  per layer: forward " << t(p.forward) << ", backward "
     << t(p.backward) << " (one micro-batch); all-gather ring "
     << t(p.ringAllGather) << " / in network " << t(p.netAllGather)
     << "; reduce-scatter ring " << t(p.ringReduceScatter) << " / in network "
     << t(p.netReduceScatter) << "; optimizer ZeRO-3 " << t(p.baselineOptimizer)
     << " / parameter server " << t(p.psUpdate) << "\n";
  os << "  ZeRO-3: optimizer on "
     << (op.getBaselineOffloadOptimizer() ? "the hosts' cpus" : "the gpus")
     << ", parameter shards in "
     << (op.getBaselineOffloadParams()
             ? "host memory (fetched " + t(p.paramFetch) + " per gather)"
             : std::string("gpu memory"))
     << "\n";
  os << "  memory per gpu: DisDP " << bytes(f64(op.getMemoryAttr()))
     << ", ZeRO-3 " << bytes(f64(op.getBaselineMemoryAttr())) << " of "
     << bytes(f64(op.getMemoryAvailableAttr()))
     << " (calibrated); parameter server " << bytes(f64(op.getPsMemoryAttr()))
     << " of " << bytes(f64(op.getPsMemoryAvailableAttr())) << "\n";
}

Object toJson(plan::DisdpOp op) {
  const parallel::DisdpProblem p = problemOf(op);
  const DisdpTimeline base = parallel::simulateZero3(p);
  const DisdpTimeline dis = parallel::simulateDisdp(p);
  auto lanes = [](const DisdpTimeline &tl) {
    return Object{{"iteration", tl.iteration},
                  {"compute", tl.compute},
                  {"all_gather", tl.down},
                  {"reduce_scatter", tl.up},
                  {"optimizer", tl.optimizer}};
  };
  llvm::json::Array reducers;
  for (Attribute a : op.getReducers())
    reducers.push_back(cast<StringAttr>(a).getValue().str());
  return Object{
      {"topology", op.getTopology().str()},
      {"parameter_server", op.getParameterServer().str()},
      {"reducers", std::move(reducers)},
      {"gpus", p.gpus},
      {"micro_batch", op.getMicroBatch()},
      {"micro_batches", p.microBatches},
      {"recompute", recomputeWord(op.getRecompute())},
      {"layers", p.layers},
      {"parameters", f64(op.getParametersAttr())},
      {"disdp", lanes(dis)},
      {"zero3", lanes(base)},
      {"speedup", base.iteration / dis.iteration},
      {"per_layer", Object{{"forward", p.forward},
                           {"backward", p.backward},
                           {"ring_all_gather", p.ringAllGather},
                           {"ring_reduce_scatter", p.ringReduceScatter},
                           {"param_fetch", p.paramFetch},
                           {"zero3_optimizer", p.baselineOptimizer},
                           {"net_all_gather", p.netAllGather},
                           {"net_reduce_scatter", p.netReduceScatter},
                           {"ps_update", p.psUpdate}}},
      {"zero3_offload_optimizer", op.getBaselineOffloadOptimizer()},
      {"zero3_offload_params", op.getBaselineOffloadParams()},
      {"memory", Object{{"disdp_per_gpu", f64(op.getMemoryAttr())},
                        {"zero3_per_gpu", f64(op.getBaselineMemoryAttr())},
                        {"gpu_available", f64(op.getMemoryAvailableAttr())},
                        {"parameter_server", f64(op.getPsMemoryAttr())},
                        {"parameter_server_available",
                         f64(op.getPsMemoryAvailableAttr())}}}};
}

void writeTrace(ArrayRef<plan::DisdpOp> ops, llvm::raw_ostream &os) {
  llvm::json::OStream j(os, 1);
  j.object([&] {
    j.attribute("displayTimeUnit", "ms");
    j.attributeArray("traceEvents", [&] {
      int64_t pid = 0;
      for (plan::DisdpOp op : ops) {
        const parallel::DisdpProblem p = problemOf(op);
        const std::pair<std::string, DisdpTimeline> layouts[] = {
            {"ZeRO-3 serialised", parallel::simulateZero3(p)},
            {"DisDP", parallel::simulateDisdp(p)}};
        for (const auto &[what, tl] : layouts) {
          ++pid;
          analysis::traceMetadata(j, "process_name", pid, -1,
                                  op.getJob().str() + ": " + what +
                                      ", iteration " + t(tl.iteration));
          for (int lane = 0; lane < 4; ++lane)
            analysis::traceMetadata(
                j, "thread_name", pid, lane,
                laneName(static_cast<DisdpSpan::Lane>(lane)));
          for (const DisdpSpan &s : tl.spans)
            j.object([&] {
              j.attribute("name", s.name);
              j.attribute("cat", laneName(s.lane));
              j.attribute("ph", "X");
              j.attribute("pid", pid);
              j.attribute("tid", static_cast<int64_t>(s.lane));
              j.attribute("ts", s.start * 1e6);
              j.attribute("dur", (s.end - s.start) * 1e6);
              j.attributeObject(
                  "args", [&] { j.attribute("micro_batch", s.microBatch); });
            });
        }
      }
    });
  });
  os << "\n";
}

SmallVector<plan::DisdpOp> plansOf(ModuleOp module, StringRef jobName) {
  SmallVector<plan::DisdpOp> plans;
  for (plan::DisdpOp op : module.getOps<plan::DisdpOp>())
    if (jobName.empty() || op.getJob() == jobName)
      plans.push_back(op);
  return plans;
}

} // namespace

bool target::hasDisdpPlans(ModuleOp module, StringRef jobName) {
  return !plansOf(module, jobName).empty();
}

LogicalResult target::writeDisdpPlans(ModuleOp module, StringRef jobName,
                                      DisdpFormat format,
                                      llvm::raw_ostream &os) {
  SmallVector<plan::DisdpOp> plans = plansOf(module, jobName);
  if (plans.empty())
    return emitError(module.getLoc()) << "no DisDP plan";
  if (format == DisdpFormat::Trace) {
    writeTrace(plans, os);
    return success();
  }
  Object all;
  for (plan::DisdpOp op : plans) {
    auto job =
        SymbolTable::lookupNearestSymbolFrom<model::JobOp>(op, op.getJobAttr());
    if (!job)
      return op.emitError()
             << "'" << op.getJob() << "' does not name a model.job";
    if (format == DisdpFormat::Summary)
      writeSummary(op, job, os);
    else
      all[job.getSymName()] = toJson(op);
  }
  if (format == DisdpFormat::Json)
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(all))) << "\n";
  return success();
}
