//===- WalkWriter.cpp - Text and .npy walk output -------------------------===//
//
// Text: one walk per line, ids separated by one space, '\n' after every walk
// (an empty line for a walk of length 0, so line i is walk i).
// .npy (format version 1.0): a 128-byte header whose dict is
//   {'descr': '<i4' | '<i8', 'fortran_order': False, 'shape': (W, L), }
// padded with spaces to a '\n' at byte 127, then W rows of L values; the
// rows of walks shorter than L end in SLUICE_WALK_NPY_PADDING. The header
// is written with W = 0 at open and rewritten with the real W at commit.
//
// Shuffled output (sluice_walk_writer_shuffle): the appended walks are held
// in memory and written at commit in the order of a Fisher-Yates
// permutation drawn from a splitmix64 stream of the seed, so the same walks
// and the same seed give the same file.
//
//===----------------------------------------------------------------------===//
#include "sluice/walk_output.h"

#include "runtime/src/AtomicFile.h"
#include "runtime/src/Error.h"
#include "runtime/src/GraphImpl.h"
#include "runtime/src/WalkWriterInternal.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

using namespace sluice::rt;

namespace sluice::rt {
/// A vertex's id as written in text, followed by a space (at most 15
/// characters: ids below kIdTextMaxId), and that length: 16 bytes, one
/// copy per id.
struct IdText {
  char text[15];
  uint8_t length;
};
static_assert(sizeof(IdText) == 16, "an IdText is one 16-byte copy");
/// The id text table is built for graphs of at most this many vertices
/// (4 MiB: it stays in the caches that a step's random read of it hits).
constexpr uint64_t kIdTextVertices = uint64_t(1) << 18;
/// Ids below this have at most 14 digits (and the space: 15 characters).
constexpr uint64_t kIdTextMaxId = 100000000000000ull;
} // namespace sluice::rt

struct sluice_walk_writer_t {
  AtomicFile file;
  std::string path;
  sluice_walk_format_t format = SLUICE_WALK_FORMAT_TEXT;
  uint32_t walkLength = 0;
  uint32_t flags = 0;
  const sluice_graph_t *graph = nullptr;
  uint64_t numWalks = 0;
  bool committed = false;
  bool failed = false;
  /// The block formatted rows go through before a write, allocated (not
  /// zeroed) at the first append and grown when a batch needs more.
  std::unique_ptr<char[]> scratch;
  size_t scratchBytes = 0;
  /// The largest id the writer can write (outputId over every vertex of
  /// the graph), computed at the first append; a batch whose vertices are
  /// all in the graph then needs no per-id check of the format's range.
  std::optional<uint64_t> maxOutputId;
  /// Each vertex's id as text (formatTextRows), built at the first text
  /// append for graphs of at most kIdTextVertices vertices.
  std::unique_ptr<sluice::rt::IdText[]> idTexts;
  bool idTextsBuilt = false;
  bool shuffle = false;
  uint64_t shuffleSeed = 0;
  std::vector<uint32_t> heldVertices; ///< walkLength per walk
  std::vector<uint32_t> heldLengths;
};

