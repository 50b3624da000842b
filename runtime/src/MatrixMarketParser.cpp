//===- MatrixMarketParser.cpp - Matrix Market coordinate files ------------===//
//
// mtx       ::= banner { comment } size-line { comment | entry }
// banner    ::= '%%MatrixMarket' 'matrix' 'coordinate' field symmetry
// field     ::= 'real' | 'integer' | 'pattern'     (no value for pattern)
// symmetry  ::= 'general' | 'symmetric'            (symmetric: undirected)
// size-line ::= rows columns entries               (rows == columns)
// entry     ::= row column [value] [edge-label]    (1-based, <= rows/columns)
//
// Banner words are case-insensitive. Exactly `entries` entry lines must
// follow. The size line declares vertices 1 .. rows: all of them are
// vertices without compact ids, or with them and keepDeclared. 'complex',
// 'array', 'hermitian' and 'skew-symmetric' matrices are UNSUPPORTED (they do
// not describe a weighted graph).
//
//===----------------------------------------------------------------------===//
#include "runtime/src/Error.h"
#include "runtime/src/LineReader.h"
#include "runtime/src/Progress.h"
#include "runtime/src/TextFormats.h"

#include <cctype>

using namespace sluice::rt;

namespace {

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

/// Reads lines until one that is neither blank nor a comment.
bool nextContentLine(LineReader &reader, std::string_view &line,
                     sluice_status_t &status, sluice_error_t *error) {
  while (reader.next(line, status, error))
    if (!isBlankOrComment(line))
      return true;
  return false;
}

} // namespace

