//===- GatherAccessCounts.cpp - Sampled counts of gather jobs -------------===//
#include "compiler/Pipelines/GatherAccessCounts.h"

#include "compiler/Analysis/Flow/GatherAccess.h"
#include "compiler/Target/Walk/GraphLoadOptions.h"
#include "dialects/Plan/IR/PlanOps.h"
#include "dialects/Plan/Transforms/GatherJob.h"
#include "dialects/Plan/Transforms/PlanFlow.h"
#include "dialects/Topo/Analysis/ExtractTopoGraph.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/ScopeExit.h"

#include "sluice/graph.h"

using namespace mlir;
using namespace sluice;

/// The expected accesses of sampled gather job `op` over `destinations`
/// destinations, from its graph (sluice_graph_load).
static FailureOr<flow::AccessCounts> sampledAccesses(plan::DemandOp op,
                                                     DictionaryAttr job,
                                                     size_t destinations,
                                                     int64_t items) {
  StringRef path = job.getAs<StringAttr>("graph").getValue();
  StringRef formatName = job.getAs<StringAttr>("graph_format").getValue();
  // The graph the walks of the same `load(...)` see (GraphLoadOptions.h);
  // duplicates and self loops are the defaults when absent.
  auto word = [&](StringRef key, StringRef absent) {
    auto value = job.getAs<StringAttr>(key);
    return value ? value.getValue() : absent;
  };
  StringRef duplicatesName = word("graph_duplicates", "merge");
  StringRef selfLoopsName = word("graph_self_loops", "drop");
  auto format = walk::symbolizeGraphFormat(formatName);
  auto duplicates = walk::symbolizeDuplicates(duplicatesName);
  auto selfLoops = walk::symbolizeSelfLoops(selfLoopsName);
  if (!format)
    return op.emitError() << "unknown graph format '" << formatName << "'";
  if (!duplicates)
    return op.emitError() << "unknown graph duplicates '" << duplicatesName
                          << "'";
  if (!selfLoops)
    return op.emitError() << "unknown graph self loops '" << selfLoopsName
                          << "'";
  sluice_graph_load_options_t load;
  sluice_graph_load_options_init(&load);
  load.format = target::runtimeGraphFormat(*format);
  auto undirected = job.getAs<BoolAttr>("graph_undirected");
  load.flags = target::runtimeLoadFlags(
      *format, undirected && undirected.getValue(), *duplicates, *selfLoops);
  load.flags |= SLUICE_GRAPH_LOAD_QUIET;
  sluice_graph_t *g = nullptr;
  sluice_error_t error;
  std::string pathStr = path.str();
  if (sluice_graph_load(pathStr.c_str(), &load, &g, &error) != SLUICE_STATUS_OK)
    return op.emitError() << "cannot load the graph of the gather job '" << path
                          << "': " << error.message;
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
      llvm::ArrayRef(offsets, n + 1), llvm::ArrayRef(targets, m), destinations,
      job.getAs<DenseI64ArrayAttr>("fanout").asArrayRef());
}

LogicalResult sluice::attachSampledAccessCounts(ModuleOp module) {
  std::vector<plan::DemandOp> jobs;
  module.walk([&](plan::DemandOp op) {
    DictionaryAttr job = op.getJobAttr();
    if (job && job.get("graph") && !job.get("access_counts"))
      jobs.push_back(op);
  });
  if (jobs.empty())
    return success();
  // Without a flat topology, plan-schedule-flows reports the missing one.
  topo::TopologyOp flat = findFlatTopology(module);
  if (!flat)
    return success();
  auto graph = extractTopoGraph(module);
  if (failed(graph))
    return failure();
  plan::PlanNetwork pn = plan::buildPlanNetwork(*graph);

  bool ok = true;
  for (plan::DemandOp op : jobs) {
    // Demands on another topology, patterns that match nothing and counts
    // over the size limit are the pass's errors, in its order.
    if (op->getParentOfType<plan::DemandsOp>().getTopology() !=
        flat.getSymName())
      continue;
    auto destinations = plan::gatherDestinations(op, pn);
    if (!destinations) {
      llvm::consumeError(destinations.takeError());
      continue;
    }
    DictionaryAttr job = op.getJobAttr();
    int64_t items = job.getAs<IntegerAttr>("items").getInt();
    if (plan::accessCountCells(items, destinations->size()) >
        plan::kMaxAccessCounts)
      continue;
    auto counts = sampledAccesses(op, job, destinations->size(), items);
    if (failed(counts)) {
      ok = false;
      continue;
    }
    auto type = RankedTensorType::get(
        {items, static_cast<int64_t>(destinations->size())},
        Float64Type::get(op.getContext()));
    NamedAttrList entries(job);
    entries.set("access_counts",
                DenseElementsAttr::get(type, llvm::ArrayRef(counts->counts)));
    op.setJobAttr(entries.getDictionary(op.getContext()));
  }
  return success(ok);
}
