//===- PlanExport.cpp - Writing plan.schedule ops out ---------------------===//
#include "dialects/Plan/Transforms/PlanExport.h"

#include "compiler/Analysis/JSONNumbers.h"
#include "compiler/Analysis/TraceEvents.h"
#include "compiler/Target/DotDetail.h"
#include "dialects/Plan/Transforms/PlanFlow.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include <algorithm>
#include <cmath>
#include <functional>
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

/// The members of one plan.middle_tier: its attributes, dictionaries as
/// objects.
static void writeMiddleTierJSON(llvm::json::OStream &j, MiddleTierOp t) {
  std::function<void(Attribute)> value = [&](Attribute a) {
    if (auto f = dyn_cast<FloatAttr>(a))
      j.value(f.getValueAsDouble());
    else if (auto b = dyn_cast<BoolAttr>(a))
      j.value(b.getValue());
    else if (auto i = dyn_cast<IntegerAttr>(a))
      j.value(i.getInt());
    else if (auto s = dyn_cast<StringAttr>(a))
      j.value(s.getValue());
    else if (auto c = dyn_cast<CodecAttr>(a))
      j.value(stringifyCodec(c.getValue()));
    else if (auto d = dyn_cast<DictionaryAttr>(a))
      j.object([&] {
        for (NamedAttribute n : d) {
          j.attributeBegin(n.getName().getValue());
          value(n.getValue());
          j.attributeEnd();
        }
      });
    else if (auto arr = dyn_cast<ArrayAttr>(a))
      j.array([&] {
        for (Attribute e : arr)
          value(e);
      });
    else
      j.value(nullptr);
  };
  // In the op's declaration order, the dictionaries' keys sorted.
  for (StringRef name : MiddleTierOp::getAttributeNames()) {
    Attribute a = t->getAttr(name);
    if (!a)
      continue;
    j.attributeBegin(name);
    value(a);
    j.attributeEnd();
  }
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
                j.attribute("kind", stringifyCollectiveKind(c.getKind()));
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
    // Storage middle tiers (plan-middle-tier), only when there are some.
    auto tiers = llvm::to_vector(module.getOps<MiddleTierOp>());
    if (!tiers.empty())
      j.attributeArray("middle_tiers", [&] {
        for (MiddleTierOp t : tiers)
          j.object([&] { writeMiddleTierJSON(j, t); });
      });
  });
  os << "\n";
  return success(ok);
}

