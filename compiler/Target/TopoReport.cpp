//===- TopoReport.cpp - Topology report writers ---------------------------===//
//
// The terminal table, JSON and Graphviz DOT writers over a TopoGraph and its
// TopoAnalysisResult. Nothing here iterates a hash container, and numbers
// are printed with fixed rules, so the bytes depend on the inputs only.
//
//===----------------------------------------------------------------------===//
#include "compiler/Target/TopoReport.h"
#include "compiler/Analysis/JSONNumbers.h"

#include "support/Units.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include <cassert>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace sluice;
using namespace sluice::analysis;
using namespace sluice::target;

namespace {

//===----------------------------------------------------------------------===//
// Shared formatting
//===----------------------------------------------------------------------===//

std::string formatBandwidth(double v) {
  if (std::isinf(v))
    return "unbounded";
  return formatQuantity(v, Dim::bandwidth());
}

std::string formatTime(double v) { return formatQuantity(v, Dim::time()); }

/// Names of `ids`, comma-separated; past `limit` names the rest is counted.
std::string joinNames(const TopoGraph &g, llvm::ArrayRef<unsigned> ids,
                      unsigned limit = 16) {
  std::string out;
  for (unsigned i = 0, e = ids.size(); i != e; ++i) {
    if (i == limit) {
      out += ", ... (" + std::to_string(e - limit) + " more)";
      break;
    }
    if (i)
      out += ", ";
    out += g.devices[ids[i]].name;
  }
  return out;
}

std::string plural(unsigned n, llvm::StringRef one, llvm::StringRef many) {
  return std::to_string(n) + " " + (n == 1 ? one : many).str();
}

//===----------------------------------------------------------------------===//
// Terminal table
//===----------------------------------------------------------------------===//

/// Columns separated by two spaces, each as wide as its widest cell; no
/// trailing blanks.
class Table {
public:
  Table(std::vector<std::string> header, std::vector<bool> rightAligned)
      : rightAligned(std::move(rightAligned)) {
    rows.push_back(std::move(header));
  }
  void addRow(std::vector<std::string> row) {
    assert(row.size() == rows.front().size() && "table row has wrong arity");
    rows.push_back(std::move(row));
  }
  void print(llvm::raw_ostream &os, unsigned indent = 2) const {
    std::vector<size_t> width(rows.front().size(), 0);
    for (const auto &row : rows)
      for (unsigned c = 0, e = row.size(); c != e; ++c)
        width[c] = std::max(width[c], row[c].size());
    for (const auto &row : rows) {
      std::string line(indent, ' ');
      for (unsigned c = 0, e = row.size(); c != e; ++c) {
        if (c)
          line += "  ";
        std::string pad(width[c] - row[c].size(), ' ');
        line += rightAligned[c] ? pad + row[c] : row[c] + pad;
      }
      os << llvm::StringRef(line).rtrim(' ') << "\n";
    }
  }

private:
  std::vector<bool> rightAligned;
  std::vector<std::vector<std::string>> rows;
};

void printKindTables(llvm::raw_ostream &os, const GraphTotals &t) {
  os << "\nkinds:\n";
  Table kinds({"KIND", "COUNT", "ARCS OUT", "EGRESS", "ARCS IN", "INGRESS"},
              {false, true, true, true, true, true});
  for (const KindTotals &k : t.kinds)
    kinds.addRow({k.kind, std::to_string(k.count), std::to_string(k.arcsOut),
                  formatBandwidth(k.egressBandwidth), std::to_string(k.arcsIn),
                  formatBandwidth(k.ingressBandwidth)});
  kinds.print(os);

  bool any = llvm::any_of(t.kinds, [](const KindTotals &k) {
    return !k.quantities.empty() || !k.ints.empty();
  });
  if (!any)
    return;
  os << "\nproperty totals:\n";
  Table props({"KIND", "PROPERTY", "TOTAL", "DEVICES"},
              {false, false, true, true});
  for (const KindTotals &k : t.kinds) {
    bool first = true;
    auto kindCell = [&] {
      std::string cell = first ? k.kind : "";
      first = false;
      return cell;
    };
    for (const QuantityTotal &q : k.quantities)
      props.addRow({kindCell(), q.name, formatQuantity(q.value, q.dim),
                    std::to_string(q.count)});
    for (const IntTotal &i : k.ints)
      props.addRow({kindCell(), i.name, std::to_string(i.value),
                    std::to_string(i.count)});
  }
  props.print(os);
}

/// One matrix over the pair subset; `cell` renders an off-diagonal cell.
template <typename CellFn>
void printMatrix(llvm::raw_ostream &os, const PairMatrix &m, CellFn cell) {
  std::vector<std::string> header = {""};
  std::vector<bool> right = {false};
  for (unsigned c = 0; c < m.size(); ++c) {
    header.push_back("#" + std::to_string(c));
    right.push_back(true);
  }
  Table table(std::move(header), std::move(right));
  for (unsigned r = 0; r < m.size(); ++r) {
    std::vector<std::string> row = {"#" + std::to_string(r)};
    for (unsigned c = 0; c < m.size(); ++c)
      row.push_back(m.devices[r] == m.devices[c] ? "-" : cell(m.at(r, c)));
    table.addRow(std::move(row));
  }
  table.print(os);
}

void printMatrices(llvm::raw_ostream &os, const TopoGraph &g,
                   const TopoAnalysisResult &r) {
  const PairMatrix &m = r.matrix;
  if (m.size() == 0)
    return;
  std::string what = r.matrixKind.empty() ? "all devices" : r.matrixKind;
  os << "\npairs (" << what << ", " << plural(m.size(), "device", "devices")
     << "):\n";
  for (unsigned i = 0; i < m.size(); ++i)
    os << "  #" << i << "  " << g.devices[m.devices[i]].name << "\n";

  os << "\nwidest-path bandwidth (the best single path, row -> column):\n";
  printMatrix(os, m, [](const PairMetrics &p) -> std::string {
    return p.reachable ? formatBandwidth(p.bandwidth) : "none";
  });
  if (m.hasMaxFlow) {
    os << "\nmax-flow bandwidth (all paths at once, row -> column):\n";
    printMatrix(os, m, [](const PairMetrics &p) -> std::string {
      return p.reachable ? formatBandwidth(*p.maxFlow) : "none";
    });
  } else if (!r.maxFlowSkipped.empty()) {
    os << "\nmax-flow bandwidth: not computed (" << r.maxFlowSkipped << ")\n";
  }
  bool anyUnknown = llvm::any_of(m.cells, [](const PairMetrics &p) {
    return p.reachable && !p.latencyKnown;
  });
  os << "\nlatency along the widest path"
     << (anyUnknown ? " (unknown: a link on it gives no latency)" : "")
     << ":\n";
  printMatrix(os, m, [](const PairMetrics &p) -> std::string {
    if (!p.reachable)
      return "none";
    return p.latencyKnown ? formatTime(p.latency) : "unknown";
  });
  os << "\nhops (fewest):\n";
  printMatrix(os, m, [](const PairMetrics &p) -> std::string {
    return p.reachable ? std::to_string(p.hops) : "none";
  });
  if (!m.hasAttained())
    return;
  os << "\nattained (measured) bandwidth:\n";
  printMatrix(os, m, [](const PairMetrics &p) -> std::string {
    return p.attained ? formatBandwidth(*p.attained) : "?";
  });
}

void printCutArcs(llvm::raw_ostream &os, const TopoGraph &g,
                  const CutResult &c) {
  if (c.cutArcs.empty())
    return;
  Table table({"FROM", "", "TO", "BANDWIDTH"}, {false, false, false, true});
  for (unsigned ai : c.cutArcs) {
    const TopoArc &a = g.arcs[ai];
    table.addRow({g.devices[a.from].name, "->", g.devices[a.to].name,
                  formatBandwidth(a.bandwidth)});
  }
  table.print(os, 4);
}

void printCut(llvm::raw_ostream &os, const TopoGraph &g, const CutResult &c,
              llvm::StringRef heading) {
  os << heading << ": " << formatBandwidth(c.capacity) << " over "
     << plural(c.cutArcs.size(), "arc", "arcs") << "\n";
  os << "    from: " << joinNames(g, c.sources) << "\n";
  os << "    to:   " << joinNames(g, c.sinks) << "\n";
  printCutArcs(os, g, c);
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

constexpr auto &numberAttr = analysis::writeJSONNumberAttr;
constexpr auto &indexArray = analysis::writeJSONIndexArray;

/// `key`: the value in base units, `key_display`: how it reads.
void quantityAttrs(llvm::json::OStream &j, llvm::StringRef key, double v,
                   const std::string &display) {
  numberAttr(j, key, v);
  j.attribute((key + "_display").str(), display);
}

/// "latency" in s and "latency_display", or null and "unknown".
void latencyAttrs(llvm::json::OStream &j, double latency, bool known) {
  if (known) {
    quantityAttrs(j, "latency", latency, formatTime(latency));
    return;
  }
  j.attribute("latency", nullptr);
  j.attribute("latency_display", "unknown");
}

void writeCutJSON(llvm::json::OStream &j, const CutResult &c) {
  j.object([&] {
    j.attribute("label", c.label);
    indexArray(j, "sources", c.sources);
    indexArray(j, "sinks", c.sinks);
    quantityAttrs(j, "capacity", c.capacity, formatBandwidth(c.capacity));
    indexArray(j, "cut_arcs", c.cutArcs);
  });
}

void writeDeviceJSON(llvm::json::OStream &j, unsigned index,
                     const TopoDevice &d) {
  j.object([&] {
    j.attribute("index", static_cast<int64_t>(index));
    j.attribute("name", d.name);
    j.attribute("kind", d.kind);
    j.attribute("group", d.group);
    j.attributeObject("properties", [&] {
      for (const QuantityProp &q : d.quantities)
        j.attributeObject(q.name, [&] {
          numberAttr(j, "value", q.value);
          j.attribute("dim", q.dim.name());
          j.attribute("display", q.display);
        });
      for (const IntProp &p : d.ints)
        j.attribute(p.name, p.value);
      for (const StringProp &p : d.strings)
        j.attribute(p.name, p.value);
      for (const BoolProp &p : d.bools)
        j.attribute(p.name, p.value);
    });
  });
}

void writeArcJSON(llvm::json::OStream &j, unsigned index, const TopoArc &a) {
  j.object([&] {
    j.attribute("index", static_cast<int64_t>(index));
    j.attribute("from", static_cast<int64_t>(a.from));
    j.attribute("to", static_cast<int64_t>(a.to));
    quantityAttrs(j, "bandwidth", a.bandwidth, formatBandwidth(a.bandwidth));
    latencyAttrs(j, a.latency, a.latencyKnown);
    j.attribute("measured", a.measured);
    if (a.link == TopoArc::kNoLink)
      j.attribute("link", nullptr);
    else
      j.attribute("link", static_cast<int64_t>(a.link));
    j.attribute("type", a.type);
  });
}

void writeKindJSON(llvm::json::OStream &j, const KindTotals &k) {
  j.object([&] {
    j.attribute("kind", k.kind);
    j.attribute("count", static_cast<int64_t>(k.count));
    j.attributeArray("quantities", [&] {
      for (const QuantityTotal &q : k.quantities)
        j.object([&] {
          j.attribute("name", q.name);
          j.attribute("dim", q.dim.name());
          quantityAttrs(j, "value", q.value, formatQuantity(q.value, q.dim));
          j.attribute("devices", static_cast<int64_t>(q.count));
        });
    });
    j.attributeArray("ints", [&] {
      for (const IntTotal &i : k.ints)
        j.object([&] {
          j.attribute("name", i.name);
          j.attribute("value", i.value);
          j.attribute("devices", static_cast<int64_t>(i.count));
        });
    });
    j.attribute("arcs_out", static_cast<int64_t>(k.arcsOut));
    quantityAttrs(j, "egress_bandwidth", k.egressBandwidth,
                  formatBandwidth(k.egressBandwidth));
    j.attribute("arcs_in", static_cast<int64_t>(k.arcsIn));
    quantityAttrs(j, "ingress_bandwidth", k.ingressBandwidth,
                  formatBandwidth(k.ingressBandwidth));
  });
}

void writePairsJSON(llvm::json::OStream &j, const PairMatrix &m,
                    const std::string &maxFlowSkipped) {
  j.object([&] {
    indexArray(j, "devices", m.devices);
    if (m.hasMaxFlow || maxFlowSkipped.empty())
      j.attribute("max_flow_skipped", nullptr);
    else
      j.attribute("max_flow_skipped", maxFlowSkipped);
    j.attributeArray("pairs", [&] {
      for (unsigned r = 0; r < m.size(); ++r)
        for (unsigned c = 0; c < m.size(); ++c) {
          if (m.devices[r] == m.devices[c])
            continue;
          const PairMetrics &p = m.at(r, c);
          j.object([&] {
            j.attribute("from", static_cast<int64_t>(m.devices[r]));
            j.attribute("to", static_cast<int64_t>(m.devices[c]));
            j.attribute("reachable", p.reachable);
            quantityAttrs(j, "widest_path", p.bandwidth,
                          p.reachable ? formatBandwidth(p.bandwidth) : "none");
            if (p.maxFlow)
              quantityAttrs(j, "max_flow", *p.maxFlow,
                            p.reachable ? formatBandwidth(*p.maxFlow) : "none");
            else
              j.attribute("max_flow", nullptr);
            if (p.reachable)
              latencyAttrs(j, p.latency, p.latencyKnown);
            else {
              j.attribute("latency", nullptr);
              j.attribute("latency_display", "none");
            }
            if (p.reachable) {
              j.attribute("hops", static_cast<int64_t>(p.hops));
              j.attribute("path_hops", static_cast<int64_t>(p.pathHops));
            } else {
              j.attribute("hops", nullptr);
              j.attribute("path_hops", nullptr);
            }
            if (p.attained)
              quantityAttrs(j, "attained", *p.attained,
                            formatBandwidth(*p.attained));
            else
              j.attribute("attained", nullptr);
          });
        }
    });
  });
}

//===----------------------------------------------------------------------===//
// DOT
//===----------------------------------------------------------------------===//

/// A DOT double-quoted string.
std::string quote(llvm::StringRef s) {
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
  out += '"';
  return out;
}

llvm::StringRef shapeOf(llvm::StringRef kind) {
  return llvm::StringSwitch<llvm::StringRef>(kind)
      .Case("gpu", "box3d")
      .Case("cpu", "box")
      .Case("nvme", "cylinder")
      .Case("csd", "folder")
      .Case("nic", "hexagon")
      .Case("smartnic", "doubleoctagon")
      .Case("switch", "diamond")
      .Default("ellipse");
}

/// One drawn node: a device, or in a summary a top-level instance.
struct DotNode {
  std::string name;
  /// The instance cluster the node sits in ("" at the top level).
  std::string parent;
  /// The name without its last index ("server[3].gpu" for
  /// "server[3].gpu[2]"): nodes of one array share it.
  std::string array;
  unsigned firstDevice = 0;
  unsigned devices = 0;
  /// A summary node standing for a whole instance.
  bool instance = false;
  /// Devices per kind, in order of first appearance.
  std::vector<std::pair<std::string, unsigned>> kindCounts;
};

/// "server[3].gpu[2]" -> "server[3].gpu"; a name without a trailing index
/// is its own array.
std::string arrayOf(llvm::StringRef name) {
  if (!name.ends_with("]"))
    return name.str();
  size_t open = name.rfind('[');
  return open == llvm::StringRef::npos ? name.str()
                                       : name.take_front(open).str();
}

/// The name inside its instance cluster ("gpu[2]" for "server[3].gpu[2]").
llvm::StringRef localName(const DotNode &n) {
  llvm::StringRef name = n.name;
  if (n.parent.empty())
    return name;
  return name.drop_front(n.parent.size() + 1);
}

/// "gpu[0..7]" for an array box; the members' indices when they are not
/// consecutive.
std::string arrayLabel(const std::vector<DotNode> &nodes,
                       llvm::ArrayRef<unsigned> members) {
  llvm::StringRef first = localName(nodes[members.front()]);
  llvm::StringRef last = localName(nodes[members.back()]);
  size_t open = first.rfind('[');
  std::string base = first.take_front(open).str();
  llvm::StringRef lo = first.drop_front(open + 1).drop_back();
  llvm::StringRef hi = last.drop_front(last.rfind('[') + 1).drop_back();
  return base + "[" + lo.str() + ".." + hi.str() + "] (" +
         std::to_string(members.size()) + ")";
}

/// The links of one ordered node pair.
struct Bundle {
  /// Ascending.
  std::vector<double> bandwidths;
  /// How many are in the bisection cut.
  unsigned highlighted = 0;

  /// Same links (the highlighting of a pair is decided per pair).
  bool operator==(const Bundle &o) const { return bandwidths == o.bandwidths; }
  /// "50 GB/s", "4 x 25 GB/s", or "60 GB/s in 3 links".
  std::string label() const {
    unsigned n = bandwidths.size();
    if (n == 1)
      return formatBandwidth(bandwidths.front());
    if (bandwidths.front() == bandwidths.back())
      return std::to_string(n) + " x " + formatBandwidth(bandwidths.front());
    double sum = 0;
    for (double bw : bandwidths)
      sum += bw;
    return formatBandwidth(sum) + " in " + std::to_string(n) + " links";
  }
};

/// One edge between two arrays linked each to each.
struct ArrayEdge {
  unsigned x, y;
  /// Links in the bisection cut.
  unsigned highlighted = 0;
  unsigned links = 0;
  double lo = 0, hi = 0, sum = 0;

  void add(double bw) {
    lo = links ? std::min(lo, bw) : bw;
    hi = links ? std::max(hi, bw) : bw;
    sum += bw;
    ++links;
  }
  /// "each to each: 48 x 50 GB/s", or with a range and the total, and
  /// how many links are in the cut when only some are.
  std::string label() const {
    std::string out = "each to each: " + std::to_string(links) + " x ";
    if (lo == hi)
      out += formatBandwidth(lo);
    else
      out += formatBandwidth(lo) + ".." + formatBandwidth(hi) + "\n" +
             formatBandwidth(sum) + " in all";
    if (highlighted && highlighted != links)
      out += "\n" + std::to_string(highlighted) + " in the bisection cut";
    return out;
  }
};

void writeDotNode(llvm::raw_ostream &os, unsigned i, const DotNode &n,
                  const TopoGraph &g, llvm::StringRef indent) {
  const TopoDevice &first = g.devices[n.firstDevice];
  std::string label = localName(n).str();
  llvm::StringRef shape = shapeOf(first.kind);
  if (n.instance) {
    // An instance: its name and what it holds.
    shape = "box";
    label += "\n";
    for (unsigned k = 0, e = n.kindCounts.size(); k != e; ++k)
      label += (k ? ", " : "") + std::to_string(n.kindCounts[k].second) + " " +
               n.kindCounts[k].first;
  }
  os << indent << "n" << i << " [label=" << quote(label) << ", shape=" << shape;
  if (n.instance)
    os << ", style=rounded";
  os << ", tooltip=" << quote(n.name) << "];\n";
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

void target::writeTopoTable(llvm::raw_ostream &os, const TopoGraph &g,
                            const TopoAnalysisResult &r) {
  const GraphTotals &t = r.totals;
  os << "topology: " << plural(t.devices, "device", "devices") << " in "
     << plural(g.groups().size(), "group", "groups") << ", "
     << plural(t.links, "link", "links") << " ("
     << plural(t.modeledArcs, "arc", "arcs") << ", " << t.measuredArcs
     << " measured), "
     << plural(r.components.count(), "component", "components") << "\n";
  os << "aggregate link bandwidth: " << formatBandwidth(t.arcBandwidth) << "\n";
  if (!t.kinds.empty())
    printKindTables(os, t);

  if (r.components.count() > 1) {
    os << "\ncomponents:\n";
    for (unsigned c = 0; c < r.components.count(); ++c) {
      const auto &members = r.components.members[c];
      os << "  #" << c << ": " << plural(members.size(), "device", "devices")
         << ": " << joinNames(g, members) << "\n";
    }
  }

  printMatrices(os, g, r);

  if (r.bisection) {
    const BisectionResult &b = *r.bisection;
    std::string what = r.matrixKind.empty() ? "all devices" : r.matrixKind;
    os << "\nbisection of " << what << " (" << b.firstHalf.size() << " | "
       << b.secondHalf.size() << "): " << formatBandwidth(b.bandwidth) << "\n";
    printCut(os, g, b.forward, "  first -> second");
    printCut(os, g, b.backward, "  second -> first");
  }

  if (!r.cuts.empty()) {
    os << "\ncuts:\n";
    for (const CutResult &c : r.cuts)
      printCut(os, g, c, "  " + quote(c.label));
  }
}

void target::writeTopoJSON(llvm::raw_ostream &os, const TopoGraph &g,
                           const TopoAnalysisResult &r, unsigned indent) {
  const GraphTotals &t = r.totals;
  llvm::json::OStream j(os, indent);
  j.object([&] {
    j.attributeObject("summary", [&] {
      j.attribute("devices", static_cast<int64_t>(t.devices));
      j.attribute("groups", static_cast<int64_t>(g.groups().size()));
      j.attribute("links", static_cast<int64_t>(t.links));
      j.attribute("modeled_arcs", static_cast<int64_t>(t.modeledArcs));
      j.attribute("measured_arcs", static_cast<int64_t>(t.measuredArcs));
      quantityAttrs(j, "arc_bandwidth", t.arcBandwidth,
                    formatBandwidth(t.arcBandwidth));
      j.attribute("components", static_cast<int64_t>(r.components.count()));
    });
    j.attributeArray("devices", [&] {
      for (unsigned i = 0, e = g.devices.size(); i != e; ++i)
        writeDeviceJSON(j, i, g.devices[i]);
    });
    j.attributeArray("arcs", [&] {
      for (unsigned i = 0, e = g.arcs.size(); i != e; ++i)
        writeArcJSON(j, i, g.arcs[i]);
    });
    j.attributeArray("components", [&] {
      for (const auto &members : r.components.members)
        j.array([&] {
          for (unsigned d : members)
            j.value(static_cast<int64_t>(d));
        });
    });
    j.attributeArray("kinds", [&] {
      for (const KindTotals &k : t.kinds)
        writeKindJSON(j, k);
    });
    j.attribute("matrix_kind", r.matrixKind);
    j.attributeBegin("matrix");
    writePairsJSON(j, r.matrix, r.maxFlowSkipped);
    j.attributeEnd();
    j.attributeBegin("bisection");
    if (r.bisection) {
      const BisectionResult &b = *r.bisection;
      j.object([&] {
        indexArray(j, "first_half", b.firstHalf);
        indexArray(j, "second_half", b.secondHalf);
        quantityAttrs(j, "bandwidth", b.bandwidth,
                      formatBandwidth(b.bandwidth));
        j.attributeBegin("forward");
        writeCutJSON(j, b.forward);
        j.attributeEnd();
        j.attributeBegin("backward");
        writeCutJSON(j, b.backward);
        j.attributeEnd();
      });
    } else {
      j.value(nullptr);
    }
    j.attributeEnd();
    j.attributeArray("cuts", [&] {
      for (const CutResult &c : r.cuts)
        writeCutJSON(j, c);
    });
  });
  os << "\n";
}

void target::writeTopoDot(llvm::raw_ostream &os, const TopoGraph &g,
                          const TopoAnalysisResult *r,
                          const TopoDotOptions &options) {
  std::vector<bool> highlighted(g.arcs.size(), false);
  if (r && r->bisection && options.highlightBisection) {
    for (unsigned ai : r->bisection->forward.cutArcs)
      highlighted[ai] = true;
    for (unsigned ai : r->bisection->backward.cutArcs)
      highlighted[ai] = true;
  }
  bool summary = drawSummary(options.detail, g.devices.size());

  // Drawn nodes: every device, or in a summary one per top-level instance
  // (a top-level device stands for itself). In order of first device.
  std::vector<DotNode> nodes;
  std::vector<unsigned> nodeOf(g.devices.size());
  {
    std::map<std::string, unsigned> byName; // Lookups only.
    for (unsigned i = 0, n = g.devices.size(); i != n; ++i) {
      const TopoDevice &d = g.devices[i];
      bool collapse = summary && !d.group.empty();
      std::string name = collapse ? d.group : d.name;
      auto [it, inserted] = byName.try_emplace(name, nodes.size());
      if (inserted) {
        DotNode node;
        node.name = name;
        node.firstDevice = i;
        node.instance = collapse;
        node.parent = collapse ? "" : d.group;
        node.array = arrayOf(name);
        nodes.push_back(std::move(node));
      }
      nodeOf[i] = it->second;
      DotNode &node = nodes[it->second];
      ++node.devices;
      auto kc = llvm::find_if(node.kindCounts,
                              [&](const auto &k) { return k.first == d.kind; });
      if (kc == node.kindCounts.end())
        node.kindCounts.push_back({d.kind, 1});
      else
        ++kc->second;
    }
  }

  // The modeled arcs between two drawn nodes, per ordered pair.
  std::map<std::pair<unsigned, unsigned>, Bundle> bundles;
  std::vector<unsigned> selfLoops;
  for (unsigned i = 0, e = g.arcs.size(); i != e; ++i) {
    const TopoArc &a = g.arcs[i];
    if (a.measured)
      continue;
    unsigned u = nodeOf[a.from], v = nodeOf[a.to];
    if (u == v) {
      if (!summary)
        selfLoops.push_back(i);
      continue;
    }
    Bundle &b = bundles[{u, v}];
    b.bandwidths.push_back(a.bandwidth);
    b.highlighted += highlighted[i];
  }
  for (auto &entry : bundles)
    llvm::sort(entry.second.bandwidths);

  // Arrays (nodes that differ in their last index only, "gpu[0..7]") linked
  // each to each by symmetric links become one edge between two boxes; in
  // full detail only if the links are all in the bisection cut or none.
  std::vector<std::vector<unsigned>> arrays; // Members, ascending.
  std::vector<unsigned> arrayOfNode(nodes.size());
  {
    std::map<std::pair<std::string, std::string>, unsigned> byKey;
    for (unsigned n = 0; n < nodes.size(); ++n) {
      auto [it, inserted] =
          byKey.try_emplace({nodes[n].parent, nodes[n].array}, arrays.size());
      if (inserted)
        arrays.emplace_back();
      arrays[it->second].push_back(n);
      arrayOfNode[n] = it->second;
    }
  }
  std::set<std::pair<unsigned, unsigned>> drawnPairs; // Node pairs, u < v.
  std::vector<ArrayEdge> arrayEdges;
  std::vector<bool> boxed(arrays.size(), false);
  for (unsigned x = 0; x < arrays.size(); ++x)
    for (unsigned y = x + 1; y < arrays.size(); ++y) {
      const auto &ax = arrays[x], &ay = arrays[y];
      if (ax.size() < 2 && ay.size() < 2)
        continue;
      ArrayEdge edge{x, y};
      bool complete = true;
      for (unsigned a : ax) {
        for (unsigned b : ay) {
          auto fwd = bundles.find({a, b}), bwd = bundles.find({b, a});
          // Symmetric, and red all over or nowhere.
          if (fwd == bundles.end() || bwd == bundles.end() ||
              !(fwd->second == bwd->second)) {
            complete = false;
            break;
          }
          // A link is red if either of its arcs crosses the cut.
          // Drawn in full, which links are cut stays visible: all or none.
          unsigned red =
              std::max(fwd->second.highlighted, bwd->second.highlighted);
          if (!summary && edge.links != 0 &&
              (red != 0) != (edge.highlighted != 0)) {
            complete = false;
            break;
          }
          edge.highlighted += red;
          for (double bw : fwd->second.bandwidths)
            edge.add(bw);
        }
        if (!complete)
          break;
      }
      if (!complete)
        continue;
      for (unsigned a : ax)
        for (unsigned b : ay)
          drawnPairs.insert({std::min(a, b), std::max(a, b)});
      boxed[x] = ax.size() > 1;
      boxed[y] = ay.size() > 1;
      arrayEdges.push_back(edge);
    }

  os << "digraph topology {\n";
  os << "  graph [rankdir=LR, fontname=\"Helvetica\", compound=true";
  if (summary)
    os << ", label="
       << quote(std::to_string(g.devices.size()) +
                " devices drawn as one node per instance "
                "(--dot-detail=full draws every device)")
       << ", labelloc=t";
  os << "];\n";
  os << "  node [fontname=\"Helvetica\", fontsize=10];\n";
  os << "  edge [fontname=\"Helvetica\", fontsize=9];\n";

  // Instance clusters in order of first appearance, boxed arrays inside
  // them, then the top-level nodes.
  std::vector<std::string> parents;
  for (const DotNode &n : nodes)
    if (!n.parent.empty() && !llvm::is_contained(parents, n.parent))
      parents.push_back(n.parent);
  auto writeMembers = [&](llvm::StringRef parent, llvm::StringRef indent) {
    for (unsigned x = 0; x < arrays.size(); ++x) {
      if (nodes[arrays[x].front()].parent != parent)
        continue;
      std::string inner = indent.str();
      if (boxed[x]) {
        os << indent << "subgraph cluster_a" << x << " {\n";
        os << indent << "  label=" << quote(arrayLabel(nodes, arrays[x]))
           << ";\n";
        os << indent << "  style=rounded;\n";
        inner += "  ";
      }
      for (unsigned n : arrays[x])
        writeDotNode(os, n, nodes[n], g, inner);
      if (boxed[x])
        os << indent << "}\n";
    }
  };
  for (unsigned c = 0, e = parents.size(); c != e; ++c) {
    os << "  subgraph cluster_" << c << " {\n";
    os << "    label=" << quote(parents[c]) << ";\n";
    writeMembers(parents[c], "    ");
    os << "  }\n";
  }
  writeMembers("", "  ");

  bool anyRed = false, anyBoxEdge = !arrayEdges.empty(), anyDashed = false;
  for (const ArrayEdge &e : arrayEdges) {
    const auto &ax = arrays[e.x], &ay = arrays[e.y];
    os << "  n" << ax.front() << " -> n" << ay.front()
       << " [label=" << quote(e.label()) << ", dir=both";
    if (ax.size() > 1)
      os << ", ltail=cluster_a" << e.x;
    if (ay.size() > 1)
      os << ", lhead=cluster_a" << e.y;
    os << ", penwidth=2";
    if (e.highlighted) {
      os << ", color=red, fontcolor=red";
      anyRed = true;
    }
    os << "];\n";
  }

  // The other node pairs, in order of their first arc: one edge with
  // dir=both when both directions carry the same links, else one each.
  auto writeBundle = [&](unsigned u, unsigned v, const Bundle &b, bool both) {
    std::string label = b.label();
    if (b.highlighted && b.highlighted < b.bandwidths.size())
      label += "\n" + std::to_string(b.highlighted) + " in the cut";
    os << "  n" << u << " -> n" << v << " [label=" << quote(label);
    if (both)
      os << ", dir=both";
    if (b.highlighted) {
      os << ", color=red, fontcolor=red, penwidth=2";
      anyRed = true;
    }
    os << "];\n";
  };
  for (unsigned i = 0, e = g.arcs.size(); i != e; ++i) {
    const TopoArc &a = g.arcs[i];
    if (a.measured)
      continue;
    unsigned u = nodeOf[a.from], v = nodeOf[a.to];
    if (u == v)
      continue;
    std::pair<unsigned, unsigned> key = {std::min(u, v), std::max(u, v)};
    if (!drawnPairs.insert(key).second)
      continue;
    auto fwd = bundles.find({u, v}), bwd = bundles.find({v, u});
    if (bwd != bundles.end() && fwd->second == bwd->second) {
      // One edge for both directions, red if either crosses the cut.
      Bundle both = fwd->second;
      both.highlighted =
          std::max(fwd->second.highlighted, bwd->second.highlighted);
      writeBundle(u, v, both, true);
      continue;
    }
    writeBundle(u, v, fwd->second, false);
    if (bwd != bundles.end())
      writeBundle(v, u, bwd->second, false);
  }
  for (unsigned i : selfLoops) {
    Bundle b;
    b.bandwidths.push_back(g.arcs[i].bandwidth);
    b.highlighted = highlighted[i];
    writeBundle(nodeOf[g.arcs[i].from], nodeOf[g.arcs[i].to], b, false);
  }
  if (options.showMeasured && !summary)
    for (const TopoArc &a : g.arcs) {
      if (!a.measured)
        continue;
      anyDashed = true;
      os << "  n" << nodeOf[a.from] << " -> n" << nodeOf[a.to]
         << " [label=" << quote("attained " + formatBandwidth(a.bandwidth))
         << ", style=dashed, constraint=false];\n";
    }

  // What the styles mean, when they are used.
  std::string legend;
  if (anyRed)
    legend += "red: links in the bisection cut of the " +
              (r->matrixKind.empty() ? std::string("devices")
                                     : r->matrixKind + " devices") +
              " (either direction)\n";
  if (anyBoxEdge)
    legend += "edge between boxes: every member of one linked to every "
              "member of the other\n";
  if (anyDashed)
    legend += "dashed: measured (attained) bandwidth, not a link\n";
  if (llvm::any_of(bundles, [](const auto &b) {
        return b.second.bandwidths.size() > 1;
      }))
    legend += "n x B: n parallel links of B each\n";
  if (!legend.empty())
    os << "  legend [shape=note, fontsize=9, label=" << quote(legend) << "];\n";
  os << "}\n";
}
