//===- ChunkedEdgeList.cpp - Edge lists parsed in chunks on threads -------===//
//
// One pass: the caller reads up to threads x pieceBytes more bytes after
// the unfinished line the last pass left, cuts the text after its last
// line end (all of it at the end of the file), and cuts that into pieces
// at line starts. Lines end as LineReader's do ("\n", "\r\n", a lone
// "\r"), so a byte q starts a line when the byte before is '\n', or '\r'
// not followed by '\n'. The pool parses the pieces; the caller then adds
// their entries in order and keeps the unfinished line for the next pass.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/ChunkedEdgeList.h"

#include "runtime/src/Error.h"
#include "runtime/src/GraphBuilder.h"
#include "runtime/src/LineReader.h"
#include "runtime/src/Progress.h"
#include "runtime/src/TextFormats.h"
#include "runtime/src/algo/AlgoInternal.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <new>
#include <thread>

using namespace sluice::rt;

namespace {

/// More threads than this parse with this many (a pass of 256 MiB of text).
constexpr uint32_t kMaxParseThreads = 256;

ChunkedParseTuning testTuning;
bool haveTestTuning = false;

const ChunkedParseTuning &tuning() {
  static const ChunkedParseTuning defaults;
  return haveTestTuning ? testTuning : defaults;
}

/// Whether byte q of text[0, size) starts a line (q < size).
bool startsLine(const char *text, size_t q) {
  return q == 0 || text[q - 1] == '\n' ||
         (text[q - 1] == '\r' && text[q] != '\n');
}

/// Calls fn(line, lineIndex) for the lines of text[begin, end), which
/// starts a line and ends at a line start or at the end of the file; stops
/// when fn returns false. Returns the number of lines visited.
template <typename Fn>
uint64_t forEachLine(const char *text, size_t begin, size_t end, Fn &&fn) {
  uint64_t index = 0;
  size_t p = begin;
  while (p < end) {
    // end is a line start or the file's end: the last line is final.
    size_t stop, resume;
    lineEnd(text, p, end, /*final=*/true, stop, resume);
    if (!fn(std::string_view(text + p, stop - p), index++))
      return index;
    p = resume;
  }
  return index;
}

/// A line remembered by its place in the pass's text.
struct LineRef {
  uint64_t index = 0; // 0-based line of the piece
  size_t at = 0, size = 0;
};

/// One thread's share of a pass and what it found.
struct Piece {
  size_t begin = 0, end = 0;
  std::vector<uint64_t> ids; // source, target of each entry
  std::vector<float> weights;
  std::vector<int32_t> labels;
  uint64_t lines = 0;
  bool hasEntry = false;    // an entry line (or a header) in the piece
  bool headerFirst = false; // its first entry line looks like a header
  LineRef header;
  bool failed = false; // a bad line (the first), parsed no further
  LineRef bad;
  bool outOfMemory = false;

  void parse(const char *text, const EntryLayout &layout,
             const std::string &path) {
    ids.clear();
    weights.clear();
    labels.clear();
    // An entry line takes 3 bytes at least ("0 0" and the file's end):
    // room for them all, which costs address space, not pages (the pages
    // are touched as entries arrive). Rounded up to a power of two, so that
    // the arrays, and their pages, last from pass to pass.
    size_t most = 1;
    while (most < (end - begin) / 3 + 1)
      most *= 2;
    ids.reserve(2 * most);
    if (layout.valueIsWeight)
      weights.reserve(most);
    if (layout.labelColumn)
      labels.reserve(most);
    hasEntry = headerFirst = failed = false;
    Entry entry;
    lines = forEachLine(
        text, begin, end, [&](std::string_view line, uint64_t index) {
          if (isBlankOrComment(line))
            return true;
          LineRef here{index, static_cast<size_t>(line.data() - text),
                       line.size()};
          if (!hasEntry) {
            hasEntry = true;
            if (isHeaderLine(line, layout.csv)) {
              headerFirst = true;
              header = here;
              return true;
            }
          }
          // No error filled: the caller parses the line again at its file line.
          if (parseEntry(line, layout, path, 0, entry, nullptr) !=
              SLUICE_STATUS_OK) {
            failed = true;
            bad = here;
            return false;
          }
          ids.push_back(entry.ids[0]);
          ids.push_back(entry.ids[1]);
          if (layout.valueIsWeight)
            weights.push_back(entry.weight);
          if (layout.labelColumn)
            labels.push_back(entry.label);
          return true;
        });
  }
};

/// The end of the last line of text[0, size) whose end is certain (a '\r'
/// in the last byte may be half of "\r\n"): 0 when there is none.
size_t lastLineEnd(const char *text, size_t size) {
  for (size_t q = size; q > 0; --q)
    if (text[q - 1] == '\n' || (text[q - 1] == '\r' && q < size))
      return q;
  return 0;
}

/// One pass: its text and pieces.
struct Pass {
  std::vector<char> text;
  std::vector<Piece> pieces;
  size_t cut = 0; // text[0, cut) is parsed
};

/// State carried from pass to pass. Two passes alternate: while the
/// threads parse the pieces of one, one of them adds the entries of the
/// other (parsed the pass before) to the collector.
class ChunkedParser {
public:
  ChunkedParser(LineReader &reader, const EntryLayout &layout, uint32_t threads,
                Progress &progress, EdgeCollector &collector,
                sluice_error_t *error)
      : reader(reader), layout(layout), progress(progress),
        collector(collector), error(error), pool(threads) {
    // Pieces of pieceBytes, fewer bytes for a smaller file (pieces of
    // about a thread's share of it); threads <= kMaxParseThreads. Four
    // pieces a thread, so that the threads stay busy while one merges.
    const uint64_t block =
        uint64_t(std::max<size_t>(tuning().pieceBytes, 1)) * threads;
    blockBytes = static_cast<size_t>(
        std::max<uint64_t>(1, std::min(block, reader.fileBytes())));
    for (Pass &pass : passes)
      pass.pieces.resize(threads == 1 ? 1 : 4 * size_t(threads));
  }

