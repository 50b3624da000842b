//===- PlanExport.cpp - Writing plan.schedule ops out ---------------------===//
#include "dialects/Plan/Transforms/PlanExport.h"

#include "compiler/Analysis/JSONNumbers.h"
#include "compiler/Analysis/TraceEvents.h"
#include "dialects/Plan/Transforms/PlanFlow.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include <algorithm>
#include <cmath>
#include <map>

using namespace mlir;
using namespace sluice;
using namespace sluice::plan;
using analysis::kTraceMetadataCategory;
using analysis::writeJSONNumber;
using analysis::writeJSONNumberAttr;

std::string plan::formatRate(double r) {
  static const struct {
    double scale;
    const char *unit;
  } units[] = {{1e12, "TB/s"}, {1e9, "GB/s"}, {1e6, "MB/s"}, {1e3, "KB/s"}};
  for (const auto &u : units)
    if (r >= u.scale) {
      std::string s;
      llvm::raw_string_ostream os(s);
      os << llvm::format("%.4g", r / u.scale) << " " << u.unit;
      return s;
    }
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format("%.4g", r) << " B/s";
  return s;
}

/// Indents every line but the first of `text` by `n` spaces.
static std::string indentTail(llvm::StringRef text, unsigned n) {
  std::string out;
  std::string pad(n, ' ');
  for (char c : text) {
    out += c;
    if (c == '\n')
      out += pad;
  }
  return out;
}