/// Escapes a string for a DOT double-quoted ID; a newline becomes DOT's
/// centred line break.
static std::string dotQuote(llvm::StringRef s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

/// The highest summed rate of `segments` at any moment. Segment ends and
/// starts less than `eps` apart count as simultaneous, with the ends first,
/// so a path that hands over to the next one does not add a spike of both.
static double peakRate(std::vector<flow::RateSegment> segments, double eps) {
  // (time, rate change), ends (negative changes) before starts.
  std::vector<std::pair<double, double>> events;
  for (const flow::RateSegment &seg : segments) {
    if (!(seg.rate > 0) || !(seg.end > seg.start))
      continue;
    events.push_back({seg.start, seg.rate});
    events.push_back({seg.end, -seg.rate});
  }
  std::sort(events.begin(), events.end());
  double current = 0, peak = 0;
  for (size_t i = 0, e = events.size(); i != e;) {
    // One batch: every event within eps of the first one.
    double t0 = events[i].first;
    double ends = 0, starts = 0;
    for (; i != e && events[i].first - t0 <= eps; ++i)
      (events[i].second < 0 ? ends : starts) += events[i].second;
    current += ends + starts;
    peak = std::max(peak, current);
  }
  return peak;
}

namespace {
/// One drawn edge: the network arcs it stands for and what they carried.
struct DotEdge {
  unsigned from, to;
  unsigned arcs = 0;
  double capacity = 0;
  double bytes = 0;
  std::vector<flow::RateSegment> segments;
};
} // namespace

LogicalResult plan::writePlanDot(llvm::raw_ostream &os, ModuleOp module,
                                 const analysis::TopoGraph &graph,
                                 target::DotDetail detail) {
  PlanNetwork pn = buildPlanNetwork(graph);
  for (ScheduleOp op : module.getOps<ScheduleOp>()) {
    auto s = scheduleFromIR(op, pn);
    if (!s) {
      op.emitError() << llvm::toString(s.takeError());
      return failure();
    }
    // The rate over time of each arc: the segments of the paths over it.
    std::vector<std::vector<const flow::RateSegment *>> segmentsOf(
        pn.net.numArcs());
    std::vector<bool> used(pn.net.numNodes(), false);
    unsigned usedCount = 0;
    for (const flow::DemandRoute &r : s->routes)
      for (const flow::PathFlow &p : r.paths)
        for (unsigned a : p.arcs) {
          for (const flow::RateSegment &seg : p.segments)
            segmentsOf[a].push_back(&seg);
          for (unsigned n : {pn.net.arcs[a].from, pn.net.arcs[a].to})
            if (!used[n]) {
              used[n] = true;
              ++usedCount;
            }
        }

    // Drawn nodes: every used device, or in a summary its top-level
    // instance (its group), and the members of a top-level array together
    // ("leaf[*]" for leaf[0] ... leaf[7]).
    bool summary = target::drawSummary(detail, usedCount);
    std::vector<std::string> nodeNames;
    std::map<std::string, unsigned> nodeIndex;
    std::vector<unsigned> nodeDevices;
    std::vector<unsigned> nodeOf(pn.net.numNodes(), ~0u);
    for (unsigned n = 0; n < pn.net.numNodes(); ++n) {
      if (!used[n])
        continue;
      std::string name = pn.net.nodes[n];
      if (summary && !graph.devices[n].group.empty())
        name = graph.devices[n].group;
      else if (summary && llvm::StringRef(name).ends_with("]"))
        name = name.substr(0, name.rfind('[')) + "[*]";
      auto [it, inserted] = nodeIndex.try_emplace(name, nodeNames.size());
      if (inserted) {
        nodeNames.push_back(name);
        nodeDevices.push_back(0);
      }
      nodeOf[n] = it->second;
      ++nodeDevices[it->second];
    }

    // Drawn edges, in order of their first arc; arcs inside one instance
    // of a summary are not drawn. Every arc between two drawn nodes counts
    // towards the capacity, used or not.
    std::vector<DotEdge> edges;
    std::map<std::pair<unsigned, unsigned>, unsigned> edgeIndex;
    for (unsigned a = 0; a < pn.net.numArcs(); ++a) {
      const flow::FlowArc &arc = pn.net.arcs[a];
      unsigned u = nodeOf[arc.from], v = nodeOf[arc.to];
      if (u == ~0u || v == ~0u || u == v)
        continue;
      if (!summary && segmentsOf[a].empty())
        continue;
      auto [it, inserted] = edgeIndex.try_emplace({u, v}, edges.size());
      if (inserted)
        edges.push_back(DotEdge{u, v});
      DotEdge &e = edges[it->second];
      ++e.arcs;
      e.capacity += arc.capacity;
      e.bytes += s->arcs[a].bytes;
      for (const flow::RateSegment *seg : segmentsOf[a])
        e.segments.push_back(*seg);
    }

    os << "digraph " << dotQuote(op.getSymName()) << " {\n";
    std::string title;
    llvm::raw_string_ostream titleOs(title);
    titleOs << op.getSymName() << " on " << op.getTopology() << ": makespan "
            << llvm::format("%.4g", s->makespan) << " s ("
            << stringifyScheduleMethod(s->method) << ")";
    if (summary)
      titleOs << "\none node per instance; edges sum the links between two "
                 "instances";
    os << "  label=" << dotQuote(title)
       << ";\n  labelloc=t;\n  rankdir=LR;\n  node [shape=box];\n";
    for (unsigned n = 0; n < nodeNames.size(); ++n) {
      os << "  " << dotQuote(nodeNames[n]);
      if (summary && nodeDevices[n] > 1)
        os << " [label="
           << dotQuote(nodeNames[n] + "\n" + std::to_string(nodeDevices[n]) +
                       " devices used")
           << "]";
      os << ";\n";
    }
    // Average over the makespan (utilisation x capacity), and the highest
    // rate at any moment; both within the capacity.
    double eps = 1e-9 * s->makespan;
    struct Drawn {
      std::string rates, capacity;
      double util = 0;
    };
    std::vector<Drawn> drawn(edges.size());
    for (unsigned i = 0; i < edges.size(); ++i) {
      const DotEdge &e = edges[i];
      double avg = s->makespan > 0 ? e.bytes / s->makespan : 0;
      drawn[i].rates = "avg " + formatRate(avg) + ", peak " +
                       formatRate(peakRate(e.segments, eps));
      drawn[i].capacity = "of " + formatRate(e.capacity);
      if (e.arcs > 1)
        drawn[i].capacity += " (" + std::to_string(e.arcs) + " links)";
      drawn[i].util = e.capacity > 0 ? avg / e.capacity : 0;
    }
    // An edge whose opposite carries the same rates over the same capacity
    // is drawn once, with dir=both and "each way".
    bool anySaturated = false, anyBoth = false;
    std::vector<bool> done(edges.size(), false);
    for (unsigned i = 0; i < edges.size(); ++i) {
      const DotEdge &e = edges[i];
      if (done[i] || e.bytes <= 0)
        continue;
      done[i] = true;
      bool both = false;
      auto rev = edgeIndex.find({e.to, e.from});
      if (rev != edgeIndex.end() && !done[rev->second] &&
          edges[rev->second].bytes > 0 &&
          drawn[rev->second].rates == drawn[i].rates &&
          drawn[rev->second].capacity == drawn[i].capacity) {
        done[rev->second] = true;
        both = anyBoth = true;
      }
      double util = drawn[i].util;
      bool saturated = util >= 1 - 1e-6;
      anySaturated |= saturated;
      std::string label =
          drawn[i].rates + (both ? " each way" : "") + "\n" + drawn[i].capacity;
      os << "  " << dotQuote(nodeNames[e.from]) << " -> "
         << dotQuote(nodeNames[e.to]) << " [label=" << dotQuote(label)
         << (both ? ", dir=both" : "")
         << ", penwidth=" << llvm::format("%.2f", 1 + 4 * std::min(1.0, util))
         << (saturated ? ", color=red" : "") << "];\n";
    }
    // What the labels and colours mean.
    std::string legend = "avg: bytes over the makespan\n"
                         "peak: the highest rate at any moment\n"
                         "of: the capacity; pen width: avg / capacity\n";
    if (anyBoth)
      legend += "each way: the same in both directions\n";
    if (anySaturated)
      legend += "red: saturated (avg = capacity)\n";
    os << "  legend [shape=note, fontsize=9, label=" << dotQuote(legend)
       << "];\n";
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