namespace {

constexpr size_t kNpyHeaderBytes = 128;

std::string npyHeader(sluice_walk_format_t format, uint64_t rows,
                      uint32_t columns) {
  std::string dict = std::string("{'descr': '") +
                     (format == SLUICE_WALK_FORMAT_NPY_INT32 ? "<i4" : "<i8") +
                     "', 'fortran_order': False, 'shape': (" +
                     std::to_string(rows) + ", " + std::to_string(columns) +
                     "), }";
  // magic (6) + version (2) + header length (2) + dict, padded, '\n'.
  const size_t headerLength = kNpyHeaderBytes - 10;
  dict.resize(headerLength - 1, ' ');
  dict += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(headerLength & 0xff);
  out += static_cast<char>(headerLength >> 8);
  return out + dict;
}

bool isNpy(sluice_walk_format_t f) {
  return f == SLUICE_WALK_FORMAT_NPY_INT32 || f == SLUICE_WALK_FORMAT_NPY_INT64;
}

uint64_t outputId(const sluice_walk_writer_t &w, uint32_t v) {
  return (w.flags & SLUICE_WALK_WRITE_ORIGINAL_IDS)
             ? sluice_graph_original_id(w.graph, v)
             : v;
}

sluice_status_t notWritable(const sluice_walk_writer_t &w,
                            sluice_error_t *error) {
  return fail(error, SLUICE_STATUS_FAILED_PRECONDITION, {w.path},
              w.committed ? "the walk writer is already committed"
                          : "the walk writer failed earlier; release it");
}

/// The largest id written for any vertex of the writer's graph (which it
/// has).
uint64_t maxOutputIdOf(const sluice_walk_writer_t &w) {
  const uint64_t n = w.graph->numVertices;
  if (n == 0)
    return 0;
  if (!(w.flags & SLUICE_WALK_WRITE_ORIGINAL_IDS))
    return n - 1;
  if (const uint64_t *table = sluice_graph_original_ids(w.graph))
    return *std::max_element(table, table + n);
  return n - 1 + sluice_graph_id_base(w.graph);
}

/// The largest id the format can hold.
uint64_t formatMaxId(sluice_walk_format_t format) {
  switch (format) {
  case SLUICE_WALK_FORMAT_NPY_INT32:
    return uint64_t(std::numeric_limits<int32_t>::max());
  case SLUICE_WALK_FORMAT_NPY_INT64:
    return uint64_t(std::numeric_limits<int64_t>::max());
  default:
    return UINT64_MAX;
  }
}

sluice_status_t checkBatchById(const sluice_walk_writer_t &w,
                               const uint32_t *vertices,
                               const uint32_t *lengths, uint64_t count,
                               sluice_error_t *error);

/// Checks a batch without writing anything. The common case in one
/// branch-free pass (the lengths and the largest vertex); a batch that
/// fails it, or a graph whose ids do not all fit the format, is checked id
/// by id (the first fault named, as before).
sluice_status_t checkBatch(sluice_walk_writer_t &w, const uint32_t *vertices,
                           const uint32_t *lengths, uint64_t count,
                           sluice_error_t *error) {
  if (w.graph && !w.maxOutputId)
    w.maxOutputId = maxOutputIdOf(w);
  const uint64_t formatMax = formatMaxId(w.format);
  if (!w.graph || *w.maxOutputId <= formatMax) {
    uint32_t longest = 0, largest = 0;
    for (uint64_t i = 0; i < count; ++i) {
      const uint32_t length = lengths ? lengths[i] : w.walkLength;
      longest = std::max(longest, length);
      const uint32_t *row = vertices + i * w.walkLength;
      const uint32_t n = std::min(length, w.walkLength);
      for (uint32_t k = 0; k < n; ++k)
        largest = std::max(largest, row[k]);
    }
    // With a graph its vertices' ids fit (above); without, the ids are
    // the vertices.
    const bool inRange = w.graph ? largest < w.graph->numVertices
                                 : uint64_t(largest) <= formatMax;
    if (longest <= w.walkLength && (count == 0 || inRange))
      return SLUICE_STATUS_OK;
  }
  return checkBatchById(w, vertices, lengths, count, error);
}

/// checkBatch id by id.
sluice_status_t checkBatchById(const sluice_walk_writer_t &w,
                               const uint32_t *vertices,
                               const uint32_t *lengths, uint64_t count,
                               sluice_error_t *error) {
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t walk = w.numWalks + i;
    const uint32_t length = lengths ? lengths[i] : w.walkLength;
    if (length > w.walkLength)
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {w.path},
                  "walk " + std::to_string(walk) + " has " +
                      std::to_string(length) +
                      " vertices, more than the walk "
                      "length " +
                      std::to_string(w.walkLength));
    const uint32_t *row = vertices + i * w.walkLength;
    for (uint32_t k = 0; k < length; ++k) {
      if (w.graph && row[k] >= w.graph->numVertices)
        return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {w.path},
                    "walk " + std::to_string(walk) + ", step " +
                        std::to_string(k) + ": vertex " +
                        std::to_string(row[k]) + " is not in the graph (" +
                        std::to_string(w.graph->numVertices) + " vertices)");
      if (w.format == SLUICE_WALK_FORMAT_NPY_INT32 &&
          outputId(w, row[k]) > uint64_t(std::numeric_limits<int32_t>::max()))
        return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {w.path},
                    "walk " + std::to_string(walk) + ", step " +
                        std::to_string(k) + ": vertex id " +
                        std::to_string(outputId(w, row[k])) +
                        " does not fit in an int32 .npy file (use int64)");
      if (w.format == SLUICE_WALK_FORMAT_NPY_INT64 &&
          outputId(w, row[k]) > uint64_t(std::numeric_limits<int64_t>::max()))
        return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {w.path},
                    "walk " + std::to_string(walk) + ", step " +
                        std::to_string(k) + ": vertex id " +
                        std::to_string(outputId(w, row[k])) +
                        " does not fit in an int64 .npy file");
    }
  }
  return SLUICE_STATUS_OK;
}

