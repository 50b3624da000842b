//===- TopoReport.h - Topology report writers ------------------*- C++ -*-===//
//
// Writers for a TopoGraph and its analysis results: an aligned terminal
// table, JSON (llvm::json, keys in the order written, numbers in base units
// next to display strings) and Graphviz DOT. They see no IR. Every writer's
// output is a deterministic function of its inputs, byte for byte. The
// formats are described in docs/analysis.md.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TARGET_TOPOREPORT_H
#define SLUICE_COMPILER_TARGET_TOPOREPORT_H

#include "compiler/Analysis/TopoAnalysis.h"
#include "compiler/Analysis/TopoGraph.h"
#include "compiler/Target/DotDetail.h"
#include "llvm/Support/raw_ostream.h"

namespace sluice::target {

/// Writes the human-readable report: a summary line, totals per kind,
/// property totals, components (when more than one), the pair matrix
/// (bandwidth, hops and, when measured, attained), the bisection and the
/// requested cuts.
void writeTopoTable(llvm::raw_ostream &os, const analysis::TopoGraph &g,
                    const analysis::TopoAnalysisResult &r);

/// Writes the report as one JSON object, pretty-printed with `indent`
/// spaces (0 for one line), followed by a newline.
void writeTopoJSON(llvm::raw_ostream &os, const analysis::TopoGraph &g,
                   const analysis::TopoAnalysisResult &r, unsigned indent = 2);

struct TopoDotOptions {
  /// Also draw measured arcs (dashed, not constraining the layout).
  bool showMeasured = false;
  /// Draw the arcs of the bisection cut (both directions) in red; needs
  /// analysis results.
  bool highlightBisection = true;
  /// Every device, or one node per top-level instance (see DotDetail.h).
  DotDetail detail = DotDetail::Auto;
};

/// Writes a Graphviz digraph: one node per device shaped by its kind (in a
/// summary, one per top-level instance), one cluster per group, and one
/// edge per pair of nodes that are linked, labelled with the bandwidth of
/// its links ("50 GB/s", "4 x 25 GB/s"), with dir=both when both directions
/// carry the same links. Two arrays linked each to each ("gpu[0..7]" and
/// "nvswitch[0..5]") are boxed and joined by one edge. A legend says what
/// red, dashed and boxed edges mean when they are drawn. `r` may be null.
void writeTopoDot(llvm::raw_ostream &os, const analysis::TopoGraph &g,
                  const analysis::TopoAnalysisResult *r = nullptr,
                  const TopoDotOptions &options = {});

} // namespace sluice::target

#endif // SLUICE_COMPILER_TARGET_TOPOREPORT_H
