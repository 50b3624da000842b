//===- LoopRemark.cpp - graph-to-llvm: what a loop's remark says ---------===//
//
// Outliner::describe: the `--remarks` line of one loop (AlgorithmOutline.h):
// its variants and direction, the frontier it runs over, its parallelism
// and atomics, the reductions kept in registers, the vertex order, the
// merges and early ends, the tiles and the edge format.
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/GraphToLLVM/AlgorithmOutline.h"
#include "compiler/Conversion/GraphToLLVM/GraphAbi.h"
#include "compiler/Conversion/GraphToLLVM/GraphBuilders.h"
#include "compiler/Conversion/GraphToLLVM/GraphLowering.h"
#include "compiler/Conversion/GraphToLLVM/TiledLoops.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace sluice;
using namespace sluice::conversion;
using namespace sluice::conversion::outline;

/// The remark's words for a push variant that tests a source-only `where`
/// before the source's out-edges.
constexpr const char *kSkipsSources =
    "; a source's out-edges are skipped when `where` (it reads only the "
    "source) is false";

/// The remark's words for the source reads a push variant makes once per
/// source (pushSourceReads).
static void describeSourceReads(llvm::raw_ostream &os, Operation *loop) {
  SmallVector<graph::PropGetOp> reads = pushSourceReads(loop);
  if (reads.empty())
    return;
  os << "; reads ";
  llvm::interleaveComma(reads, os, [&](graph::PropGetOp get) {
    os << "`" << get.getProperty() << "[src]`";
  });
  os << " once per source, not per edge";
}

