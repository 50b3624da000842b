//===- NpyGraph.h - Edge arrays from NumPy .npy and .npz files --*- C++ -*-===//
//
// Two array formats for graphs (docs/runtime.md, "NumPy inputs"):
//
//   npy  one .npy array of shape (E, 2), dtype '<i4' or '<i8', C or Fortran
//        order: row i is the edge src -> dst. No weights (use .npz).
//   npz  a NumPy archive (numpy.savez or savez_compressed) holding the 1-D
//        arrays `src` and `dst` ('<i4' or '<i8', E entries each) and
//        optionally `weight` ('<f4' or '<f8', E entries, finite, >= 0).
//        Entries stored or deflated (zlib); other zip methods, encryption
//        and archives split over several disks are refused.
//
// Ids are 0-based. Every size is checked against the file before anything
// is allocated from it (an inflated entry against the size its header and
// the deflate ratio allow); every id and weight is checked as it is read,
// and errors name the file, the array and the edge.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_NPYGRAPH_H
#define SLUICE_RUNTIME_SRC_NPYGRAPH_H

#include "runtime/src/GraphImpl.h"
#include "runtime/src/TextFormats.h"

#include <string>

namespace sluice::rt {

/// Reads a .npy edge array from `bytes` (the whole file, `size` bytes).
sluice_status_t parseNpyEdges(const std::string &path, const char *bytes,
                              size_t size, const TextLoadOptions &options,
                              Progress &progress, EdgeStaging &staging,
                              sluice_error_t *error);

/// Reads a .npz archive of edge arrays from `bytes` (the whole file).
sluice_status_t parseNpzEdges(const std::string &path, const char *bytes,
                              size_t size, const TextLoadOptions &options,
                              Progress &progress, EdgeStaging &staging,
                              sluice_error_t *error);

/// Maps `path` read-only and runs parseNpyEdges or parseNpzEdges (`npz`);
/// `input` receives the file's identity.
sluice_status_t loadArrayEdges(const std::string &path, bool npz,
                               const TextLoadOptions &options,
                               Progress &progress, EdgeStaging &staging,
                               InputFile &input, sluice_error_t *error);

/// True when the file starts with the .npy magic (`npz` false) or a zip
/// local file header "PK\3\4" (`npz` true).
bool hasArrayMagic(const std::string &path, bool npz);

} // namespace sluice::rt

#endif // SLUICE_RUNTIME_SRC_NPYGRAPH_H