  sluice_status_t run() {
    size_t have = 0; // bytes of text held: an unfinished line, then more
    bool atEnd = false;
    Pass *fill = &passes[0], *parsed = nullptr;
    fill->text.resize(blockBytes);
    for (;;) {
      while (!atEnd && have < blockBytes) {
        size_t got = 0;
        sluice_status_t status = SLUICE_STATUS_OK;
        if (!reader.readRaw(fill->text.data() + have, blockBytes - have,
                            linesBefore + linesOf(parsed) + 1, got, status,
                            error)) {
          // A bad line of the pass parsed comes first in the file.
          sluice_status_t readStatus = status;
          return mergeFirst(parsed, status) ? readStatus : status;
        }
        atEnd = got == 0;
        have += got;
      }
      const size_t cut = atEnd ? have : lastLineEnd(fill->text.data(), have);
      if (cut == 0 && !atEnd) {
        // One line fills the block: room for more of it, up to the limit.
        sluice_status_t status = SLUICE_STATUS_OK;
        if (!mergeFirst(parsed, status))
          return status;
        if (have >= LineReader::kMaxLineBytes)
          return LineReader::lineTooLong(error, reader.path(), linesBefore + 1);
        blockBytes = std::min(2 * blockBytes,
                              std::max(blockBytes, LineReader::kMaxLineBytes));
        fill->text.resize(blockBytes);
        continue;
      }
      if (cut > 0) {
        sluice_status_t status = parseAndMerge(*fill, cut, parsed);
        if (status != SLUICE_STATUS_OK)
          return status;
        parsed = fill;
        bytesDone += cut;
        progress.update("reading", bytesDone, reader.fileBytes(), "bytes");
      }
      if (atEnd) {
        sluice_status_t status = SLUICE_STATUS_OK;
        mergeFirst(parsed, status);
        return status;
      }
      // The unfinished line starts the other pass's text.
      Pass *next = fill == &passes[0] ? &passes[1] : &passes[0];
      next->text.resize(blockBytes);
      std::memcpy(next->text.data(), fill->text.data() + cut, have - cut);
      have -= cut;
      fill = next;
    }
  }

private:
  /// The lines of `pass` (none: 0).
  static uint64_t linesOf(const Pass *pass) {
    uint64_t lines = 0;
    if (pass)
      for (const Piece &piece : pass->pieces)
        lines += piece.lines;
    return lines;
  }

  /// Adds the entries of `parsed` (if any; it is then none): false with
  /// `status` set on an error.
  bool mergeFirst(Pass *&parsed, sluice_status_t &status) {
    if (!parsed)
      return true;
    status = mergePass(*parsed);
    parsed = nullptr;
    return status == SLUICE_STATUS_OK;
  }

  /// Parses text[0, cut) of `pass` on the pool while one of its threads
  /// adds the entries of `parsed` (if any).
  sluice_status_t parseAndMerge(Pass &pass, size_t cut, Pass *parsed) {
    const char *t = pass.text.data();
    const size_t n = pass.pieces.size();
    size_t from = 0;
    for (size_t k = 0; k < n; ++k) {
      size_t to = std::max(
          from, static_cast<size_t>(uint64_t(cut) * (k + 1) / uint64_t(n)));
      while (to < cut && !startsLine(t, to))
        ++to;
      pass.pieces[k].begin = from;
      pass.pieces[k].end = to;
      from = to;
    }
    pass.cut = cut;
    const std::string &path = reader.path();
    // Task 0 merges (claimed first), the others parse a piece each.
    const size_t merges = parsed ? 1 : 0, tasks = merges + n;
    std::atomic<size_t> next{0};
    sluice_status_t merged = SLUICE_STATUS_OK;
    bool mergeOutOfMemory = false;
    pool.run([&](uint32_t) {
      for (size_t k = next.fetch_add(1); k < tasks; k = next.fetch_add(1)) {
        if (k < merges) {
          try {
            merged = mergePass(*parsed);
          } catch (const std::bad_alloc &) {
            mergeOutOfMemory = true;
          }
          continue;
        }
        Piece &piece = pass.pieces[k - merges];
        try {
          piece.outOfMemory = false;
          piece.parse(t, layout, path);
        } catch (const std::bad_alloc &) {
          piece.outOfMemory = true; // thrown again on the caller's thread
        }
      }
    });
    if (mergeOutOfMemory)
      throw std::bad_alloc();
    return merged;
  }