/// The writer's scratch block, at least `bytes` long (its contents are
/// not kept when it grows).
char *scratchOf(sluice_walk_writer_t &w, size_t bytes) {
  if (bytes > w.scratchBytes) {
    w.scratch.reset(new char[bytes]);
    w.scratchBytes = bytes;
  }
  return w.scratch.get();
}

/// The .npy rows of a batch (ids of type T), formatted into the scratch
/// block and written a block at a time. idOf maps a vertex to its id.
template <typename T, typename IdOf>
sluice_status_t formatNpyRows(sluice_walk_writer_t &w, const uint32_t *vertices,
                              const uint32_t *lengths, uint64_t count,
                              IdOf idOf, sluice_error_t *error) {
  constexpr size_t kBlockBytes = size_t(1) << 20;
  const size_t rowBytes = size_t(w.walkLength) * sizeof(T);
  const uint64_t rowsPerBlock = std::max<uint64_t>(1, kBlockBytes / rowBytes);
  T *const block = reinterpret_cast<T *>(scratchOf(
      w, std::min(rowsPerBlock, std::max<uint64_t>(count, 1)) * rowBytes));
  for (uint64_t first = 0; first < count; first += rowsPerBlock) {
    const uint64_t rows = std::min(rowsPerBlock, count - first);
    for (uint64_t r = 0; r < rows; ++r) {
      const uint64_t i = first + r;
      const uint32_t length = lengths ? lengths[i] : w.walkLength;
      const uint32_t *in = vertices + i * w.walkLength;
      T *out = block + r * w.walkLength;
      for (uint32_t k = 0; k < length; ++k)
        out[k] = static_cast<T>(idOf(in[k]));
      for (uint32_t k = length; k < w.walkLength; ++k)
        out[k] = static_cast<T>(SLUICE_WALK_NPY_PADDING);
    }
    sluice_status_t status = w.file.write(block, rows * rowBytes, error);
    if (status != SLUICE_STATUS_OK)
      return status;
  }
  return SLUICE_STATUS_OK;
}

/// The decimal digits of v (1 for 0): the bit width times log10(2)
/// (1233 / 4096) picks the power of ten to compare with.
inline __attribute__((always_inline)) unsigned decimalDigits(uint64_t v) {
  static constexpr uint64_t kPow10[20] = {1ull,
                                          10ull,
                                          100ull,
                                          1000ull,
                                          10000ull,
                                          100000ull,
                                          1000000ull,
                                          10000000ull,
                                          100000000ull,
                                          1000000000ull,
                                          10000000000ull,
                                          100000000000ull,
                                          1000000000000ull,
                                          10000000000000ull,
                                          100000000000000ull,
                                          1000000000000000ull,
                                          10000000000000000ull,
                                          100000000000000000ull,
                                          1000000000000000000ull,
                                          10000000000000000000ull};
  // v | 1 has the digits of v (no power of ten above 1 is odd) and a bit.
  const unsigned bits = 64 - unsigned(__builtin_clzll(v | 1));
  const unsigned t = (bits * 1233) >> 12;
  return t + ((v | 1) >= kPow10[t]);
}

