//===- DeclaredGraph.h - How a graph declaration is loaded ------*- C++ -*-===//
//
// The runtime's load options for a `graph g = load(...)` declaration, the
// same for walk jobs (WalkRun.cpp) and algorithm jobs (Graph/AlgoRun.cpp):
// format, direction, duplicates and self loops (GraphLoadOptions.h),
// weights, and the label files.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TARGET_WALK_DECLAREDGRAPH_H
#define SLUICE_COMPILER_TARGET_WALK_DECLAREDGRAPH_H

#include "compiler/Target/Walk/GraphCache.h"
#include "compiler/Target/Walk/GraphLoadOptions.h"
#include "dialects/Walk/IR/WalkOps.h"

#include "llvm/Support/FileSystem.h"

#include <string>

namespace sluice::target {

/// The load options of `g`; they point into this object (the label paths),
/// so it is neither copied nor moved.
struct DeclaredGraphLoad {
  DeclaredGraphLoad(walk::GraphOp g, bool quiet)
      : labels(g.getLabels() ? g.getLabels()->str() : ""),
        edgeLabels(g.getEdgeLabels() ? g.getEdgeLabels()->str() : "") {
    sluice_graph_load_options_init(&options);
    options.format = runtimeGraphFormat(g.getFormat());
    options.flags = runtimeLoadFlags(g.getFormat(), g.getUndirected(),
                                     g.getDuplicates(), g.getSelfLoops());
    if (quiet)
      options.flags |= SLUICE_GRAPH_LOAD_QUIET;
    if (g.getWeighted())
      options.weights = SLUICE_WEIGHTS_COLUMN;
    options.vertex_labels_path = labels.empty() ? nullptr : labels.c_str();
    // `edge_labels: "file"`: "u v label" lines (docs/language.md).
    options.edge_labels_path =
        edgeLabels.empty() ? nullptr : edgeLabels.c_str();
  }
  DeclaredGraphLoad(const DeclaredGraphLoad &) = delete;
  DeclaredGraphLoad &operator=(const DeclaredGraphLoad &) = delete;

  const std::string labels, edgeLabels;
  sluice_graph_load_options_t options;
};

/// Fails, at `g`, when the file of graph `g` does not exist (checked before
/// slower work such as compiling, so that a wrong path is reported first).
inline mlir::LogicalResult checkDeclaredGraphFile(walk::GraphOp g) {
  if (llvm::sys::fs::exists(g.getPath()))
    return mlir::success();
  return g.emitError("cannot open the file '")
         << g.getPath() << "' of graph '" << g.getSymName()
         << "': No such file or directory";
}

/// Loads graph `g` as its declaration says, through the binary CSR cache
/// when `useCache` (and the file is not binary already); `cacheNote` says
/// what the cache did. Errors are emitted at `g`. The caller releases the
/// graph. `threads` parse a large text file (0: every core; the job's
/// thread count where the caller knows it).
inline mlir::FailureOr<sluice_graph_t *>
loadDeclaredGraph(walk::GraphOp g, bool quiet, bool useCache,
                  std::string &cacheNote, uint32_t threads = 0) {
  if (mlir::failed(checkDeclaredGraphFile(g)))
    return mlir::failure();
  DeclaredGraphLoad declared(g, quiet);
  declared.options.threads = threads;
  std::string loadError;
  sluice_graph_t *graph = loadThroughCache(
      g.getPath(), declared.options,
      useCache && g.getFormat() != walk::GraphFormat::Csr, cacheNote,
      loadError);
  if (!graph)
    return g.emitError("cannot load graph '")
           << g.getSymName() << "': " << loadError;
  return graph;
}

/// Fails, at `g`, when a graph handed to a run in place of loading `g`
/// (Python's in-memory graphs) lacks what the declaration promises the
/// code: weights (`weighted: true`) or edge labels (`edge_labels:`).
/// Vertex labels are optional in any graph (-1 when absent).
inline mlir::LogicalResult checkGivenGraph(walk::GraphOp g,
                                           const sluice_graph_t *graph) {
  if (g.getWeighted() && !sluice_graph_weights(graph))
    return g.emitError("graph '")
           << g.getSymName()
           << "' is declared weighted, and the graph given to the run has no "
              "weights";
  if (g.getEdgeLabels() && !sluice_graph_edge_labels(graph))
    return g.emitError("graph '")
           << g.getSymName()
           << "' is declared with edge_labels, and the graph given to the "
              "run has none";
  return mlir::success();
}

} // namespace sluice::target

#endif // SLUICE_COMPILER_TARGET_WALK_DECLAREDGRAPH_H
