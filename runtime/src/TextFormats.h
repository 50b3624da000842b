//===- TextFormats.h - Edge lists, Matrix Market, label files --*- C++ -*-===//
//
// The text parsers share one line grammar:
//
//   line    ::= blank | comment | entry
//   comment ::= ('#' | '%') anything          (after optional blanks)
//   entry   ::= id id [value] [label]         (fields separated by spaces/tabs)
//
// where `value` is present when the format has one (a weight column, or a
// real/integer Matrix Market field) and `label` when edge labels are read.
// Every rejected line produces a located error naming the field.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_TEXTFORMATS_H
#define SLUICE_RUNTIME_SRC_TEXTFORMATS_H

#include "runtime/src/GraphBuilder.h"
#include "sluice/graph.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace sluice::rt {

class LineReader;
class Progress;

/// One whitespace-separated field and its 1-based column.
struct Field {
  std::string_view text;
  uint64_t column = 0;
};

/// Splits `line` into at most `max` fields; returns how many it found, or
/// max + 1 if there are more.
size_t splitFields(std::string_view line, Field *fields, size_t max);
/// The same for comma-separated fields: blanks around each field are not
/// part of it, and an empty field counts (its text is empty).
size_t splitCsvFields(std::string_view line, Field *fields, size_t max);

/// True for a blank line or one whose first non-blank is '#' or '%'.
bool isBlankOrComment(std::string_view line);

/// A header line ("src dst", "source,target,weight"): neither of the first
/// two fields is a number (a data line with one bad id stays an error).
bool isHeaderLine(std::string_view line, bool csv);

enum class NumberParse { Ok, NotANumber, Negative, TooLarge, NotFinite };

/// Decimal digits only (no sign, no exponent).
NumberParse parseUnsigned(std::string_view text, uint64_t &value);
/// Optional '-' then digits.
NumberParse parseSigned(std::string_view text, int64_t &value);
/// A finite float32 (decimal, exponent, optional sign).
NumberParse parseFloat(std::string_view text, float &value);

/// A label column of a vertex- or edge-label file: a non-negative integer
/// that fits in 32 bits. On failure returns false with the status and the
/// message ("expected a label, got 'x'", "negative label '-1'", "label 'N'
/// does not fit in 32 bits") to report at the field's column.
bool parseLabelField(std::string_view text, int32_t &label,
                     sluice_status_t &status, std::string &message);

/// A vertex-id column of a label file: an unsigned 64-bit integer. On
/// failure returns false with the status and the message ("expected a
/// vertex id, got 'x'", "negative vertex id '-1'", "vertex id 'N' does not
/// fit in 64 bits").
bool parseVertexIdField(std::string_view text, uint64_t &id,
                        sluice_status_t &status, std::string &message);

/// How the fields of an entry line are named and interpreted.
struct EntryLayout {
  const char *idName[2] = {"source vertex id", "target vertex id"};
  uint32_t base = 0;             // 0-based or 1-based ids
  uint64_t declared[2] = {0, 0}; // Matrix Market rows/columns; 0: no limit
  const char *declaredName[2] = {"rows", "columns"};
  bool valueColumn = false; // a value follows the ids
  const char *valueName = "edge weight";
  bool valueIsInteger = false; // Matrix Market 'integer' field
  bool valueIsWeight = false;  // the value becomes the edge weight
  bool labelColumn = false;    // an int32 edge label follows
  bool compactIds = false;     // ids stay original (no 32-bit limit)
  const char *extraHint = "";  // appended to "unexpected column" errors
  bool csv = false;            // fields separated by commas
};

/// A parsed entry: ids are 0-based vertex ids (< kMaxVertices) without
/// compaction, original ids (as written) with it.
struct Entry {
  uint64_t ids[2] = {0, 0};
  float weight = 1.0f;
  int32_t label = 0;
};

/// Parses one entry line (not blank or comment).
sluice_status_t parseEntry(std::string_view line, const EntryLayout &layout,
                           const std::string &path, uint64_t lineNumber,
                           Entry &entry, sluice_error_t *error);

/// "more than kMaxVertices distinct vertex ids" at `lineNumber` of `path`
/// (EdgeCollector::add returned false).
sluice_status_t failTooManyIds(sluice_error_t *error, const std::string &path,
                               uint64_t lineNumber);

/// What a text load asks for.
struct TextLoadOptions {
  sluice_graph_format_t format = SLUICE_GRAPH_FORMAT_SNAP;
  sluice_weights_t weights = SLUICE_WEIGHTS_NONE;
  bool dropSelfLoops = false;
  bool compactIds = false;
  bool edgeLabels = false;
  /// Summed duplicates: a weight array even without a weight column.
  bool sumDuplicates = false;
  /// Matrix Market with compact ids: keep the vertices of the size line.
  bool keepDeclared = false;
  /// Ids as in the file that are vertices even without an edge; ids the
  /// file cannot hold are ignored (sluice_graph_load_options_t).
  const uint64_t *keepIds = nullptr;
  uint64_t numKeepIds = 0;
  /// Threads of a chunked parse (ChunkedEdgeList.h); 0: every core.
  uint32_t threads = 0;

  /// Whether the collector stores weights.
  bool storesWeights() const {
    return weights != SLUICE_WEIGHTS_NONE || sumDuplicates;
  }
};

/// Adds `options`' keep ids that lie in [base, base + limit) (limit 0: no
/// upper bound) to `collector`: as written with compact ids, else minus
/// `base` (and below kMaxVertices). Returns false when compaction runs out
/// of 32-bit ids.
bool keepVertexIds(const TextLoadOptions &options, uint32_t base,
                   uint64_t limit, EdgeCollector &collector);

/// Parses a SNAP edge list (base 0) or a Matrix Market body (base 1).
sluice_status_t parseEdgeList(LineReader &reader,
                              const TextLoadOptions &options,
                              Progress &progress, EdgeStaging &staging,
                              sluice_error_t *error);

/// Parses a Matrix Market coordinate file. `symmetric` is set for the
/// 'symmetric' symmetry (the caller builds an undirected graph).
sluice_status_t parseMatrixMarket(LineReader &reader,
                                  const TextLoadOptions &options,
                                  Progress &progress, EdgeStaging &staging,
                                  bool &symmetric, sluice_error_t *error);

/// Reads "vertex label" lines from `path` into graph's vertex labels. Ids
/// are as in the graph file (graph.idBase; original ids when compacted).
sluice_status_t readVertexLabels(const std::string &path, Progress &progress,
                                 sluice_graph_t &graph, sluice_error_t *error);

/// Reads "u v label" lines from `path` into graph's edge labels
/// (EdgeLabels.cpp). `selfLoopsDropped`: lines "u u" name edges the load
/// dropped and are skipped.
sluice_status_t readEdgeLabels(const std::string &path, Progress &progress,
                               bool selfLoopsDropped, sluice_graph_t &graph,
                               sluice_error_t *error);

} // namespace sluice::rt

#endif // SLUICE_RUNTIME_SRC_TEXTFORMATS_H