/// The eight decimal digits of v < 10^8, zero-padded, most significant
/// first in memory order (a little-endian word): the two halves of four
/// digits, then the pairs, then the digits are split in SIMD-within-a-word
/// lanes by multiplications (Paul Khuong's method, as Lemire's blog of
/// 2021-11-18 gives it); no branch, so a batch of ids of mixed widths
/// costs no mispredictions.
inline __attribute__((always_inline)) uint64_t eightDigits(uint32_t v) {
  const uint64_t merged = uint64_t(v / 10000) | (uint64_t(v % 10000) << 32);
  const uint64_t top =
      ((merged * 10486ull) >> 20) & ((0x7Full << 32) | 0x7Full); // / 100
  const uint64_t bottom = merged - 100ull * top;                 // % 100
  const uint64_t hundreds = (bottom << 16) + top;
  uint64_t tens = (hundreds * 103ull) >> 10; // / 10
  tens &= (0xFull << 48) | (0xFull << 32) | (0xFull << 16) | 0xFull;
  tens += (hundreds - 10ull * tens) << 8; // % 10 in the odd bytes
  return tens | 0x3030303030303030ull;
}

/// Writes v in decimal at p and returns the end; p must have 8 writable
/// bytes even for fewer digits. Below 10^8 (every dense id of a graph of
/// fewer than 10^8 vertices) one eightDigits word shifted past its leading
/// zeros; above, two digits per division by 100.
template <typename T>
inline __attribute__((always_inline)) char *appendDecimal(char *p, T v) {
  const unsigned digits = decimalDigits(v);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  if (v < 100000000) {
    const uint64_t text = eightDigits(uint32_t(v)) >> (8 * (8 - digits));
    std::memcpy(p, &text, 8);
    return p + digits;
  }
#endif
  static constexpr char kPairs[] = "00010203040506070809"
                                   "10111213141516171819"
                                   "20212223242526272829"
                                   "30313233343536373839"
                                   "40414243444546474849"
                                   "50515253545556575859"
                                   "60616263646566676869"
                                   "70717273747576777879"
                                   "80818283848586878889"
                                   "90919293949596979899";
  char *end = p + digits, *q = end;
  while (v >= 100) {
    const unsigned pair = unsigned(v % 100);
    v /= 100;
    q -= 2;
    std::memcpy(q, kPairs + 2 * pair, 2);
  }
  if (v >= 10)
    std::memcpy(q - 2, kPairs + 2 * unsigned(v), 2);
  else
    q[-1] = char('0' + v);
  return end;
}

/// Builds the writer's table of id texts (IdText: the id and a space) when
/// its graph has at most kIdTextVertices vertices whose ids all fit;
/// leaves it empty otherwise.
template <typename IdOf> void buildIdTexts(sluice_walk_writer_t &w, IdOf idOf) {
  w.idTextsBuilt = true;
  if (!w.graph || w.graph->numVertices > kIdTextVertices || !w.maxOutputId ||
      *w.maxOutputId >= kIdTextMaxId)
    return;
  const uint32_t n = static_cast<uint32_t>(w.graph->numVertices);
  w.idTexts.reset(new IdText[n]); // every entry written below
  for (uint32_t v = 0; v < n; ++v) {
    char text[24];
    char *end = appendDecimal(text, idOf(v));
    *end++ = ' ';
    IdText &t = w.idTexts[v];
    std::memcpy(t.text, text, size_t(end - text));
    t.length = static_cast<uint8_t>(end - text);
  }
}

