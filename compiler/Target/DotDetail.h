//===- DotDetail.h - How much of a topology a picture draws ----*- C++ -*-===//
//
// The level of detail of the Graphviz pictures (`--format=dot|svg` of
// `sluicec --emit=report` and `--emit=plan`), shared by the topology writer
// (TopoReport.cpp) and the plan writer (dialects/Plan PlanExport.cpp). A
// summary draws one node per top-level instance (a TopoDevice's group, e.g.
// "server[3]") and merges the arcs between two instances into one edge;
// devices at the top level keep their own node. See docs/analysis.md.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TARGET_DOTDETAIL_H
#define SLUICE_COMPILER_TARGET_DOTDETAIL_H

namespace sluice::target {

enum class DotDetail {
  /// Summary above kDotSummaryDevices devices, every device otherwise.
  Auto,
  /// Every device.
  Full,
  /// One node per top-level instance.
  Summary,
};

/// Above this many devices `Auto` draws the summary: a DGX A100 (38 devices) is
/// drawn in full, the 16-server cluster (620) per server. Graphviz's `dot`
/// lays out a few hundred nodes with thousands of edges in minutes, not
/// seconds.
constexpr unsigned kDotSummaryDevices = 64;

/// Whether a picture of `devices` devices draws the summary.
inline bool drawSummary(DotDetail detail, unsigned devices) {
  switch (detail) {
  case DotDetail::Full:
    return false;
  case DotDetail::Summary:
    return true;
  case DotDetail::Auto:
    break;
  }
  return devices > kDotSummaryDevices;
}

} // namespace sluice::target

#endif // SLUICE_COMPILER_TARGET_DOTDETAIL_H