LogicalResult plan::writePlanJSON(llvm::raw_ostream &os, ModuleOp module,
                                  const analysis::TopoGraph &graph) {
  PlanNetwork pn = buildPlanNetwork(graph);
  llvm::json::OStream j(os, 2);
  bool ok = true;
  j.object([&] {
    j.attributeArray("schedules", [&] {
      for (ScheduleOp op : module.getOps<ScheduleOp>()) {
        auto s = scheduleFromIR(op, pn);
        if (!s) {
          op.emitError() << llvm::toString(s.takeError());
          ok = false;
          continue;
        }
        flow::TimelineOptions topts;
        topts.chunkBytes = op.getChunkBytes().convertToDouble();
        auto timeline = flow::buildTimeline(*s, topts);
        if (!timeline) {
          op.emitError() << llvm::toString(timeline.takeError());
          ok = false;
          continue;
        }
        j.object([&] {
          j.attribute("name", op.getSymName());
          j.attribute("topology", op.getTopology());
          if (auto d = op.getDirectMakespan())
            writeJSONNumberAttr(j, "direct_makespan", d->convertToDouble());
          else
            j.attribute("direct_makespan", nullptr);
          if (auto m = op.getMomentMakespan())
            writeJSONNumberAttr(j, "moment_makespan", m->convertToDouble());
          else
            j.attribute("moment_makespan", nullptr);
          writeJSONNumberAttr(j, "chunk_bytes",
                              op.getChunkBytes().convertToDouble());
          std::string text =
              flow::scheduleToJSON(pn.net, *s, *timeline, /*indent=*/2);
          j.attributeBegin("schedule");
          j.rawValue(
              [&](llvm::raw_ostream &out) { out << indentTail(text, 6); });
          j.attributeEnd();
          j.attributeArray("collectives", [&] {
            for (CollectiveOp c : op.getBody().front().getOps<CollectiveOp>())
              j.object([&] {
                j.attribute("label", c.getLabel());
                j.attribute("kind", c.getKind());
                j.attribute("algorithm", c.getAlgorithm());
                writeJSONNumberAttr(j, "bytes", c.getBytes().convertToDouble());
                j.attributeArray("group", [&] {
                  for (Attribute a : c.getGroup())
                    j.value(cast<StringAttr>(a).getValue());
                });
                writeJSONNumberAttr(j, "start", c.getStart().convertToDouble());
                writeJSONNumberAttr(j, "end", c.getEnd().convertToDouble());
                if (auto b = c.getEndpointBound())
                  writeJSONNumberAttr(j, "endpoint_bound",
                                      b->convertToDouble());
                // Every algorithm that applied: routed and alpha-beta time.
                j.attributeObject("times", [&] {
                  for (NamedAttribute a : c.getTimes())
                    writeJSONNumberAttr(
                        j, a.getName().getValue(),
                        cast<FloatAttr>(a.getValue()).getValueAsDouble());
                });
                if (auto ab = c.getAlphaBeta())
                  j.attributeObject("alpha_beta", [&] {
                    for (NamedAttribute a : *ab)
                      writeJSONNumberAttr(
                          j, a.getName().getValue(),
                          cast<FloatAttr>(a.getValue()).getValueAsDouble());
                  });
              });
          });
          // Gather jobs: where their items are stored.
          auto placements =
              llvm::to_vector(op.getBody().front().getOps<PlacementOp>());
          if (!placements.empty())
            j.attributeArray("placements", [&] {
              for (PlacementOp p : placements)
                j.object([&] {
                  j.attribute("label", p.getLabel());
                  j.attribute("method", p.getMethod());
                  j.attribute("items", p.getItems());
                  writeJSONNumberAttr(j, "item_bytes",
                                      p.getItemBytes().convertToDouble());
                  j.attributeArray("tiers", [&] {
                    for (size_t t = 0; t < p.getTiers().size(); ++t)
                      j.object([&] {
                        double items = cast<FloatAttr>(p.getTierItems()[t])
                                           .getValueAsDouble();
                        j.attribute(
                            "devices",
                            cast<StringAttr>(p.getTiers()[t]).getValue());
                        writeJSONNumberAttr(j, "items", items);
                        writeJSONNumberAttr(
                            j, "bytes",
                            items * p.getItemBytes().convertToDouble());
                        writeJSONNumberAttr(
                            j, "capacity",
                            cast<FloatAttr>(p.getTierCapacity()[t])
                                .getValueAsDouble());
                      });
                  });
                  j.attributeObject("device_bytes", [&] {
                    for (NamedAttribute a : p.getDeviceBytes())
                      writeJSONNumberAttr(
                          j, a.getName().getValue(),
                          cast<FloatAttr>(a.getValue()).getValueAsDouble());
                  });
                  j.attributeObject("makespans", [&] {
                    for (NamedAttribute a : p.getMakespans())
                      writeJSONNumberAttr(
                          j, a.getName().getValue(),
                          cast<FloatAttr>(a.getValue()).getValueAsDouble());
                  });
                  if (auto proved = p->getAttrOfType<BoolAttr>("proved_optimal"))
                    j.attribute("proved_optimal", proved.getValue());
                });
            });
        });
      }
    });
  });
  os << "\n";
  return success(ok);
}

