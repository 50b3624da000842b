//===- FuzzSnapEdgeList.cpp - Fuzz target: SNAP edge lists ----------------===//
//
// sluice_graph_load on a SNAP edge list (plain or gzip, detected from the
// content). The first byte picks the load flags (undirected, drop self
// loops, deduplicate, compact ids, edge-label column), the second the
// weights mode and the duplicate / kept vertex options
// (applyGraphSemantics); the rest is the file, handed over in a memfd. A graph
// that loads is walked by checkGraph. Without compact ids, inputs with ids
// above 2^16 are skipped (declaresManyVertices).
//
//===----------------------------------------------------------------------===//
#include "compiler/tools/sluice-fuzz-readers/GraphFuzzSupport.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static sluice::fuzz::MemFile file("fuzz-snap");
  if (size < 2)
    return 0;
  sluice_graph_load_options_t options;
  sluice_graph_load_options_init(&options);
  options.format = SLUICE_GRAPH_FORMAT_SNAP;
  options.flags = (data[0] & 0x1f) | SLUICE_GRAPH_LOAD_QUIET;
  options.weights = static_cast<sluice_weights_t>(data[1] % 3);
  sluice::fuzz::applyGraphSemantics(data[1], options);
  if (!(options.flags & SLUICE_GRAPH_LOAD_COMPACT_IDS) &&
      sluice::fuzz::declaresManyVertices(data + 2, size - 2))
    return 0;
  const char *path = file.assign(data + 2, size - 2);
  sluice::fuzz::loadAndCheck(path, options);
  return 0;
}
