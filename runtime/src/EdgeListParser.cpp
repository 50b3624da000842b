//===- EdgeListParser.cpp - SNAP edge lists and Matrix Market bodies ------===//
//
// edge-list ::= { blank | comment | entry }
// entry     ::= source target [weight] [edge-label]
//
// CSV files separate the fields by commas. The first entry line is a
// header when neither of its first two fields is a number. SNAP and CSV
// files are 0-based; a Matrix Market body (the entry lines of a .mtx
// file without banner and size line) is 1-based. Without compact ids the
// graph has (largest id + 1) vertices, counting ids of dropped self loops
// and the ids to keep; with them, the ids of the kept edges and the ids to
// keep.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/ChunkedEdgeList.h"
#include "runtime/src/Error.h"
#include "runtime/src/LineReader.h"
#include "runtime/src/Progress.h"
#include "runtime/src/TextFormats.h"

#include <algorithm>

using namespace sluice::rt;

namespace {

/// Lines read before the edge arrays are reserved.
constexpr uint64_t kSampleLines = 4096;

/// The edges of a file of `fileBytes` whose first kSampleLines lines took
/// `sampleBytes`, with 5% to spare (lines of other lengths later, comments).
uint64_t expectedEdges(uint64_t fileBytes, uint64_t sampleBytes) {
  double perLine = double(sampleBytes) / double(kSampleLines);
  return uint64_t(1.05 * double(fileBytes) / std::max(perLine, 1.0));
}

/// The serial parse: every line of `reader` into `collector`.
sluice_status_t parseSerially(LineReader &reader, const EntryLayout &layout,
                              Progress &progress, EdgeCollector &collector,
                              sluice_error_t *error) {
  std::string_view line;
  sluice_status_t status = SLUICE_STATUS_OK;
  bool first = true; // the first entry line may be a header
  // The text of the first kSampleLines lines: of a file read as it is, what
  // the edges to come will need (the arrays are reserved once instead of
  // doubling, which copied them and touched twice the pages).
  uint64_t sampleBytes = 0;
  while (reader.next(line, status, error)) {
    if ((reader.lineNumber() & 0xfff) == 0)
      progress.update("reading", reader.bytesRead(), reader.fileBytes(),
                      "bytes");
    if (reader.lineNumber() <= kSampleLines) {
      sampleBytes += line.size() + 1;
      if (reader.lineNumber() == kSampleLines && !reader.compressed())
        collector.reserve(expectedEdges(reader.fileBytes(), sampleBytes));
    }
    if (isBlankOrComment(line))
      continue;
    if (first) {
      first = false;
      if (isHeaderLine(line, layout.csv))
        continue;
    }
    Entry entry;
    status = parseEntry(line, layout, reader.path(), reader.lineNumber(), entry,
                        error);
    if (status != SLUICE_STATUS_OK)
      return status;
    if (!collector.add(entry.ids[0], entry.ids[1], entry.weight, entry.label))
      return failTooManyIds(error, reader.path(), reader.lineNumber());
  }
  return status;
}

} // namespace

sluice_status_t sluice::rt::parseEdgeList(LineReader &reader,
                                          const TextLoadOptions &options,
                                          Progress &progress,
                                          EdgeStaging &staging,
                                          sluice_error_t *error) {
  EntryLayout layout;
  layout.base = options.format == SLUICE_GRAPH_FORMAT_MTX_BODY ? 1 : 0;
  layout.valueColumn = options.weights == SLUICE_WEIGHTS_COLUMN;
  layout.valueIsWeight = layout.valueColumn;
  layout.labelColumn = options.edgeLabels;
  layout.compactIds = options.compactIds;
  layout.csv = options.format == SLUICE_GRAPH_FORMAT_CSV;
  if (!layout.valueColumn)
    layout.extraHint = "; set weights to 'column' to read edge weights";

  EdgeCollector collector(options.compactIds, options.dropSelfLoops,
                          options.storesWeights(), options.edgeLabels);
  uint32_t threads = options.threads;
  sluice_status_t status =
      chunkedParseApplies(reader, threads)
          ? parseEdgeListChunked(reader, layout, threads, progress, collector,
                                 error)
          : parseSerially(reader, layout, progress, collector, error);
  if (status != SLUICE_STATUS_OK)
    return status;
  if (!keepVertexIds(options, layout.base, 0, collector))
    return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {reader.path()},
                "more than " + std::to_string(kMaxVertices) +
                    " distinct vertex ids (with the ids to keep)");
  staging = collector.finish(0, layout.base);
  return SLUICE_STATUS_OK;
}