  /// Adds the entries of `pass`'s pieces, in order.
  sluice_status_t mergePass(const Pass &pass) {
    if (!reserved) {
      // The file's edges, from the first pass's entries per byte, with 5%
      // to spare (as parseEdgeList's estimate from its first lines).
      reserved = true;
      uint64_t entries = 0;
      for (const Piece &piece : pass.pieces)
        entries += piece.ids.size() / 2;
      collector.reserve(
          static_cast<uint64_t>(1.05 * double(reader.fileBytes()) *
                                double(entries) / double(pass.cut)));
    }
    for (const Piece &piece : pass.pieces) {
      sluice_status_t status = merge(pass.text.data(), piece);
      if (status != SLUICE_STATUS_OK)
        return status;
    }
    return SLUICE_STATUS_OK;
  }

  /// Adds `piece`'s entries after those of the pieces before it.
  sluice_status_t merge(const char *t, const Piece &piece) {
    if (piece.outOfMemory)
      throw std::bad_alloc();
    const std::string &path = reader.path();
    Entry entry;
    if (piece.headerFirst && seenEntry) {
      // Not the file's first entry line: an entry like any other (which a
      // line without numbers is not).
      std::string_view line(t + piece.header.at, piece.header.size);
      sluice_status_t status =
          parseEntry(line, layout, path, linesBefore + piece.header.index + 1,
                     entry, error);
      if (status != SLUICE_STATUS_OK)
        return status;
      if (!collector.add(entry.ids[0], entry.ids[1], entry.weight, entry.label))
        return failTooManyIds(error, path,
                              linesBefore + piece.header.index + 1);
    }
    seenEntry = seenEntry || piece.hasEntry;
    const uint64_t count = piece.ids.size() / 2;
    for (uint64_t k = 0; k < count; ++k)
      if (!collector.add(piece.ids[2 * k], piece.ids[2 * k + 1],
                         layout.valueIsWeight ? piece.weights[k] : 1.0f,
                         layout.labelColumn ? piece.labels[k] : 0))
        return failTooManyIds(error, path,
                              linesBefore + lineOfEntry(t, piece, k) + 1);
    if (piece.failed) {
      std::string_view line(t + piece.bad.at, piece.bad.size);
      sluice_status_t status = parseEntry(
          line, layout, path, linesBefore + piece.bad.index + 1, entry, error);
      if (status != SLUICE_STATUS_OK)
        return status;
      return fail(error, SLUICE_STATUS_INTERNAL,
                  {path, linesBefore + piece.bad.index + 1},
                  "a line failed to parse on a thread only");
    }
    linesBefore += piece.lines;
    return SLUICE_STATUS_OK;
  }

  /// The 0-based line of `piece` that holds its entry `k`.
  uint64_t lineOfEntry(const char *t, const Piece &piece, uint64_t k) const {
    uint64_t seen = 0, found = 0;
    bool first = true;
    forEachLine(t, piece.begin, piece.end,
                [&](std::string_view line, uint64_t index) {
                  if (isBlankOrComment(line))
                    return true;
                  if (first) {
                    first = false;
                    if (piece.headerFirst)
                      return true;
                  }
                  found = index;
                  return seen++ < k;
                });
    return found;
  }

  LineReader &reader;
  const EntryLayout &layout;
  Progress &progress;
  EdgeCollector &collector;
  sluice_error_t *error;
  AlgoThreadPool pool;
  Pass passes[2];
  size_t blockBytes = 0;
  uint64_t linesBefore = 0; // lines of the pieces added so far
  uint64_t bytesDone = 0;
  bool seenEntry = false; // an entry line (or the header) added so far
  bool reserved = false;
};

} // namespace

void sluice::rt::setChunkedParseTuningForTesting(
    const ChunkedParseTuning *tuning) {
  haveTestTuning = tuning != nullptr;
  if (tuning)
    testTuning = *tuning;
}

bool sluice::rt::chunkedParseApplies(const LineReader &reader,
                                     uint32_t &threads) {
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  threads = std::min(threads, kMaxParseThreads);
  if (reader.compressed() || !reader.regularFile())
    return false;
  const ChunkedParseTuning &t = tuning();
  return t.force || (threads > 1 && reader.fileBytes() >= t.minFileBytes);
}

sluice_status_t sluice::rt::parseEdgeListChunked(
    LineReader &reader, const EntryLayout &layout, uint32_t threads,
    Progress &progress, EdgeCollector &collector, sluice_error_t *error) {
  if (tuning().parses)
    ++*tuning().parses;
  return ChunkedParser(reader, layout, threads, progress, collector, error)
      .run();
}
