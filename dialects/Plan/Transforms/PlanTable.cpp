//===- PlanTable.cpp - A flow plan as a terminal table --------------------===//
//
// `sluicec --emit=plan --format=table` for demands and collectives: per
// plan.schedule, its makespan against the lower bound and the baselines,
// the demands (source, destination, bytes, paths, finish), the collectives
// and the saturated links. Everything comes from the schedule's IR through
// scheduleFromIR, as the JSON and DOT exports do; output is deterministic.
//
//===----------------------------------------------------------------------===//
#include "dialects/Plan/Transforms/PlanExport.h"

#include "dialects/Plan/Transforms/PlanFlow.h"
#include "support/Units.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>

using namespace mlir;
using namespace sluice;
using namespace sluice::plan;

/// At most this many demand rows per schedule; the JSON lists every one.
static constexpr size_t kMaxDemandRows = 64;
/// Likewise for the saturated links.
static constexpr size_t kMaxLinkRows = 32;

static std::string bytesText(double b) {
  return formatQuantity(b, Dim::bytes());
}
static std::string timeText(double s) { return formatQuantity(s, Dim::time()); }

/// Left-aligned columns: each cell padded to its column's widest cell.
static void printRows(llvm::raw_ostream &os,
                      const std::vector<std::vector<std::string>> &rows,
                      llvm::StringRef indent) {
  std::vector<size_t> width;
  for (const auto &row : rows)
    for (size_t c = 0; c < row.size(); ++c) {
      if (c >= width.size())
        width.push_back(0);
      width[c] = std::max(width[c], row[c].size());
    }
  for (const auto &row : rows) {
    std::string line = indent.str();
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size())
        line += std::string(width[c] - row[c].size() + 2, ' ');
    }
    os << llvm::StringRef(line).rtrim() << "\n";
  }
}

/// "1.25 ms (1.02x)": a baseline's makespan against the plan's.
static std::string against(double baseline, double makespan) {
  std::string s = timeText(baseline);
  if (makespan > 0)
    s += (llvm::formatv(" ({0:F2}x the plan's)", baseline / makespan)).str();
  return s;
}

LogicalResult plan::writePlanTable(llvm::raw_ostream &os, ModuleOp module,
                                   const analysis::TopoGraph &graph) {
  PlanNetwork pn = buildPlanNetwork(graph);
  const flow::FlowNetwork &net = pn.net;
  bool first = true;
  for (ScheduleOp op : module.getOps<ScheduleOp>()) {
    auto s = scheduleFromIR(op, pn);
    if (!s) {
      op.emitError() << llvm::toString(s.takeError());
      return failure();
    }
    if (!first)
      os << "\n";
    first = false;
    os << "schedule " << op.getSymName() << " on " << op.getTopology() << " ("
       << stringifyScheduleMethod(s->method) << ")\n";
    os << "  makespan:        " << timeText(s->makespan) << "\n";
    if (auto bound = op.getLowerBound()) {
      double lb = bound->convertToDouble();
      os << "  lower bound:     " << timeText(lb);
      if (s->makespan > 0 && lb > 0)
        os << llvm::formatv(" (plan within {0:F4}x)", s->makespan / lb);
      os << "\n";
    }
    if (auto d = op.getDirectMakespan())
      os << "  direct paths:    " << against(d->convertToDouble(), s->makespan)
         << "\n";
    if (auto m = op.getMomentMakespan())
      os << "  Moment's greedy: " << against(m->convertToDouble(), s->makespan)
         << "\n";

    double total = 0;
    size_t paths = 0;
    for (const flow::DemandRoute &r : s->routes) {
      total += r.demand.bytes;
      paths += r.paths.size();
    }
    os << "  demands:         " << s->routes.size() << " (" << bytesText(total)
       << ", " << paths << (paths == 1 ? " path" : " paths") << ")\n";
    std::vector<std::vector<std::string>> rows = {
        {"#", "from", "to", "bytes", "paths", "finish"}};
    for (size_t i = 0; i < s->routes.size() && i < kMaxDemandRows; ++i) {
      const flow::DemandRoute &r = s->routes[i];
      rows.push_back(
          {std::to_string(i), net.nodes[r.demand.source],
           net.nodes[r.demand.destination], bytesText(r.demand.bytes),
           r.demand.isLocal() ? "local" : std::to_string(r.paths.size()),
           timeText(r.finish)});
    }
    printRows(os, rows, "    ");
    if (s->routes.size() > kMaxDemandRows)
      os << "    ... " << s->routes.size() - kMaxDemandRows
         << " more (--format=json lists every demand)\n";

    auto collectives =
        llvm::to_vector(op.getBody().front().getOps<CollectiveOp>());
    if (!collectives.empty()) {
      os << "  collectives:\n";
      std::vector<std::vector<std::string>> crows = {
          {"label", "kind", "algorithm", "bytes", "devices", "start", "end"}};
      for (CollectiveOp c : collectives)
        crows.push_back(
            {c.getLabel().str(), stringifyCollectiveKind(c.getKind()).str(),
             c.getAlgorithm().str(), bytesText(c.getBytes().convertToDouble()),
             std::to_string(c.getGroup().size()),
             timeText(c.getStart().convertToDouble()),
             timeText(c.getEnd().convertToDouble())});
      printRows(os, crows, "    ");
    }

    os << "  saturated links: " << s->saturatedArcs.size() << "\n";
    std::vector<std::vector<std::string>> lrows;
    for (unsigned a :
         llvm::ArrayRef(s->saturatedArcs).take_front(kMaxLinkRows)) {
      const flow::FlowArc &arc = net.arcs[a];
      lrows.push_back({net.nodes[arc.from] + " -> " + net.nodes[arc.to],
                       formatQuantity(arc.capacity, Dim::bandwidth()),
                       bytesText(s->arcs[a].bytes)});
    }
    printRows(os, lrows, "    ");
    if (s->saturatedArcs.size() > kMaxLinkRows)
      os << "    ... " << s->saturatedArcs.size() - kMaxLinkRows
         << " more (--format=json lists every arc)\n";
  }
  return success();
}