sluice_status_t sluice::rt::parseMatrixMarket(
    LineReader &reader, const TextLoadOptions &options, Progress &progress,
    EdgeStaging &staging, bool &symmetric, sluice_error_t *error) {
  const std::string &path = reader.path();
  std::string_view line;
  sluice_status_t status = SLUICE_STATUS_OK;
  auto failAt = [&](sluice_status_t code, uint64_t column,
                    const std::string &message) {
    return fail(error, code, {path, reader.lineNumber(), column}, message);
  };

  // Banner.
  if (!reader.next(line, status, error)) {
    if (status != SLUICE_STATUS_OK)
      return status;
    return fail(error, SLUICE_STATUS_PARSE_ERROR, {path, 1, 1},
                "empty file: expected a '%%MatrixMarket' banner");
  }
  Field banner[6];
  size_t words = splitFields(line, banner, 6);
  if (words == 0 || !equalsIgnoreCase(banner[0].text, "%%MatrixMarket"))
    return failAt(SLUICE_STATUS_PARSE_ERROR, 1,
                  "expected a '%%MatrixMarket' banner, got " + quote(line));
  if (words < 5)
    return failAt(SLUICE_STATUS_PARSE_ERROR, line.size() + 1,
                  "incomplete banner: expected '%%MatrixMarket matrix "
                  "coordinate <field> <symmetry>'");
  if (words > 5)
    return failAt(SLUICE_STATUS_PARSE_ERROR, banner[5].column,
                  "unexpected " + quote(banner[5].text) + " after the banner");
  if (!equalsIgnoreCase(banner[1].text, "matrix"))
    return failAt(SLUICE_STATUS_UNSUPPORTED, banner[1].column,
                  "unsupported object " + quote(banner[1].text) +
                      " (expected 'matrix')");
  if (!equalsIgnoreCase(banner[2].text, "coordinate"))
    return failAt(SLUICE_STATUS_UNSUPPORTED, banner[2].column,
                  "unsupported format " + quote(banner[2].text) +
                      " (expected 'coordinate')");
  std::string_view field = banner[3].text;
  bool pattern = equalsIgnoreCase(field, "pattern");
  bool integer = equalsIgnoreCase(field, "integer");
  if (!pattern && !integer && !equalsIgnoreCase(field, "real"))
    return failAt(SLUICE_STATUS_UNSUPPORTED, banner[3].column,
                  "unsupported field " + quote(field) +
                      " (expected real, integer or pattern)");
  std::string_view symmetry = banner[4].text;
  symmetric = equalsIgnoreCase(symmetry, "symmetric");
  if (!symmetric && !equalsIgnoreCase(symmetry, "general"))
    return failAt(SLUICE_STATUS_UNSUPPORTED, banner[4].column,
                  "unsupported symmetry " + quote(symmetry) +
                      " (expected general or symmetric)");
  if (pattern && options.weights == SLUICE_WEIGHTS_COLUMN)
    return failAt(SLUICE_STATUS_INVALID_ARGUMENT, banner[3].column,
                  "weights come from a column but the matrix field is "
                  "'pattern' (no values)");

  // Size line.
  if (!nextContentLine(reader, line, status, error)) {
    if (status != SLUICE_STATUS_OK)
      return status;
    return fail(error, SLUICE_STATUS_PARSE_ERROR,
                {path, reader.lineNumber() + 1, 1},
                "missing the size line 'rows columns entries'");
  }
  static const char *sizeNames[3] = {
      "the number of rows", "the number of columns", "the number of entries"};
  Field sizes[4];
  size_t count = splitFields(line, sizes, 4);
  uint64_t size[3] = {0, 0, 0};
  for (size_t k = 0; k < 3; ++k) {
    if (count <= k)
      return failAt(SLUICE_STATUS_PARSE_ERROR, line.size() + 1,
                    std::string("missing ") + sizeNames[k] +
                        " in the size line 'rows columns entries'");
    NumberParse r = parseUnsigned(sizes[k].text, size[k]);
    if (r == NumberParse::TooLarge)
      return failAt(SLUICE_STATUS_OUT_OF_RANGE, sizes[k].column,
                    std::string(sizeNames[k]) + " " + quote(sizes[k].text) +
                        " does not fit in 64 bits");
    if (r != NumberParse::Ok)
      return failAt(SLUICE_STATUS_PARSE_ERROR, sizes[k].column,
                    std::string("expected ") + sizeNames[k] + ", got " +
                        quote(sizes[k].text));
  }
  if (count > 3)
    return failAt(SLUICE_STATUS_PARSE_ERROR, sizes[3].column,
                  "unexpected " + quote(sizes[3].text) +
                      " after the size line 'rows columns entries'");
  const uint64_t sizeLine = reader.lineNumber();
  if (size[0] != size[1])
    return failAt(SLUICE_STATUS_UNSUPPORTED, 1,
                  "the matrix is " + std::to_string(size[0]) + " x " +
                      std::to_string(size[1]) +
                      "; a graph needs a square matrix");
  if (!options.compactIds && size[0] > kMaxVertices)
    return failAt(SLUICE_STATUS_OUT_OF_RANGE, 1,
                  "the matrix has " + std::to_string(size[0]) +
                      " rows, more than the " + std::to_string(kMaxVertices) +
                      " vertices supported (compact ids renumber the ids "
                      "that occur)");

  // Entries. Declared vertices are kept by not compacting: the ids are
  // 1 .. rows already, and all of them are vertices.
  TextLoadOptions o = options;
  if (o.keepDeclared && size[0] <= kMaxVertices)
    o.compactIds = false;
  EntryLayout layout;
  layout.idName[0] = "row index";
  layout.idName[1] = "column index";
  layout.base = 1;
  layout.declared[0] = size[0];
  layout.declared[1] = size[1];
  layout.valueColumn = !pattern;
  layout.valueName = "value";
  layout.valueIsInteger = integer;
  layout.valueIsWeight = options.weights == SLUICE_WEIGHTS_COLUMN;
  layout.labelColumn = options.edgeLabels;
  layout.compactIds = o.compactIds;

  EdgeCollector collector(o.compactIds, o.dropSelfLoops, o.storesWeights(),
                          o.edgeLabels);
  uint64_t entries = 0;
  while (nextContentLine(reader, line, status, error)) {
    if ((reader.lineNumber() & 0xfff) == 0)
      progress.update("reading", reader.bytesRead(), reader.fileBytes(),
                      "bytes");
    if (entries == size[2])
      return failAt(SLUICE_STATUS_PARSE_ERROR, 1,
                    "more entries than the " + std::to_string(size[2]) +
                        " declared in the size line (line " +
                        std::to_string(sizeLine) + ")");
    Entry entry;
    status = parseEntry(line, layout, path, reader.lineNumber(), entry, error);
    if (status != SLUICE_STATUS_OK)
      return status;
    if (!collector.add(entry.ids[0], entry.ids[1], entry.weight, entry.label))
      return failTooManyIds(error, path, reader.lineNumber());
    ++entries;
  }
  if (status != SLUICE_STATUS_OK)
    return status;
  if (entries < size[2])
    return fail(error, SLUICE_STATUS_PARSE_ERROR,
                {path, reader.lineNumber() + 1, 0},
                "unexpected end of file after " + std::to_string(entries) +
                    " of the " + std::to_string(size[2]) + " declared entries");
  if (!keepVertexIds(o, 1, size[0], collector))
    return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {path},
                "more than " + std::to_string(kMaxVertices) +
                    " distinct vertex ids (with the ids to keep)");
  staging = collector.finish(o.compactIds ? 0 : size[0], 1);
  return SLUICE_STATUS_OK;
}