/// Text of a batch: whole lines formatted into the scratch block, which
/// goes to the file in writes of just over kTextBlockBytes (the file's own
/// buffer size, so they bypass its copy). idOf maps a vertex to the id
/// written and returns the type appendDecimal formats. On a graph with an
/// id text table an id is one 16-byte copy from the table (its text and a
/// space; the line's last space becomes the newline) instead of its digits
/// computed anew at every step of every walk.
template <typename IdOf>
sluice_status_t formatTextRows(sluice_walk_writer_t &w,
                               const uint32_t *vertices,
                               const uint32_t *lengths, uint64_t count,
                               IdOf idOf, sluice_error_t *error) {
  constexpr size_t kTextBlockBytes = size_t(1) << 20;
  // 20 digits + separator per vertex (at least appendDecimal's 8 bytes and
  // an IdText's 16), plus the newline.
  const size_t lineMax = size_t(w.walkLength) * 21 + 1;
  char *begin = scratchOf(w, std::max(kTextBlockBytes, lineMax) + lineMax),
       *p = begin;
  char *const flushAt = begin + w.scratchBytes - lineMax;
  if (!w.idTextsBuilt)
    buildIdTexts(w, idOf);
  const IdText *const table = w.idTexts.get();
  for (uint64_t i = 0; i < count; ++i) {
    if (p > flushAt) {
      sluice_status_t status =
          w.file.write(begin, static_cast<size_t>(p - begin), error);
      if (status != SLUICE_STATUS_OK)
        return status;
      p = begin;
    }
    const uint32_t length = lengths ? lengths[i] : w.walkLength;
    const uint32_t *in = vertices + i * w.walkLength;
    if (!length) {
      *p++ = '\n';
    } else if (table) {
      for (uint32_t k = 0; k < length; ++k) {
        const IdText &t = table[in[k]];
        std::memcpy(p, &t, sizeof(IdText));
        p += t.length;
      }
      p[-1] = '\n';
    } else {
      p = appendDecimal(p, idOf(in[0]));
      for (uint32_t k = 1; k < length; ++k) {
        *p++ = ' ';
        p = appendDecimal(p, idOf(in[k]));
      }
      *p++ = '\n';
    }
  }
  return w.file.write(begin, static_cast<size_t>(p - begin), error);
}

/// Calls format(idOf) with the writer's id mapping as an inlinable
/// function object. checkBatch has checked every vertex against the graph
/// and the format: the ids are read from the mapping directly (outputId's
/// checks are done).
template <typename Format>
sluice_status_t withIdMap(const sluice_walk_writer_t &w, Format format) {
  const uint64_t *table = nullptr;
  uint32_t base = 0;
  if (w.flags & SLUICE_WALK_WRITE_ORIGINAL_IDS) {
    table = sluice_graph_original_ids(w.graph);
    base = sluice_graph_id_base(w.graph);
  }
  if (table)
    return format([table](uint32_t v) { return table[v]; });
  if (base)
    return format([base](uint32_t v) { return uint64_t(v) + base; });
  return format([](uint32_t v) { return v; });
}

/// Writes a batch in the writer's format.
sluice_status_t writeRows(sluice_walk_writer_t &w, const uint32_t *vertices,
                          const uint32_t *lengths, uint64_t count,
                          sluice_error_t *error) {
  switch (w.format) {
  case SLUICE_WALK_FORMAT_TEXT:
    return withIdMap(w, [&](auto idOf) {
      return formatTextRows(w, vertices, lengths, count, idOf, error);
    });
  case SLUICE_WALK_FORMAT_NPY_INT32:
    return withIdMap(w, [&](auto idOf) {
      return formatNpyRows<int32_t>(w, vertices, lengths, count, idOf, error);
    });
  case SLUICE_WALK_FORMAT_NPY_INT64:
    return withIdMap(w, [&](auto idOf) {
      return formatNpyRows<int64_t>(w, vertices, lengths, count, idOf, error);
    });
  }
  return fail(error, SLUICE_STATUS_INTERNAL, {w.path}, "unknown walk format");
}

/// Keeps a (checked) batch for a shuffled commit. The memory it will take
/// is checked against size_t before the vectors grow.
sluice_status_t holdRows(sluice_walk_writer_t &w, const uint32_t *vertices,
                         const uint32_t *lengths, uint64_t count,
                         sluice_error_t *error) {
  const uint64_t walks = w.numWalks + count;
  if (walks < count || walks > SIZE_MAX / 4 / (uint64_t(w.walkLength) + 1))
    return fail(error, SLUICE_STATUS_OUT_OF_MEMORY, {w.path},
                "shuffling " + std::to_string(walks) + " walks of " +
                    std::to_string(w.walkLength) +
                    " vertices holds them in memory: more than this "
                    "machine can address");
  w.heldVertices.insert(w.heldVertices.end(), vertices,
                        vertices + count * w.walkLength);
  for (uint64_t i = 0; i < count; ++i)
    w.heldLengths.push_back(lengths ? lengths[i] : w.walkLength);
  w.numWalks = walks;
  return SLUICE_STATUS_OK;
}

