//===- OffloadSchedule.cpp - Offload plans as plan.schedule ---------------===//
#include "dialects/Model/Transforms/OffloadSchedule.h"

#include "compiler/Analysis/Offload/OffloadExport.h"
#include "compiler/Analysis/TopoAnalysis.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>
#include <vector>

using namespace mlir;
using namespace sluice;
using namespace sluice::offload;

namespace {

/// Widest paths between topology devices, by name, one tree per source.
class Paths {
public:
  explicit Paths(const analysis::TopoGraph &g) : g(g) {}

  /// The device names from `from` to `to`, or an empty vector when either
  /// is unknown or `to` is unreachable.
  std::vector<std::string> between(llvm::StringRef from, llvm::StringRef to) {
    std::optional<unsigned> a = g.findDevice(from), z = g.findDevice(to);
    if (!a || !z || *a == *z)
      return {};
    auto it = trees.find(*a);
    if (it == trees.end())
      it = trees.try_emplace(*a, analysis::computeWidestPaths(g, *a)).first;
    if (!it->second.reachable(*z))
      return {};
    std::vector<std::string> names{g.devices[*a].name};
    for (unsigned arc : it->second.pathTo(g, *z))
      names.push_back(g.devices[g.arcs[arc].to].name);
    return names;
  }

private:
  const analysis::TopoGraph &g;
  llvm::DenseMap<unsigned, analysis::WidestPathTree> trees;
};

/// The drives an SSD action of `plan` uses: the CSDs for the traffic of a
/// near-storage update and for parameters homed on the CSDs, else the
/// NVMe array.
const std::vector<std::string> &
drivesOf(const Action &a, const FinetunePlan &plan, const Machine &m) {
  bool csd =
      (plan.updateOnCsd &&
       (a.what == "write to csd" || a.what == "read updated")) ||
      (a.tensor == "params" && a.what == "read" && plan.paramHome == Tier::Csd);
  return csd ? m.devices.csd : m.devices.nvme;
}

/// What a schedule op carries besides its actions.
struct Header {
  plan::ScheduleMethod method;
  double makespan = 0, tflops = 0;
  NamedAttrList peak, links;
  int64_t dataParallel = 1;
};

/// `plan.schedule` of `actions`: compute actions as plan.compute on their
/// device, transfers as plan.transfer along the widest paths (SSD actions
/// striped over `drives(a)`).
FailureOr<plan::ScheduleOp> buildActions(
    OpBuilder &b, Location loc, llvm::StringRef name, llvm::StringRef topology,
    const Header &h, llvm::ArrayRef<Action> actions,
    llvm::function_ref<std::string(const Action &)> labelOf,
    llvm::function_ref<const std::vector<std::string> &(const Action &)> drives,
    const Machine &m, const analysis::TopoGraph &graph) {
  if (m.devices.gpu.empty() || m.devices.cpu.empty())
    return mlir::emitError(loc)
           << "the machine names no topology devices (plan it with "
              "machineFromTopo)";
  auto f64 = [&](double v) { return b.getF64FloatAttr(v); };
  auto sched = b.create<plan::ScheduleOp>(
      loc, b.getStringAttr(name),
      FlatSymbolRefAttr::get(b.getContext(), topology), f64(h.makespan),
      plan::ScheduleMethodAttr::get(b.getContext(), h.method), FloatAttr(),
      FloatAttr(), FloatAttr(), f64(0.0), f64(h.tflops),
      h.peak.getDictionary(b.getContext()),
      h.links.getDictionary(b.getContext()),
      h.dataParallel > 1 ? b.getI64IntegerAttr(h.dataParallel) : IntegerAttr());
  Block *body = new Block();
  sched.getBody().push_back(body);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(body);

  Paths paths(graph);
  auto fail = [&](llvm::StringRef what) {
    sched->erase();
    return mlir::emitError(loc) << what;
  };
  for (size_t i = 0; i < actions.size(); ++i) {
    const Action &a = actions[i];
    llvm::StringRef stream = streamName(a.stream);
    std::string label = labelOf(a);
    auto compute = [&](llvm::StringRef device, double share) {
      b.create<plan::ComputeOp>(
          loc, b.getStringAttr(label), b.getStringAttr(device),
          b.getStringAttr(stream), f64(a.start), f64(a.end),
          a.flops > 0 ? f64(a.flops * share) : FloatAttr(),
          a.bytes > 0 ? f64(a.bytes * share) : FloatAttr());
    };
    switch (a.stream) {
    case Stream::GpuCompute:
      compute(m.devices.gpu, 1.0);
      continue;
    case Stream::CpuOptimizer:
    case Stream::CpuCompute:
      compute(m.devices.cpu, 1.0);
      continue;
    case Stream::CsdOptimizer:
      if (m.devices.csd.empty())
        return fail("the plan updates on CSDs but the machine names none");
      for (const std::string &d : m.devices.csd)
        compute(d, 1.0 / static_cast<double>(m.devices.csd.size()));
      continue;
    default:
      break;
    }
    if (a.bytes <= 0)
      continue;
    // Transfers: (source, destination) pairs sharing the bytes evenly.
    std::vector<std::pair<std::string, std::string>> ends;
    if (a.stream == Stream::H2D)
      ends.push_back({m.devices.cpu, m.devices.gpu});
    else if (a.stream == Stream::D2H)
      ends.push_back({m.devices.gpu, m.devices.cpu});
    else if (a.stream == Stream::Peer) {
      // The first GPU's side of a ring collective: to its ring successor.
      if (m.devices.gpuGroup.size() < 2)
        return fail("the plan uses '" + stream.str() +
                    "' but the machine names no second gpu");
      ends.push_back({m.devices.gpu, m.devices.gpuGroup[1]});
    } else {
      const std::vector<std::string> &ds = drives(a);
      if (ds.empty())
        return fail("the plan uses '" + stream.str() +
                    "' but the machine names no drive for '" + label + "'");
      for (const std::string &d : ds)
        ends.push_back(a.stream == Stream::SsdRead
                           ? std::make_pair(d, m.devices.cpu)
                           : std::make_pair(m.devices.cpu, d));
    }
    double bytes = a.bytes / static_cast<double>(ends.size());
    double dur = a.end - a.start;
    if (!(dur > 0))
      return fail("transfer '" + label + "' of " + std::to_string(a.bytes) +
                  " bytes takes no time");
    for (const auto &[src, dst] : ends) {
      std::vector<std::string> path = paths.between(src, dst);
      if (path.empty())
        return fail("no path from '" + src + "' to '" + dst +
                    "' in topology '" + topology.str() + "'");
      llvm::SmallVector<llvm::StringRef> refs(path.begin(), path.end());
      b.create<plan::TransferOp>(
          loc, b.getStringAttr(src), b.getStringAttr(dst), f64(bytes),
          b.getStrArrayAttr(refs), f64(bytes / dur), f64(a.start), f64(a.end),
          b.getI64IntegerAttr(1), b.getI64IntegerAttr(static_cast<int64_t>(i)),
          b.getStringAttr(stream), b.getStringAttr(a.tensor),
          b.getStringAttr(label));
    }
  }
  return sched;
}

} // namespace