std::string Outliner::describe(Operation *loop, graph::ScheduleAttr s,
                               ArrayRef<Variant> variants,
                               const TilePlan &tiling, bool binned) {
  std::string text;
  llvm::raw_string_ostream os(text);
  bool hasFrontier =
      isa<graph::EdgesOp>(loop) && cast<graph::EdgesOp>(loop).getFrom();
  if (variants.size() == 2) {
    os << "push over the out-edges of the frontier's list while they are "
          "few, pull over in-edges against its bitmap once they pass 1/"
       << llvm::format("%g", s.hybridAlpha())
       << " of the edges not yet scanned, until it shrinks "
          "below 1/"
       << llvm::format("%g", s.hybridBeta())
       << " of the vertices (chosen per round"
       << (s.getAlpha() ? ", alpha and beta from the schedule" : "") << ")"
       << (pullExitsEarly(loop)
               ? "; a vertex's in-edges end once `where` is false"
               : "")
       << (pushTestsSourceFirst(loop) ? kSkipsSources : "");
  } else if (variants.front() == Variant::Vertices) {
    os << "over every vertex";
  } else if (variants.front() == Variant::Coo) {
    os << "push over the edges as coordinates (format coo), in the CSR's "
          "order: each range of edges a thread runs finds its first source "
          "by a binary search of the out-offsets, the next ones by walking "
          "them";
  } else if (variants.front() == Variant::Pull) {
    os << "pull over in-edges (CSC)"
       << (hasFrontier ? ", sources tested against the frontier's bitmap" : "")
       << (pullExitsEarly(loop)
               ? "; a vertex's in-edges end once `where` is false"
               : "");
  } else {
    os << "push over the out-edges (CSR) of ";
    if (!hasFrontier)
      os << "every vertex";
    else if (*s.getFrontier() == graph::FrontierKind::Sparse)
      os << "the frontier's list";
    else if (*s.getFrontier() == graph::FrontierKind::Buckets)
      os << "the frontier's vertices in its lowest bucket of width "
         << llvm::format("%g", s.getDelta().getValueAsDouble())
         << " (ordered by the property reduced with min=; the others pass "
            "on to the result, "
         << (consumesFrontier(cast<graph::EdgesOp>(loop))
                 ? "waiting in a bucket queue"
                 : "by a scan: the frontier is read again")
         << ")";
    else if (*s.getFrontier() == graph::FrontierKind::Auto)
      os << "the frontier's list, or every vertex tested against its bitmap "
            "once it is large (chosen per round)";
    else
      os << "every vertex tested against the frontier's bitmap";
    if (pushTestsSourceFirst(loop))
      os << kSkipsSources;
  }
  if (llvm::is_contained(variants, Variant::Push))
    describeSourceReads(os, loop);
  graph::Parallel parallel = *s.getParallel();
  os << "; "
     << (parallel == graph::Parallel::Serial   ? "serial"
         : parallel == graph::Parallel::Static ? "parallel, static shares"
         : variants.front() == Variant::Coo
             ? "parallel, dynamic chunks of as many edges as " +
                   std::to_string(*s.getChunk()) + " sources have on average"
             : "parallel, dynamic chunks of " + std::to_string(*s.getChunk()) +
                   " vertices");
  // Which updates need atomics: those not at the vertex an iteration owns.
  if (parallel != graph::Parallel::Serial) {
    llvm::SetVector<StringRef> atomic;
    for (Variant v : variants) {
      unsigned owned = ownedBinder(v);
      loop->getRegion(1).walk([&](Operation *op) {
        Value vertex;
        StringRef name;
        if (!propertyUpdate(op, vertex, name))
          return;
        auto arg = dyn_cast<BlockArgument>(vertex);
        if (!arg || arg.getOwner()->getParent() != &loop->getRegion(1) ||
            arg.getArgNumber() != owned)
          atomic.insert(name);
      });
    }
    if (atomic.empty()) {
      os << "; no atomics";
    } else {
      // A binned loop's atomics are its fallback (the remark's end).
      os << (binned ? "; without bins, atomic updates of"
                    : "; atomic updates of");
      for (StringRef name : atomic)
        os << " '" << name << "'";
    }
  }
  if (llvm::is_contained(variants, Variant::Pull) && !pullExitsEarly(loop)) {
    SmallVector<graph::PropertyOp> accumulated = pullAccumulators(loop, props);
    for (auto [k, p] : llvm::enumerate(accumulated))
      os << (k ? ", '" : "; reductions into '") << p.getSymName() << "'";
    if (!accumulated.empty())
      os << " combined in a register across each destination's in-edges, "
            "stored once per destination"
         << (tiling.tiled ? " (untiled runs)" : "");
  }
  if (auto vertices = dyn_cast<graph::VerticesOp>(loop);
      vertices && !vertices.getInits().empty())
    os << "; reduces into " << vertices.getInits().size()
       << (vertices.getInits().size() == 1 ? " local" : " locals")
       << " by blocks of " << kReduceBlock
       << " vertices, their partials combined in block order";
  if (auto order = s.getOrder()) {
    if (*order == graph::VertexOrder::Natural)
      os << "; order: natural";
    else if (*order == graph::VertexOrder::Degree)
      os << "; order: degree: comparisons of vertices and "
            "common_neighbors_below use the graph relabelled by degree "
            "(highest first), built at run time";
    else
      os << "; order: auto: comparisons of vertices and "
            "common_neighbors_below use the graph relabelled by degree when "
            "the runtime finds the degrees skewed (the run's report says "
            "which)";
    if (*order != graph::VertexOrder::Natural && destinationOnlyOrdered(loop))
      os << "; the destination is only compared and counted, so in that "
            "order the pass runs over the relabelled graph, destinations as "
            "positions (no lookup per edge)";
    if (*order != graph::VertexOrder::Natural)
      os << "; two versions of the pass, in the degree order and in the "
            "graph's order, the launch runs the one the order asks for (no "
            "test per vertex)";
  }
  // What inlineRegion does: the version in the degree order over the CSR
  // (its destination used otherwise too) keeps the runtime's merge, and
  // its out-edges run to their end.
  const bool ordered =
      s.getOrder() && *s.getOrder() != graph::VertexOrder::Natural;
  const bool csrInDegreeOrder = ordered && !destinationOnlyOrdered(loop);
  const char *inGraphOrder = csrInDegreeOrder ? " in the graph's order" : "";
  if (state.inlineMerges && llvm::is_contained(variants, Variant::Push)) {
    bool counts = false;
    loop->walk([&](graph::CommonNeighborsOp) { counts = true; });
    if (counts)
      os << "; common_neighbors merged in the loop" << inGraphOrder
         << " when both lists are shorter than " << kInlineMergeBelow
         << " (else the runtime's merge)";
  }
  if (llvm::is_contained(variants, Variant::Push) &&
      pushEndsEarly(loop, /*ordered=*/false))
    os << "; `where` holds for a prefix of a source's sorted out-edges"
       << inGraphOrder << ": they end at its first false";
  if (!tiling.remark.empty())
    os << "; " << tiling.remark;
  if (s.getFormat() && *s.getFormat() == graph::EdgeFormat::Coo &&
      variants.front() != Variant::Coo)
    os << "; format coo not used (the CSR is): " << cooRefusal(loop, s);
  return text;
}
