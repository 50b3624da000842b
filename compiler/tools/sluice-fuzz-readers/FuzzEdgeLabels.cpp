//===- FuzzEdgeLabels.cpp - Fuzz target: edge label files -----------------===//
//
// The reader of "u v label" files (runtime/src/EdgeLabels.cpp), through
// sluice_graph_load with edge_labels_path: the labels file is the input
// after its first byte, in a memfd; the graph is a fixed small one. The
// first byte: bit 0 compact ids, bit 1 the Matrix Market (1-based) graph,
// bits 2-4 undirected, deduplicate, drop self loops.
//
//===----------------------------------------------------------------------===//
#include "compiler/tools/sluice-fuzz-readers/GraphFuzzSupport.h"

#include <cstddef>
#include <cstdint>

namespace {
/// The graph the labels are read for: ids 0-7 (1-8 in the Matrix Market
/// version) with 4 and 6 (5 and 7) unused, a self loop and a parallel edge.
constexpr char kSnapGraph[] = "0 1\n1 2\n2 0\n2 2\n5 3\n5 3\n7 0\n";
constexpr char kMtxGraph[] =
    "%%MatrixMarket matrix coordinate pattern general\n"
    "8 8 7\n1 2\n2 3\n3 1\n3 3\n6 4\n6 4\n8 1\n";
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static sluice::fuzz::MemFile snap("fuzz-graph-snap"), mtx("fuzz-graph-mtx"),
      labels("fuzz-labels");
  static const char *snapPath = snap.assign(kSnapGraph, sizeof(kSnapGraph) - 1);
  static const char *mtxPath = mtx.assign(kMtxGraph, sizeof(kMtxGraph) - 1);
  if (size < 1)
    return 0;
  sluice_graph_load_options_t options;
  sluice_graph_load_options_init(&options);
  options.flags = SLUICE_GRAPH_LOAD_QUIET;
  if (data[0] & 1)
    options.flags |= SLUICE_GRAPH_LOAD_COMPACT_IDS;
  if (data[0] & 4)
    options.flags |= SLUICE_GRAPH_LOAD_UNDIRECTED;
  if (data[0] & 8)
    options.flags |= SLUICE_GRAPH_LOAD_DEDUPLICATE;
  if (data[0] & 16)
    options.flags |= SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS;
  options.edge_labels_path = labels.assign(data + 1, size - 1);
  sluice_graph_t *graph = nullptr;
  sluice_error_t error;
  if (sluice_graph_load((data[0] & 2) ? mtxPath : snapPath, &options, &graph,
                        &error) == SLUICE_STATUS_OK) {
    sluice::fuzz::checkGraph(graph);
    sluice_graph_release(graph);
  }
  return 0;
}