FailureOr<plan::ScheduleOp> sluice::model::buildFinetuneSchedule(
    OpBuilder &b, Location loc, llvm::StringRef name, llvm::StringRef topology,
    const FinetunePlan &plan, const Machine &m,
    const analysis::TopoGraph &graph) {
  if (!plan.feasible)
    return mlir::emitError(loc) << "no schedule for an infeasible plan ("
                                << plan.infeasibleReason << ")";
  auto f64 = [&](double v) { return b.getF64FloatAttr(v); };
  Header h;
  h.method = plan::ScheduleMethod::OffloadFinetune;
  h.makespan = plan.iterationTime;
  h.tflops = plan.tflops();
  h.dataParallel = plan.gpus;
  h.peak.append("gpu", f64(plan.peak.gpu));
  h.peak.append("host", f64(plan.peak.host));
  h.peak.append("nvme", f64(plan.peak.nvme));
  h.peak.append("csd", f64(plan.peak.csd));
  h.links.append("h2d", f64(plan.links.h2d));
  h.links.append("d2h", f64(plan.links.d2h));
  h.links.append("ssd_read", f64(plan.links.ssdRead));
  h.links.append("ssd_write", f64(plan.links.ssdWrite));
  h.links.append("csd_internal", f64(plan.links.csdInternal));
  return buildActions(
      b, loc, name, topology, h, plan.schedule,
      [&](const Action &a) {
        return actionLabel(a, plan.accumulationSteps > 1, false);
      },
      [&](const Action &a) -> const std::vector<std::string> & {
        return drivesOf(a, plan, m);
      },
      m, graph);
}

FailureOr<plan::ScheduleOp> sluice::model::buildInferenceSchedule(
    OpBuilder &b, Location loc, llvm::StringRef name, llvm::StringRef topology,
    const InferencePlan &plan, llvm::ArrayRef<Action> schedule,
    const Machine &m, const analysis::TopoGraph &graph) {
  if (!plan.feasible)
    return mlir::emitError(loc) << "no schedule for an infeasible plan ("
                                << plan.infeasibleReason << ")";
  auto f64 = [&](double v) { return b.getF64FloatAttr(v); };
  Header h;
  h.method = plan::ScheduleMethod::OffloadInfer;
  double flops = 0, end = 0;
  double bytes[kNumStreams] = {};
  for (const Action &a : schedule) {
    flops += a.flops;
    bytes[static_cast<unsigned>(a.stream)] += a.bytes;
    end = std::max(end, a.end);
  }
  // The schedule's sum of layer slots; the plan's total up to rounding.
  h.makespan = std::max(end, plan.totalTime());
  h.tflops = h.makespan > 0 ? flops / h.makespan / 1e12 : 0.0;
  h.peak.append("gpu", f64(plan.gpuBytes));
  h.peak.append("host", f64(plan.cpuBytes));
  h.peak.append("nvme", f64(plan.diskBytes));
  h.links.append("h2d", f64(bytes[unsigned(Stream::H2D)]));
  h.links.append("d2h", f64(bytes[unsigned(Stream::D2H)]));
  h.links.append("ssd_read", f64(bytes[unsigned(Stream::SsdRead)]));
  h.links.append("ssd_write", f64(bytes[unsigned(Stream::SsdWrite)]));
  return buildActions(
      b, loc, name, topology, h, schedule,
      [](const Action &a) { return actionLabel(a, false, true); },
      [&](const Action &) -> const std::vector<std::string> & {
        return m.devices.nvme;
      },
      m, graph);
}