/// splitmix64 (Steele, Lea, Flood 2014): the permutation's random stream.
uint64_t splitmix64(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// Writes the held walks in a seeded Fisher-Yates order, a chunk at a time.
sluice_status_t writeShuffled(sluice_walk_writer_t &w, sluice_error_t *error) {
  const uint64_t n = w.numWalks;
  std::vector<uint64_t> order(n);
  for (uint64_t i = 0; i < n; ++i)
    order[i] = i;
  uint64_t state = w.shuffleSeed;
  for (uint64_t i = n; i > 1; --i) {
    // An index in [0, i): the high half of a 64 x 64-bit product (Lemire).
    uint64_t j = uint64_t((__uint128_t(splitmix64(state)) * i) >> 64);
    std::swap(order[i - 1], order[j]);
  }
  constexpr uint64_t kChunk = 1024;
  std::vector<uint32_t> rows, lengths;
  for (uint64_t at = 0; at < n; at += kChunk) {
    const uint64_t count = std::min(kChunk, n - at);
    rows.clear();
    lengths.clear();
    for (uint64_t k = 0; k < count; ++k) {
      const uint64_t walk = order[at + k];
      const uint32_t *row = w.heldVertices.data() + walk * w.walkLength;
      rows.insert(rows.end(), row, row + w.walkLength);
      lengths.push_back(w.heldLengths[walk]);
    }
    sluice_status_t status =
        writeRows(w, rows.data(), lengths.data(), count, error);
    if (status != SLUICE_STATUS_OK)
      return status;
  }
  w.heldVertices = {};
  w.heldLengths = {};
  return SLUICE_STATUS_OK;
}

} // namespace

extern "C" sluice_status_t sluice_walk_writer_open(
    const char *path, sluice_walk_format_t format, uint32_t walkLength,
    uint32_t flags, const sluice_graph_t *graph,
    sluice_walk_writer_t **outWriter, sluice_error_t *error) {
  sluice_error_clear(error);
  auto invalid = [&](const std::string &message) {
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {path ? path : ""},
                message);
  };
  if (!path)
    return invalid("path is NULL");
  if (!outWriter)
    return invalid("out_writer is NULL");
  const int64_t formatValue = enumValue(format);
  if (formatValue < SLUICE_WALK_FORMAT_TEXT ||
      formatValue > SLUICE_WALK_FORMAT_NPY_INT64)
    return invalid("unknown walk format " + std::to_string(formatValue));
  if (walkLength == 0)
    return invalid("the walk length must be at least 1");
  if (flags & ~uint32_t(SLUICE_WALK_WRITE_ORIGINAL_IDS))
    return invalid("unknown walk writer flags " +
                   hex(flags & ~uint32_t(SLUICE_WALK_WRITE_ORIGINAL_IDS)));
  if ((flags & SLUICE_WALK_WRITE_ORIGINAL_IDS) && !graph)
    return invalid("original ids need the graph");
  return guarded(error, path, [&]() -> sluice_status_t {
    auto writer = std::make_unique<sluice_walk_writer_t>();
    writer->path = path;
    writer->format = format;
    writer->walkLength = walkLength;
    writer->flags = flags;
    writer->graph = graph;
    sluice_status_t status = checkNotAnInput(graph, path, "walk output", error);
    if (status != SLUICE_STATUS_OK)
      return status;
    status = writer->file.open(path, error);
    if (status == SLUICE_STATUS_OK && isNpy(format)) {
      std::string header = npyHeader(format, 0, walkLength);
      status = writer->file.write(header.data(), header.size(), error);
    }
    if (status != SLUICE_STATUS_OK)
      return status;
    *outWriter = writer.release();
    return SLUICE_STATUS_OK;
  });
}

