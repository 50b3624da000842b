//===- GatherJob.cpp - Placement and demands of gather jobs ---------------===//
#include "dialects/Plan/Transforms/GatherJob.h"

#include "compiler/Analysis/Flow/GatherAccess.h"
#include "compiler/Analysis/Flow/IntegralPlacement.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"

#include "sluice/graph.h"

using namespace mlir;
using namespace sluice;
using namespace sluice::plan;

static std::string bytesText(double b) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::format("%.4g ", b) << units[u];
  return out;
}

/// The devices of one pattern, ascending.
static FailureOr<std::vector<unsigned>> devicesOf(DemandOp op, StringRef p,
                                                  const PlanNetwork &pn) {
  auto matched = matchDevices(pn.net, p);
  if (!matched)
    return op.emitError() << llvm::toString(matched.takeError());
  if (matched->empty())
    return op.emitError() << "no device of topology '"
                          << op->getParentOfType<DemandsOp>().getTopology()
                          << "' matches '" << p << "'";
  return *matched;
}

/// Expected accesses from the job's graph (sluice_graph_load).
static FailureOr<flow::AccessCounts>
sampledAccesses(DemandOp op, DictionaryAttr job, size_t destinations,
                int64_t items) {
  StringRef path = job.getAs<StringAttr>("graph").getValue();
  StringRef format = job.getAs<StringAttr>("graph_format").getValue();
  sluice_graph_load_options_t load;
  sluice_graph_load_options_init(&load);
  if (format == "snap" || format == "edgelist")
    load.format = SLUICE_GRAPH_FORMAT_SNAP;
  else if (format == "mtx")
    load.format = SLUICE_GRAPH_FORMAT_MTX;
  else if (format == "csr")
    load.format = SLUICE_GRAPH_FORMAT_BINARY;
  else
    return op.emitError() << "unknown graph format '" << format << "'";
  if (auto u = job.getAs<BoolAttr>("graph_undirected"); u && u.getValue())
    load.flags |= SLUICE_GRAPH_LOAD_UNDIRECTED;
  if (load.format != SLUICE_GRAPH_FORMAT_BINARY)
    load.flags |= SLUICE_GRAPH_LOAD_COMPACT_IDS;
  load.flags |= SLUICE_GRAPH_LOAD_QUIET;
  sluice_graph_t *g = nullptr;
  sluice_error_t error;
  std::string pathStr = path.str();
  if (sluice_graph_load(pathStr.c_str(), &load, &g, &error) != SLUICE_STATUS_OK)
    return op.emitError() << "cannot load the graph of the gather job '"
                          << path << "': " << error.message;
  auto release = llvm::make_scope_exit([&] { sluice_graph_release(g); });
  uint64_t n = sluice_graph_num_vertices(g);
  if (n != static_cast<uint64_t>(items))
    return op.emitError() << "the gather job has " << items
                          << " items but its graph '" << path << "' has " << n
                          << " vertices (one item per vertex)";
  const uint64_t *offsets = sluice_graph_offsets(g);
  const uint32_t *targets = sluice_graph_targets(g);
  uint64_t m = sluice_graph_num_edges(g);
  return flow::expectedSampledAccesses(
      llvm::ArrayRef(offsets, n + 1), llvm::ArrayRef(targets, m),
      destinations, job.getAs<DenseI64ArrayAttr>("fanout").asArrayRef());
}

