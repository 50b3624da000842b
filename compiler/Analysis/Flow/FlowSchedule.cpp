//===- FlowSchedule.cpp - Timelines and JSON of flow schedules ------------===//
//
// Chunking a schedule's paths along their rate segments, and the JSON
// writer (llvm::json::OStream, keys in the order written; see
// docs/flows.md for the format).
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/FlowSchedule.h"
#include "compiler/Analysis/Flow/FlowPaths.h"
#include "compiler/Analysis/JSONNumbers.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include <cassert>
#include <charconv>
#include <cmath>
#include <string>

using namespace sluice;
using namespace sluice::flow;

//===----------------------------------------------------------------------===//
// Timeline
//===----------------------------------------------------------------------===//

namespace {
/// Walks a path's rate segments forward: the time at which the path has
/// sent `x` bytes, for non-decreasing `x`.
class SegmentCursor {
public:
  explicit SegmentCursor(const PathFlow &p) : path(p) {}

  double timeAt(double x) {
    const std::vector<RateSegment> &segs = path.segments;
    while (index < segs.size()) {
      const RateSegment &s = segs[index];
      double bytes = s.rate * (s.end - s.start);
      if (x <= before + bytes && s.rate > 0)
        return std::min(s.end, s.start + (x - before) / s.rate);
      before += bytes;
      ++index;
    }
    // Past the rounding of the last segment: the path's finish.
    return path.finish;
  }

private:
  const PathFlow &path;
  size_t index = 0;
  /// Bytes sent before segment `index`.
  double before = 0;
};
} // namespace

llvm::Expected<std::vector<PathTimeline>>
flow::buildTimeline(const FlowSchedule &schedule,
                    const TimelineOptions &options) {
  double c = options.chunkBytes;
  if (!std::isfinite(c) || c < 0)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("chunk size must be finite and non-negative, got {0}",
                      detail::formatNumber(c)));
  double total = 0;
  for (const DemandRoute &r : schedule.routes)
    for (const PathFlow &p : r.paths)
      total += c > 0 ? std::ceil(p.bytes / c) : 1;
  if (total > static_cast<double>(options.maxChunks))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("the timeline would have {0} chunks, more than the "
                      "limit of {1}",
                      total < 1e19
                          ? std::to_string(static_cast<uint64_t>(total))
                          : detail::formatNumber(total),
                      options.maxChunks));

  std::vector<PathTimeline> out;
  for (unsigned d = 0, de = schedule.routes.size(); d != de; ++d) {
    const DemandRoute &r = schedule.routes[d];
    for (unsigned k = 0, ke = r.paths.size(); k != ke; ++k) {
      const PathFlow &p = r.paths[k];
      PathTimeline t;
      t.demand = d;
      t.path = k;
      SegmentCursor cursor(p);
      uint64_t count =
          c > 0 ? static_cast<uint64_t>(std::ceil(p.bytes / c)) : 1;
      double start = cursor.timeAt(0);
      for (uint64_t i = 0; i < count; ++i) {
        Chunk ch;
        ch.offset = c > 0 ? static_cast<double>(i) * c : 0;
        bool last = i + 1 == count;
        ch.bytes = last ? p.bytes - ch.offset : c;
        ch.start = start;
        ch.end = last ? p.finish : cursor.timeAt(ch.offset + ch.bytes);
        start = ch.end;
        t.chunks.push_back(ch);
      }
      out.push_back(std::move(t));
    }
  }
  return out;
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

namespace {
constexpr auto &numberAttr = analysis::writeJSONNumberAttr;
constexpr auto &indexArray = analysis::writeJSONIndexArray;

void writePath(llvm::json::OStream &j, const FlowNetwork &net, const Demand &d,
               const PathFlow &p) {
  j.object([&] {
    std::vector<unsigned> nodes = {d.source};
    for (unsigned a : p.arcs)
      nodes.push_back(net.arcs[a].to);
    indexArray(j, "nodes", nodes);
    indexArray(j, "arcs", p.arcs);
    numberAttr(j, "bytes", p.bytes);
    numberAttr(j, "rate", p.rate);
    numberAttr(j, "finish", p.finish);
    j.attributeArray("segments", [&] {
      for (const RateSegment &s : p.segments)
        j.object([&] {
          numberAttr(j, "start", s.start);
          numberAttr(j, "end", s.end);
          numberAttr(j, "rate", s.rate);
        });
    });
  });
}

void writeRoute(llvm::json::OStream &j, const FlowNetwork &net, unsigned index,
                const DemandRoute &r) {
  j.object([&] {
    const Demand &d = r.demand;
    j.attribute("index", static_cast<int64_t>(index));
    j.attribute("source", static_cast<int64_t>(d.source));
    j.attribute("source_name", net.nodes[d.source]);
    j.attribute("destination", static_cast<int64_t>(d.destination));
    j.attribute("destination_name", net.nodes[d.destination]);
    numberAttr(j, "bytes", d.bytes);
    numberAttr(j, "finish", r.finish);
    j.attributeArray("paths", [&] {
      for (const PathFlow &p : r.paths)
        writePath(j, net, d, p);
    });
  });
}

void writeArc(llvm::json::OStream &j, const FlowNetwork &net, unsigned index,
              const ArcUsage *u) {
  const FlowArc &a = net.arcs[index];
  j.object([&] {
    j.attribute("index", static_cast<int64_t>(index));
    j.attribute("from", static_cast<int64_t>(a.from));
    j.attribute("to", static_cast<int64_t>(a.to));
    numberAttr(j, "capacity", a.capacity);
    if (a.topoArc == kNoTopoArc)
      j.attribute("topo_arc", nullptr);
    else
      j.attribute("topo_arc", static_cast<int64_t>(a.topoArc));
    numberAttr(j, "bytes", u ? u->bytes : 0);
    numberAttr(j, "utilisation", u ? u->utilisation : 0);
    j.attribute("saturated", u ? u->saturated : false);
  });
}

void writeCut(llvm::json::OStream &j, const FlowCut &c) {
  j.object([&] {
    indexArray(j, "source_side", c.sourceSide);
    indexArray(j, "arcs", c.arcs);
    numberAttr(j, "bytes", c.bytes);
    numberAttr(j, "capacity", c.capacity);
    numberAttr(j, "bound", c.bound());
  });
}
} // namespace