extern "C" sluice_status_t
sluice_walk_writer_append(sluice_walk_writer_t *writer,
                          const uint32_t *vertices, const uint32_t *lengths,
                          uint64_t count, sluice_error_t *error) {
  sluice_error_clear(error);
  if (!writer)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {}, "writer is NULL");
  sluice_walk_writer_t &w = *writer;
  if (w.committed || w.failed)
    return notWritable(w, error);
  if (count && !vertices)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {w.path},
                "vertices is NULL");
  return guarded(error, w.path, [&]() -> sluice_status_t {
    sluice_status_t status = checkBatch(w, vertices, lengths, count, error);
    if (status != SLUICE_STATUS_OK)
      return status;
    if (w.shuffle)
      return holdRows(w, vertices, lengths, count, error);
    status = writeRows(w, vertices, lengths, count, error);
    if (status != SLUICE_STATUS_OK) {
      w.failed = true;
      w.file.discard();
      return status;
    }
    w.numWalks += count;
    return SLUICE_STATUS_OK;
  });
}

extern "C" sluice_status_t
sluice_walk_writer_shuffle(sluice_walk_writer_t *writer, uint64_t seed,
                           sluice_error_t *error) {
  sluice_error_clear(error);
  if (!writer)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {}, "writer is NULL");
  sluice_walk_writer_t &w = *writer;
  if (w.committed || w.failed)
    return notWritable(w, error);
  if (w.numWalks)
    return fail(error, SLUICE_STATUS_FAILED_PRECONDITION, {w.path},
                "shuffling must be asked for before the first walk is "
                "appended (" +
                    std::to_string(w.numWalks) + " already are)");
  w.shuffle = true;
  w.shuffleSeed = seed;
  return SLUICE_STATUS_OK;
}

extern "C" uint64_t
sluice_walk_writer_num_walks(const sluice_walk_writer_t *writer) {
  return writer ? writer->numWalks : 0;
}

extern "C" sluice_status_t
sluice_walk_writer_commit(sluice_walk_writer_t *writer, sluice_error_t *error) {
  sluice_error_clear(error);
  if (!writer)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {}, "writer is NULL");
  sluice_walk_writer_t &w = *writer;
  if (w.committed || w.failed)
    return notWritable(w, error);
  return guarded(error, w.path, [&]() -> sluice_status_t {
    sluice_status_t status = SLUICE_STATUS_OK;
    if (w.shuffle)
      status = writeShuffled(w, error);
    if (status == SLUICE_STATUS_OK && isNpy(w.format)) {
      std::string header = npyHeader(w.format, w.numWalks, w.walkLength);
      status = w.file.writeAt(0, header.data(), header.size(), error);
    }
    if (status == SLUICE_STATUS_OK)
      status = w.file.commit(error);
    if (status != SLUICE_STATUS_OK) {
      w.failed = true;
      w.file.discard();
      return status;
    }
    w.committed = true;
    return SLUICE_STATUS_OK;
  });
}

extern "C" void sluice_walk_writer_release(sluice_walk_writer_t *writer) {
  delete writer;
}

extern "C" sluice_status_t
sluice_walks_write(const char *path, sluice_walk_format_t format,
                   const uint32_t *vertices, const uint32_t *lengths,
                   uint64_t numWalks, uint32_t walkLength, uint32_t flags,
                   const sluice_graph_t *graph, sluice_error_t *error) {
  sluice_walk_writer_t *writer = nullptr;
  sluice_status_t status = sluice_walk_writer_open(
      path, format, walkLength, flags, graph, &writer, error);
  if (status == SLUICE_STATUS_OK)
    status =
        sluice_walk_writer_append(writer, vertices, lengths, numWalks, error);
  if (status == SLUICE_STATUS_OK)
    status = sluice_walk_writer_commit(writer, error);
  sluice_walk_writer_release(writer);
  return status;
}

uint32_t sluice::rt::walkWriterLength(const sluice_walk_writer_t *writer) {
  return writer ? writer->walkLength : 0;
}
