//===- FuzzNumpyGraph.cpp - Fuzz target: .npy edge arrays, .npz archives --===//
//
// sluice_graph_load on a NumPy edge file (runtime/src/NpyGraph.h), mapped
// from a memfd. Byte 0: bit 0 reads the file as .npz (else .npy), bit 1 as
// auto, bit 2 asks for the weight column, bits 3-5 load undirected,
// deduplicated, without self loops. Ids are always compacted (without,
// one id of 4e9 rightly asks for 32 GiB of offsets). The rest is the file.
// A graph that loads is walked by checkGraph.
//
//===----------------------------------------------------------------------===//
#include "compiler/tools/sluice-fuzz-readers/GraphFuzzSupport.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static sluice::fuzz::MemFile file("fuzz-numpy");
  if (size < 1)
    return 0;
  sluice_graph_load_options_t options;
  sluice_graph_load_options_init(&options);
  options.format = (data[0] & 2)   ? SLUICE_GRAPH_FORMAT_AUTO
                   : (data[0] & 1) ? SLUICE_GRAPH_FORMAT_NPZ
                                   : SLUICE_GRAPH_FORMAT_NPY;
  options.weights = (data[0] & 4) ? SLUICE_WEIGHTS_COLUMN : SLUICE_WEIGHTS_NONE;
  options.flags = SLUICE_GRAPH_LOAD_QUIET | SLUICE_GRAPH_LOAD_COMPACT_IDS;
  if (data[0] & 8)
    options.flags |= SLUICE_GRAPH_LOAD_UNDIRECTED;
  if (data[0] & 16)
    options.flags |= SLUICE_GRAPH_LOAD_DEDUPLICATE;
  if (data[0] & 32)
    options.flags |= SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS;
  const char *path = file.assign(data + 1, size - 1);
  sluice::fuzz::loadAndCheck(path, options);
  return 0;
}