/// Escapes a string for a DOT double-quoted ID.
static std::string dotQuote(llvm::StringRef s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

LogicalResult plan::writePlanDot(llvm::raw_ostream &os, ModuleOp module,
                                 const analysis::TopoGraph &graph) {
  PlanNetwork pn = buildPlanNetwork(graph);
  for (ScheduleOp op : module.getOps<ScheduleOp>()) {
    auto s = scheduleFromIR(op, pn);
    if (!s) {
      op.emitError() << llvm::toString(s.takeError());
      return failure();
    }
    // Rate per arc: the sum of the average rates of the paths over it.
    std::map<unsigned, double> rate;
    std::vector<bool> used(pn.net.numNodes(), false);
    for (const flow::DemandRoute &r : s->routes)
      for (const flow::PathFlow &p : r.paths)
        for (unsigned a : p.arcs) {
          rate[a] += p.rate;
          used[pn.net.arcs[a].from] = used[pn.net.arcs[a].to] = true;
        }
    os << "digraph " << dotQuote(op.getSymName()) << " {\n";
    std::string title;
    llvm::raw_string_ostream titleOs(title);
    titleOs << op.getSymName() << " on " << op.getTopology() << ": makespan "
            << llvm::format("%.4g", s->makespan) << " s (" << op.getMethod()
            << ")";
    os << "  label=" << dotQuote(title)
       << ";\n  labelloc=t;\n  rankdir=LR;\n  node [shape=box];\n";
    for (unsigned n = 0; n < pn.net.numNodes(); ++n)
      if (used[n])
        os << "  " << dotQuote(pn.net.nodes[n]) << ";\n";
    for (const auto &[a, r] : rate) {
      const flow::FlowArc &arc = pn.net.arcs[a];
      std::string label = formatRate(r);
      double util = s->arcs[a].utilisation;
      os << "  " << dotQuote(pn.net.nodes[arc.from]) << " -> "
         << dotQuote(pn.net.nodes[arc.to])
         << " [label=" << dotQuote(label + " / " + formatRate(arc.capacity))
         << ", penwidth=" << llvm::format("%.2f", 1 + 4 * std::min(1.0, util))
         << (s->arcs[a].saturated ? ", color=red" : "") << "];\n";
    }
    os << "}\n";
  }
  return success();
}

LogicalResult plan::writePlanTrace(llvm::raw_ostream &os, ModuleOp module,
                                   const analysis::TopoGraph &graph) {
  PlanNetwork pn = buildPlanNetwork(graph);
  (void)pn;
  llvm::json::OStream j(os, 1);
  j.object([&] {
    j.attribute("displayTimeUnit", "ms");
    j.attributeArray("traceEvents", [&] {
      int64_t pid = 0;
      for (ScheduleOp op : module.getOps<ScheduleOp>()) {
        ++pid;
        j.object([&] {
          j.attribute("name", "process_name");
          j.attribute("cat", kTraceMetadataCategory);
          j.attribute("ph", "M");
          j.attribute("pid", pid);
          j.attributeObject("args", [&] {
            j.attribute("name", ("schedule " + op.getSymName() + " on " +
                                 op.getTopology())
                                    .str());
          });
        });
        double chunkBytes = op.getChunkBytes().convertToDouble();
        int64_t tid = 0;
        for (TransferOp t : op.getBody().front().getOps<TransferOp>()) {
          ++tid;
          std::string track;
          for (Attribute a : t.getPath()) {
            if (!track.empty())
              track += " -> ";
            track += cast<StringAttr>(a).getValue();
          }
          j.object([&] {
            j.attribute("name", "thread_name");
            j.attribute("cat", kTraceMetadataCategory);
            j.attribute("ph", "M");
            j.attribute("pid", pid);
            j.attribute("tid", tid);
            j.attributeObject("args", [&] {
              j.attribute("name", "demand " + std::to_string(t.getDemand()) +
                                      ": " + track);
            });
          });
          double bytes = t.getBytes().convertToDouble();
          double rate = t.getRate().convertToDouble();
          double start = t.getStart().convertToDouble();
          int64_t chunks = t.getChunks();
          double size = chunkBytes > 0 ? chunkBytes : bytes;
          for (int64_t c = 0; c < chunks; ++c) {
            double off = static_cast<double>(c) * size;
            double len = c + 1 == chunks ? bytes - off : size;
            if (len <= 0)
              break;
            double ts = start + off / rate;
            double te = c + 1 == chunks ? t.getEnd().convertToDouble()
                                        : start + (off + len) / rate;
            j.object([&] {
              j.attribute("name", "chunk " + std::to_string(c));
              j.attribute("cat", "transfer");
              j.attribute("ph", "X");
              j.attribute("pid", pid);
              j.attribute("tid", tid);
              writeJSONNumberAttr(j, "ts", ts * 1e6);
              writeJSONNumberAttr(j, "dur", (te - ts) * 1e6);
              j.attributeObject("args", [&] {
                writeJSONNumberAttr(j, "offset", off);
                writeJSONNumberAttr(j, "bytes", len);
                j.attribute("rate", formatRate(rate));
              });
            });
          }
        }
      }
    });
  });
  os << "\n";
  return success();
}
