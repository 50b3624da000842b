//===- FuzzMatrixMarket.cpp - Fuzz target: Matrix Market files ------------===//
//
// sluice_graph_load on a Matrix Market coordinate file (plain or gzip). The
// first byte picks the load flags and whether the format is detected (auto)
// or given (mtx), the second the weights mode and the duplicate / kept
// vertex options (applyGraphSemantics); the rest is the file, handed over in
// a memfd. A graph that loads is walked by checkGraph.
//
// Without compact ids (or with them and KEEP_DECLARED_VERTICES), inputs that
// declare more than 2^16 rows or use ids above 2^16 are skipped
// (declaresManyVertices): the loader must build that many vertices.
//
//===----------------------------------------------------------------------===//
#include "compiler/tools/sluice-fuzz-readers/GraphFuzzSupport.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static sluice::fuzz::MemFile file("fuzz-mtx");
  if (size < 2)
    return 0;
  sluice_graph_load_options_t options;
  sluice_graph_load_options_init(&options);
  options.format =
      (data[0] & 0x80) ? SLUICE_GRAPH_FORMAT_AUTO : SLUICE_GRAPH_FORMAT_MTX;
  options.flags = (data[0] & 0x1f) | SLUICE_GRAPH_LOAD_QUIET;
  options.weights = static_cast<sluice_weights_t>(data[1] % 3);
  sluice::fuzz::applyGraphSemantics(data[1], options);
  // Declared vertices are all built without compact ids, or with them and
  // KEEP_DECLARED_VERTICES.
  if ((!(options.flags & SLUICE_GRAPH_LOAD_COMPACT_IDS) ||
       (options.flags & SLUICE_GRAPH_LOAD_KEEP_DECLARED_VERTICES)) &&
      sluice::fuzz::declaresManyVertices(data + 2, size - 2))
    return 0;
  const char *path = file.assign(data + 2, size - 2);
  sluice::fuzz::loadAndCheck(path, options);
  return 0;
}