void flow::writeScheduleJSON(llvm::raw_ostream &os, const FlowNetwork &net,
                             const FlowSchedule &s,
                             llvm::ArrayRef<PathTimeline> timeline,
                             unsigned indent) {
  llvm::json::OStream j(os, indent);
  j.object([&] {
    j.attribute("method", plan::stringifyScheduleMethod(s.method));
    numberAttr(j, "makespan", s.makespan);
    if (s.lowerBound)
      numberAttr(j, "lower_bound", *s.lowerBound);
    else
      j.attribute("lower_bound", nullptr);
    j.attributeArray("nodes", [&] {
      for (const std::string &name : net.nodes)
        j.value(name);
    });
    j.attributeArray("demands", [&] {
      for (unsigned i = 0, e = s.routes.size(); i != e; ++i)
        writeRoute(j, net, i, s.routes[i]);
    });
    j.attributeArray("arcs", [&] {
      for (unsigned a = 0, e = net.numArcs(); a != e; ++a)
        writeArc(j, net, a, a < s.arcs.size() ? &s.arcs[a] : nullptr);
    });
    indexArray(j, "saturated_arcs", s.saturatedArcs);
    j.attributeBegin("binding_cut");
    if (s.bindingCut)
      writeCut(j, *s.bindingCut);
    else
      j.value(nullptr);
    j.attributeEnd();
    j.attributeArray("tiers", [&] {
      for (const TierSupply &t : s.tiers)
        j.object([&] {
          j.attribute("name", t.name);
          numberAttr(j, "bytes", t.bytes);
          j.attributeArray("devices", [&] {
            for (unsigned i = 0, e = t.devices.size(); i != e; ++i)
              j.object([&] {
                j.attribute("node", static_cast<int64_t>(t.devices[i]));
                numberAttr(j, "bytes", t.deviceBytes[i]);
              });
          });
        });
    });
    j.attributeObject("stats", [&] {
      j.attribute("max_flows", static_cast<int64_t>(s.stats.maxFlows));
      j.attribute("commodities", static_cast<int64_t>(s.stats.commodities));
      j.attribute("lp_rows", static_cast<int64_t>(s.stats.lpRows));
      j.attribute("lp_columns", static_cast<int64_t>(s.stats.lpColumns));
      j.attribute("lp_nonzeros", static_cast<int64_t>(s.stats.lpNonzeros));
      j.attribute("simplex_iterations",
                  static_cast<int64_t>(s.stats.simplexIterations));
      j.attribute("events", static_cast<int64_t>(s.stats.events));
    });
    if (!timeline.empty())
      j.attributeArray("timeline", [&] {
        for (const PathTimeline &t : timeline)
          j.object([&] {
            j.attribute("demand", static_cast<int64_t>(t.demand));
            j.attribute("path", static_cast<int64_t>(t.path));
            j.attributeArray("chunks", [&] {
              for (const Chunk &c : t.chunks)
                j.object([&] {
                  numberAttr(j, "offset", c.offset);
                  numberAttr(j, "bytes", c.bytes);
                  numberAttr(j, "start", c.start);
                  numberAttr(j, "end", c.end);
                });
            });
          });
      });
  });
}

std::string flow::scheduleToJSON(const FlowNetwork &net,
                                 const FlowSchedule &schedule,
                                 llvm::ArrayRef<PathTimeline> timeline,
                                 unsigned indent) {
  std::string out;
  llvm::raw_string_ostream os(out);
  writeScheduleJSON(os, net, schedule, timeline, indent);
  os.flush();
  return out;
}
