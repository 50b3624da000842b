//===- ChunkedEdgeList.h - Edge lists parsed in chunks on threads -*- C++
//-*-===//
//
// A large plain edge list is read in passes of threads x pieceBytes, cut
// at line starts into four pieces a thread. The threads of an
// AlgoThreadPool parse the pieces into their own arrays (ids as written,
// weights, labels, the piece's line count, its first bad line); while they
// parse a pass, one of them hands the entries of the pass before to the
// EdgeCollector, piece after piece in file order, so compact ids, edge
// order and weights are those of the serial parse. A bad line is parsed
// again at its file line (the lines of the pieces before it counted), so
// the error is the serial parse's, at the same line and column. Gzip'd
// files, pipes and small files are parsed serially.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_CHUNKEDEDGELIST_H
#define SLUICE_RUNTIME_SRC_CHUNKEDEDGELIST_H

#include "sluice/runtime.h"

#include <cstddef>
#include <cstdint>

namespace sluice::rt {

class EdgeCollector;
class LineReader;
class Progress;
struct EntryLayout;

/// How a chunked parse cuts a file.
struct ChunkedParseTuning {
  /// Text per thread and pass (1 MiB: bench/RESULTS.md, "Loading text":
  /// larger passes touch more fresh pages than they save in passes).
  size_t pieceBytes = size_t(1) << 20;
  /// Files below this are parsed serially (4 MiB: ditto).
  uint64_t minFileBytes = uint64_t(4) << 20;
  /// Every plain regular file in chunks, whatever its size and the thread
  /// count (1 included).
  bool force = false;
  /// Counts the chunked parses (tests check that theirs ran).
  uint64_t *parses = nullptr;
};

/// Tests only: replaces the tuning (nullptr: back to the defaults).
void setChunkedParseTuningForTesting(const ChunkedParseTuning *tuning);

/// Whether `reader`'s file (opened, nothing read) is parsed in chunks;
/// `threads` (0: every core) becomes the thread count to use.
bool chunkedParseApplies(const LineReader &reader, uint32_t &threads);

/// Parses every line of `reader`'s file into `collector` as the serial
/// loop of parseEdgeList does (the first entry line may be a header).
sluice_status_t parseEdgeListChunked(LineReader &reader,
                                     const EntryLayout &layout,
                                     uint32_t threads, Progress &progress,
                                     EdgeCollector &collector,
                                     sluice_error_t *error);

} // namespace sluice::rt

#endif // SLUICE_RUNTIME_SRC_CHUNKEDEDGELIST_H
