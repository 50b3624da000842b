//===- TopoReport.cpp - Topology report writers ---------------------------===//
//
// The terminal table, JSON and Graphviz DOT writers over a TopoGraph and its
// TopoAnalysisResult. Nothing here iterates a hash container, and numbers
// are printed with fixed rules, so the bytes depend on the inputs only.
//
//===----------------------------------------------------------------------===//
#include "compiler/Target/TopoReport.h"
#include "compiler/Analysis/JSONNumbers.h"

#include "dialects/Common/Units.h"
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

  os << "\nwidest-path bandwidth (row -> column):\n";
  printMatrix(os, m, [](const PairMetrics &p) -> std::string {
    return p.reachable ? formatBandwidth(p.bandwidth) : "none";
  });
  os << "\nlatency along the widest path:\n";
  printMatrix(os, m, [](const PairMetrics &p) -> std::string {
    return p.reachable ? formatTime(p.latency) : "none";
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
    quantityAttrs(j, "latency", a.latency, formatTime(a.latency));
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

void writePairsJSON(llvm::json::OStream &j, const PairMatrix &m) {
  j.object([&] {
    indexArray(j, "devices", m.devices);
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
            quantityAttrs(j, "bandwidth", p.bandwidth,
                          p.reachable ? formatBandwidth(p.bandwidth) : "none");
            quantityAttrs(j, "latency", p.latency, formatTime(p.latency));
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

/// The device name inside its group's cluster ("gpu[2]" for
/// "server[3].gpu[2]").
llvm::StringRef localName(const TopoDevice &d) {
  llvm::StringRef name = d.name;
  if (d.group.empty())
    return name;
  return name.drop_front(d.group.size() + 1);
}

void writeDotNode(llvm::raw_ostream &os, unsigned i, const TopoDevice &d,
                  llvm::StringRef indent) {
  os << indent << "n" << i << " [label=" << quote(localName(d))
     << ", shape=" << shapeOf(d.kind) << ", tooltip=" << quote(d.name)
     << "];\n";
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
    writePairsJSON(j, r.matrix);
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

  os << "digraph topology {\n";
  os << "  graph [rankdir=LR, fontname=\"Helvetica\"];\n";
  os << "  node [fontname=\"Helvetica\", fontsize=10];\n";
  os << "  edge [fontname=\"Helvetica\", fontsize=9];\n";

  // Clusters in order of first appearance, then the top-level devices.
  std::vector<std::string> groups = g.groups();
  llvm::StringMap<unsigned> clusterOf; // Lookups only.
  for (unsigned c = 0, e = groups.size(); c != e; ++c)
    clusterOf[groups[c]] = c;
  std::vector<std::vector<unsigned>> members(groups.size());
  for (unsigned i = 0, n = g.devices.size(); i != n; ++i)
    if (!g.devices[i].group.empty())
      members[clusterOf.lookup(g.devices[i].group)].push_back(i);
  for (unsigned c = 0, e = groups.size(); c != e; ++c) {
    os << "  subgraph cluster_" << c << " {\n";
    os << "    label=" << quote(groups[c]) << ";\n";
    for (unsigned i : members[c])
      writeDotNode(os, i, g.devices[i], "    ");
    os << "  }\n";
  }
  for (unsigned i = 0, n = g.devices.size(); i != n; ++i)
    if (g.devices[i].group.empty())
      writeDotNode(os, i, g.devices[i], "  ");

  // Pair each arc with the first later unpaired opposite arc that draws the
  // same; std::map keeps the lookups ordered.
  std::map<std::pair<unsigned, unsigned>, std::vector<unsigned>> byEnds;
  for (unsigned i = 0, e = g.arcs.size(); i != e; ++i)
    byEnds[{g.arcs[i].from, g.arcs[i].to}].push_back(i);
  std::vector<bool> drawn(g.arcs.size(), false);
  for (unsigned i = 0, e = g.arcs.size(); i != e; ++i) {
    const TopoArc &a = g.arcs[i];
    if (drawn[i] || (a.measured && !options.showMeasured))
      continue;
    drawn[i] = true;
    bool both = false;
    auto it = byEnds.find({a.to, a.from});
    if (a.from != a.to && it != byEnds.end()) {
      for (unsigned j : it->second) {
        const TopoArc &b = g.arcs[j];
        if (j <= i || drawn[j] || b.bandwidth != a.bandwidth ||
            b.measured != a.measured || highlighted[j] != highlighted[i])
          continue;
        drawn[j] = true;
        both = true;
        break;
      }
    }
    std::string label = formatBandwidth(a.bandwidth);
    if (a.measured)
      label = "attained " + label;
    os << "  n" << a.from << " -> n" << a.to << " [label=" << quote(label);
    if (both)
      os << ", dir=both";
    if (a.measured)
      os << ", style=dashed, constraint=false";
    if (highlighted[i])
      os << ", color=red, fontcolor=red, penwidth=2";
    os << "];\n";
  }
  os << "}\n";
}