FailureOr<GatherJobPlan>
sluice::plan::planGatherJob(DemandOp op, const PlanNetwork &pn,
                            const analysis::TopoGraph &graph) {
  DictionaryAttr job = op.getJobAttr();
  GatherJobPlan plan;
  plan.items = job.getAs<IntegerAttr>("items").getInt();
  plan.itemBytes = job.getAs<FloatAttr>("item_bytes").getValueAsDouble();
  plan.classes = 16;
  if (auto c = job.getAs<IntegerAttr>("classes"))
    plan.classes = static_cast<size_t>(c.getInt());
  ArrayAttr capacity = job.getAs<ArrayAttr>("capacity");

  // Destinations (deduplicated, pattern order) and tiers (one per pattern).
  llvm::SetVector<unsigned> dests;
  for (Attribute a : op.getDestinations()) {
    auto d = devicesOf(op, cast<StringAttr>(a).getValue(), pn);
    if (failed(d))
      return failure();
    dests.insert(d->begin(), d->end());
  }
  flow::PlacementProblem problem;
  problem.destinations.assign(dests.begin(), dests.end());
  double needed = static_cast<double>(plan.items) * plan.itemBytes;
  double total = 0;
  for (auto [t, a] : llvm::enumerate(op.getSources())) {
    StringRef pattern = cast<StringAttr>(a).getValue();
    auto devs = devicesOf(op, pattern, pn);
    if (failed(devs))
      return failure();
    flow::PlacementTier tier;
    tier.name = pattern.str();
    tier.devices = *devs;
    for (unsigned d : tier.devices) {
      const analysis::TopoDevice &dev = graph.devices[d];
      const analysis::QuantityProp *q = dev.findQuantity("capacity");
      if (!q)
        q = dev.findQuantity("memory");
      std::optional<double> given;
      if (capacity)
        given = cast<FloatAttr>(capacity[t]).getValueAsDouble();
      if (!q && !given)
        return op.emitError()
               << "device '" << dev.name << "' of tier '" << pattern
               << "' has no 'capacity' or 'memory' property; give the job a "
                  "'capacity'";
      if (q && given && *given > q->value)
        return op.emitError()
               << "'capacity' of tier '" << pattern << "' is "
               << bytesText(*given) << " per device, more than device '"
               << dev.name << "' holds (" << q->display << ")";
      tier.capacityBytes += given ? *given : q->value;
    }
    total += tier.capacityBytes;
    plan.tiers.push_back(tier.name);
    plan.tierCapacity.push_back(tier.capacityBytes);
    problem.tiers.push_back(std::move(tier));
  }
  if (total < needed)
    return op.emitError() << "the tiers hold " << bytesText(total)
                          << " but the gather job stores " << plan.items
                          << " items x " << bytesText(plan.itemBytes) << " = "
                          << bytesText(needed);

  // Access counts: one double per item and destination, checked before it
  // is allocated.
  constexpr uint64_t kMaxAccessCounts = uint64_t(1) << 28; // 2 GiB of counts
  uint64_t cells = llvm::SaturatingMultiply<uint64_t>(
      static_cast<uint64_t>(plan.items), problem.destinations.size());
  if (cells > kMaxAccessCounts)
    return op.emitError() << "the gather job's access counts would hold "
                          << plan.items << " items x "
                          << problem.destinations.size()
                          << " destinations = " << cells
                          << " entries, more than the limit of "
                          << kMaxAccessCounts;
  flow::AccessCounts counts;
  if (auto file = job.getAs<StringAttr>("access_file")) {
    auto read = flow::readAccessCounts(file.getValue(), plan.items,
                                       problem.destinations.size());
    if (!read) {
      LogicalResult r = failure();
      llvm::handleAllErrors(
          read.takeError(),
          [&](const flow::AccessFileError &e) {
            InFlightDiagnostic diag =
                emitError(FileLineColLoc::get(op.getContext(), e.path, e.line,
                                              e.column))
                << e.message;
            diag.attachNote(op.getLoc())
                << "in the access file of this gather job";
          },
          [&](const llvm::ErrorInfoBase &e) { op.emitError() << e.message(); });
      return r;
    }
    counts = std::move(*read);
  } else {
    auto sampled =
        sampledAccesses(op, job, problem.destinations.size(), plan.items);
    if (failed(sampled))
      return failure();
    counts = std::move(*sampled);
  }
  plan.accesses = counts.total();
  if (!(plan.accesses > 0))
    return op.emitError() << "the gather job's access counts are all zero: "
                             "it moves nothing";
  problem.classes = flow::accessClasses(counts, plan.itemBytes, plan.classes);
  plan.classes = problem.classes.size();

  // Placement: Moment's greedy and the MIP (never worse than the greedy).
  auto greedy = flow::placeGreedyWhole(pn.net, problem);
  if (!greedy)
    return op.emitError() << "cannot place the gather job (greedy): "
                          << llvm::toString(greedy.takeError());
  plan.greedy = greedy->makespan;
  flow::IntegralPlacementOptions options;
  // Stop within 0.01% of the relaxation bound: GLPK's branch and bound is
  // deterministic, so the plan is too unless the (generous) time limit
  // runs out first, which the remark and `proved_optimal` then say.
  options.mipGap = 1e-4;
  options.timeLimitSeconds = 60;
  flow::IntegralPlacementInfo info;
  auto best = flow::placeIntegral(pn.net, problem, options, &info);
  if (!best)
    return op.emitError() << "cannot place the gather job: "
                          << llvm::toString(best.takeError());
  plan.integral = info.mipMakespan > 0 ? info.mipMakespan : best->makespan;
  plan.relaxation = info.relaxationBound;
  plan.provedOptimal = info.provedOptimal;
  plan.method = best->method == flow::PlacementMethod::IntegralMIP
                    ? "integral-mip"
                    : "greedy-whole";
  plan.tierItems.assign(problem.tiers.size(), 0.0);
  for (const std::vector<double> &row : best->items)
    for (size_t t = 0; t < row.size(); ++t)
      plan.tierItems[t] += row[t];
  for (size_t t = 0; t < problem.tiers.size(); ++t) {
    double bytes = plan.tierItems[t] * plan.itemBytes;
    if (bytes <= 0)
      continue;
    const flow::PlacementTier &tier = problem.tiers[t];
    for (unsigned d : tier.devices)
      plan.deviceBytes.push_back(
          {pn.net.nodes[d], bytes / static_cast<double>(tier.devices.size())});
  }
  plan.demands = best->demands;
  return plan;
}
