//===- GatherJob.cpp - Placement and demands of gather jobs ---------------===//
#include "dialects/Plan/Transforms/GatherJob.h"

#include "compiler/Analysis/Flow/GatherAccess.h"
#include "compiler/Analysis/Flow/IntegralPlacement.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "support/NumberFormat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include <cmath>

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

/// The devices of one pattern, ascending; an error if it is malformed or
/// matches nothing.
static llvm::Expected<std::vector<unsigned>>
matchPattern(DemandOp op, StringRef p, const PlanNetwork &pn) {
  auto matched = matchDevices(pn.net, p);
  if (!matched)
    return matched.takeError();
  if (matched->empty())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::Twine("no device of topology '") +
            op->getParentOfType<DemandsOp>().getTopology() + "' matches '" + p +
            "'");
  return matched;
}

/// The devices of one pattern, ascending; reports at `op` on failure.
static FailureOr<std::vector<unsigned>> devicesOf(DemandOp op, StringRef p,
                                                  const PlanNetwork &pn) {
  auto matched = matchPattern(op, p, pn);
  if (!matched)
    return op.emitError() << llvm::toString(matched.takeError());
  return std::move(*matched);
}

llvm::Expected<std::vector<unsigned>>
sluice::plan::gatherDestinations(DemandOp op, const PlanNetwork &pn) {
  llvm::SetVector<unsigned> dests;
  for (Attribute a : op.getDestinations()) {
    auto d = matchPattern(op, cast<StringAttr>(a).getValue(), pn);
    if (!d)
      return d.takeError();
    dests.insert(d->begin(), d->end());
  }
  return std::vector<unsigned>(dests.begin(), dests.end());
}

uint64_t sluice::plan::accessCountCells(int64_t items, size_t destinations) {
  return llvm::SaturatingMultiply<uint64_t>(static_cast<uint64_t>(items),
                                            destinations);
}

/// The access counts of a sampled job, computed from its graph before the
/// pass and attached as `access_counts` (attachSampledAccessCounts in
/// compiler/Pipelines/GatherAccessCounts.h).
static FailureOr<flow::AccessCounts> attachedAccesses(DemandOp op,
                                                      DictionaryAttr job,
                                                      size_t destinations,
                                                      int64_t items) {
  auto attached = job.getAs<DenseFPElementsAttr>("access_counts");
  if (!attached)
    return op.emitError()
           << "the sampled gather job has no 'access_counts': they are "
              "computed from its graph before plan-schedule-flows "
              "(attachSampledAccessCounts; sluicec --emit=plan does it)";
  // The verifier checked f64, rank 2 and one row per item.
  int64_t columns = attached.getType().getDimSize(1);
  if (columns != static_cast<int64_t>(destinations))
    return op.emitError() << "the gather job's 'access_counts' have " << columns
                          << " columns but it has " << destinations
                          << " destinations";
  flow::AccessCounts counts;
  counts.items = static_cast<size_t>(items);
  counts.destinations = destinations;
  auto values = attached.getValues<double>();
  counts.counts.assign(values.begin(), values.end());
  for (auto [i, c] : llvm::enumerate(counts.counts))
    if (!std::isfinite(c) || c < 0)
      return op.emitError()
             << "the gather job's 'access_counts' hold " << formatNumber(c)
             << " for item " << i / destinations << " and destination "
             << i % destinations << "; counts are finite and non-negative";
  return counts;
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
  auto dests = gatherDestinations(op, pn);
  if (!dests)
    return op.emitError() << llvm::toString(dests.takeError());
  flow::PlacementProblem problem;
  problem.destinations = std::move(*dests);
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
  uint64_t cells = accessCountCells(plan.items, problem.destinations.size());
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
        attachedAccesses(op, job, problem.destinations.size(), plan.items);
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
