//===- FuzzVertexLabels.cpp - Fuzz target: vertex label files -------------===//
//
// The reader of "vertex label" files (runtime/src/VertexLabels.cpp), through
// sluice_graph_load with vertex_labels_path: the labels file is the input
// after its first byte, in a memfd; the graph is a fixed small one. The
// first byte: bit 0 compact ids, bit 1 the Matrix Market (1-based) graph,
// bits 2-4 undirected, deduplicate, drop self loops.
//
//===----------------------------------------------------------------------===//
#include "compiler/tools/sluice-fuzz-readers/GraphFuzzSupport.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return sluice::fuzz::fuzzLabelFile(
      data, size, &sluice_graph_load_options_t::vertex_labels_path);
}
