//===- NpyGraphTest.cpp - Graphs from .npy edge arrays and .npz archives --===//
//
// Hand-built .npy files (versions 1 to 3, int32/int64, C and Fortran order)
// and .npz archives (stored and deflated entries, zip64 extra fields,
// weights), format detection, and the errors: bad magic, versions, headers,
// dtypes and shapes, truncated or trailing data, ids out of range, missing
// or mismatched arrays, corrupt archives. The lit test
// test/WalkCodegen/run-npy-graph.test reads files numpy itself wrote.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestUtil.h"

#include <cstring>

using namespace sluice::test;

namespace {

template <typename T> std::string bytesOf(const std::vector<T> &values) {
  return std::string(reinterpret_cast<const char *>(values.data()),
                     values.size() * sizeof(T));
}

/// A .npy file: header dict `dict` (padded like numpy pads it) and data.
std::string npyFile(const std::string &dict, const std::string &data,
                    int version = 1) {
  const size_t preamble = version == 1 ? 10 : 12;
  std::string header = dict;
  while ((preamble + header.size() + 1) % 64)
    header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += char(version);
  out += char(0);
  uint32_t len = uint32_t(header.size());
  out.append(reinterpret_cast<const char *>(&len), version == 1 ? 2 : 4);
  return out + header + data;
}

std::string npyArray(const std::string &descr, const std::string &shape,
                     const std::string &data, bool fortran = false,
                     int version = 1) {
  return npyFile("{'descr': '" + descr +
                     "', 'fortran_order': " + (fortran ? "True" : "False") +
                     ", 'shape': " + shape + ", }",
                 data, version);
}

void put(std::string &s, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i)
    s += char((v >> (8 * i)) & 0xff);
}

/// A zip archive (what numpy.savez writes): `deflate` compresses the
/// entries; `zip64` writes sizes as 0xffffffff with a zip64 extra field.
struct ZipMember {
  std::string name, data;
};
std::string zipFile(const std::vector<ZipMember> &members, bool deflate,
                    bool zip64 = false) {
  std::string out, dir;
  for (const ZipMember &m : members) {
    std::string body = m.data;
    if (deflate) {
      z_stream z{};
      EXPECT_EQ(
          deflateInit2(&z, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY),
          Z_OK);
      body.resize(deflateBound(&z, uLong(m.data.size())));
      z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(m.data.data()));
      z.avail_in = uInt(m.data.size());
      z.next_out = reinterpret_cast<Bytef *>(body.data());
      z.avail_out = uInt(body.size());
      EXPECT_EQ(::deflate(&z, Z_FINISH), Z_STREAM_END);
      body.resize(z.total_out);
      deflateEnd(&z);
    }
    uint32_t crc =
        uint32_t(crc32(0, reinterpret_cast<const Bytef *>(m.data.data()),
                       uInt(m.data.size())));
    uint64_t offset = out.size();
    put(out, 0x04034b50, 4);
    put(out, 20, 2);
    put(out, 0, 2);
    put(out, deflate ? 8 : 0, 2);
    put(out, 0, 4); // time, date
    put(out, crc, 4);
    put(out, body.size(), 4);
    put(out, m.data.size(), 4);
    put(out, m.name.size(), 2);
    put(out, 0, 2);
    out += m.name + body;
    std::string extra;
    if (zip64) {
      put(extra, 1, 2);
      put(extra, 24, 2);
      put(extra, m.data.size(), 8);
      put(extra, body.size(), 8);
      put(extra, offset, 8);
    }
    put(dir, 0x02014b50, 4);
    put(dir, 45, 2);
    put(dir, 45, 2);
    put(dir, 0, 2);
    put(dir, deflate ? 8 : 0, 2);
    put(dir, 0, 4);
    put(dir, crc, 4);
    put(dir, zip64 ? 0xffffffff : body.size(), 4);
    put(dir, zip64 ? 0xffffffff : m.data.size(), 4);
    put(dir, m.name.size(), 2);
    put(dir, extra.size(), 2);
    put(dir, 0, 2); // comment
    put(dir, 0, 2); // disk
    put(dir, 0, 2);
    put(dir, 0, 4);
    put(dir, zip64 ? 0xffffffff : offset, 4);
    dir += m.name + extra;
  }
  uint64_t dirOffset = out.size();
  out += dir;
  put(out, 0x06054b50, 4);
  put(out, 0, 4);
  put(out, members.size(), 2);
  put(out, members.size(), 2);
  put(out, dir.size(), 4);
  put(out, dirOffset, 4);
  put(out, 0, 2);
  return out;
}

/// The triangle 0 -> 1 -> 2 -> 0 and 2 -> 3.
const std::vector<int64_t> kSrc = {0, 1, 2, 2}, kDst = {1, 2, 0, 3};

std::vector<std::vector<uint32_t>> targets(const sluice_graph_t *g) {
  std::vector<std::vector<uint32_t>> out;
  for (const auto &row : adjacency(g)) {
    out.emplace_back();
    for (const Arc &a : row)
      out.back().push_back(a.target);
  }
  return out;
}
const std::vector<std::vector<uint32_t>> kTriangle = {{1}, {2}, {0, 3}, {}};

std::string interleaved64() {
  std::vector<int64_t> rows;
  for (size_t i = 0; i < kSrc.size(); ++i) {
    rows.push_back(kSrc[i]);
    rows.push_back(kDst[i]);
  }
  return bytesOf(rows);
}

/// The error of loading `content` as `format`, formatted.
std::string loadError(const TempDir &dir, const std::string &name,
                      const std::string &content, sluice_graph_format_t format,
                      sluice_weights_t weights = SLUICE_WEIGHTS_NONE,
                      uint32_t flags = SLUICE_GRAPH_LOAD_COMPACT_IDS) {
  writeFile(dir.path(name), content);
  Loaded r = load(dir.path(name), options(format, flags, weights));
  EXPECT_NE(r.status, SLUICE_STATUS_OK) << name;
  EXPECT_FALSE(r.handleTouched);
  std::string text = formatted(r.error);
  std::string prefix = dir.root() + "/";
  return text.compare(0, prefix.size(), prefix) == 0
             ? text.substr(prefix.size())
             : text;
}

TEST(NpyGraph, Int64COrderVersions1To3) {
  TempDir dir;
  for (int version : {1, 2, 3}) {
    std::string path = dir.path("g" + std::to_string(version) + ".npy");
    writeFile(path, npyArray("<i8", "(4, 2)", interleaved64(), false, version));
    for (auto format : {SLUICE_GRAPH_FORMAT_NPY, SLUICE_GRAPH_FORMAT_AUTO}) {
      Loaded r = load(path, options(format));
      ASSERT_EQ(r.status, SLUICE_STATUS_OK) << formatted(r.error);
      EXPECT_EQ(targets(r.graph.get()), kTriangle);
      EXPECT_EQ(sluice_graph_weights(r.graph.get()), nullptr);
    }
  }
}

TEST(NpyGraph, Int32FortranOrderAndCompactIds) {
  TempDir dir;
  // Column-major: the sources, then the targets; large original ids.
  std::vector<int32_t> cols = {10, 20, 30, 30, 20, 30, 10, 2000000000};
  writeFile(dir.path("f.npy"), npyArray("<i4", "(4, 2)", bytesOf(cols), true));
  Loaded r = load(dir.path("f.npy"), options(SLUICE_GRAPH_FORMAT_NPY,
                                             SLUICE_GRAPH_LOAD_COMPACT_IDS));
  ASSERT_EQ(r.status, SLUICE_STATUS_OK) << formatted(r.error);
  EXPECT_EQ(targets(r.graph.get()), kTriangle);
  EXPECT_EQ(sluice_graph_original_id(r.graph.get(), 3), 2000000000u);
  EXPECT_EQ(sluice_graph_vertex_of(r.graph.get(), 30), 2u);
}

TEST(NpyGraph, NpzStoredDeflatedZip64AndWeights) {
  TempDir dir;
  std::vector<int32_t> src32(kSrc.begin(), kSrc.end());
  std::vector<double> w = {0.5, 1.5, 2.0, 4.0};
  std::vector<ZipMember> members = {
      {"src.npy", npyArray("<i4", "(4,)", bytesOf(src32))},
      {"dst.npy", npyArray("<i8", "(4,)", bytesOf(kDst))},
      {"weight.npy", npyArray("<f8", "(4,)", bytesOf(w))}};
  struct Case {
    const char *name;
    bool deflate, zip64;
  } cases[] = {{"stored.npz", false, false},
               {"deflated.npz", true, false},
               {"zip64.npz", false, true}};
  for (const Case &c : cases) {
    writeFile(dir.path(c.name), zipFile(members, c.deflate, c.zip64));
    for (auto format : {SLUICE_GRAPH_FORMAT_NPZ, SLUICE_GRAPH_FORMAT_AUTO}) {
      Loaded r =
          load(dir.path(c.name), options(format, 0, SLUICE_WEIGHTS_COLUMN));
      ASSERT_EQ(r.status, SLUICE_STATUS_OK) << c.name << formatted(r.error);
      auto adj = adjacency(r.graph.get());
      ASSERT_EQ(adj.size(), 4u);
      EXPECT_EQ(adj[0], (std::vector<Arc>{{1, 0.5f, -1}}));
      EXPECT_EQ(adj[2], (std::vector<Arc>{{0, 2.0f, -1}, {3, 4.0f, -1}}));
    }
    // Without weights the array is not read.
    Loaded plain = load(dir.path(c.name), options(SLUICE_GRAPH_FORMAT_NPZ));
    ASSERT_EQ(plain.status, SLUICE_STATUS_OK) << formatted(plain.error);
    EXPECT_EQ(sluice_graph_weights(plain.graph.get()), nullptr);
    EXPECT_EQ(targets(plain.graph.get()), kTriangle);
  }
}

TEST(NpyGraph, FormatNames) {
  sluice_graph_format_t f = SLUICE_GRAPH_FORMAT_AUTO;
  ASSERT_EQ(sluice_graph_format_from_name("npy", &f), SLUICE_STATUS_OK);
  EXPECT_EQ(f, SLUICE_GRAPH_FORMAT_NPY);
  ASSERT_EQ(sluice_graph_format_from_name("npz", &f), SLUICE_STATUS_OK);
  EXPECT_EQ(f, SLUICE_GRAPH_FORMAT_NPZ);
  EXPECT_STREQ(sluice_graph_format_name(SLUICE_GRAPH_FORMAT_NPZ), "npz");
}

TEST(NpyGraph, BadHeaders) {
  TempDir dir;
  const auto npy = SLUICE_GRAPH_FORMAT_NPY;
  EXPECT_EQ(loadError(dir, "magic.npy", "0 1\n", npy),
            "magic.npy: not a NumPy .npy file (no \\x93NUMPY magic string at "
            "byte 0)");
  std::string v4 = npyArray("<i8", "(4, 2)", interleaved64());
  v4[6] = 4;
  EXPECT_EQ(loadError(dir, "v4.npy", v4, npy),
            "v4.npy: .npy format version 4.0 is not supported (1.0, 2.0 and "
            "3.0 are)");
  std::string whole = npyArray("<i8", "(4, 2)", interleaved64());
  EXPECT_EQ(loadError(dir, "cut.npy", whole.substr(0, 40), npy),
            "cut.npy: truncated .npy header: it says 118 bytes after byte 10, "
            "the file has 30");
  EXPECT_EQ(loadError(dir, "dict.npy",
                      npyFile("{'descr': '<i8', 'fortran_order': Maybe, "
                              "'shape': (4, 2), }",
                              interleaved64()),
                      npy),
            "dict.npy: .npy header, byte 44: expected True or False after "
            "'fortran_order'");
  EXPECT_EQ(
      loadError(dir, "nokey.npy",
                npyFile("{'descr': '<i8', 'shape': (4, 2), }", interleaved64()),
                npy),
      "nokey.npy: .npy header, byte 44: the header dict has no "
      "'fortran_order' key");
  EXPECT_EQ(loadError(dir, "float.npy",
                      npyArray("<f8", "(4, 2)", interleaved64()), npy),
            "float.npy: edge array dtype '<f8' is not a little-endian integer "
            "('<i4' or '<i8')");
  EXPECT_EQ(loadError(dir, "big.npy",
                      npyArray(">i8", "(4, 2)", interleaved64()), npy),
            "big.npy: edge array dtype '>i8' is not a little-endian integer "
            "('<i4' or '<i8')");
  EXPECT_EQ(loadError(dir, "shape.npy",
                      npyArray("<i8", "(2, 4)", interleaved64()), npy),
            "shape.npy: expected an edge array of shape (E, 2), the file has "
            "shape (2, 4)");
  EXPECT_EQ(
      loadError(dir, "flat.npy", npyArray("<i8", "(8,)", interleaved64()), npy),
      "flat.npy: expected an edge array of shape (E, 2), the file has "
      "shape (8,)");
}

TEST(NpyGraph, TruncatedAndOversizedData) {
  TempDir dir;
  const auto npy = SLUICE_GRAPH_FORMAT_NPY;
  std::string data = interleaved64();
  EXPECT_EQ(loadError(dir, "short.npy",
                      npyArray("<i8", "(4, 2)", data.substr(0, 60)), npy),
            "short.npy: shape (4, 2) of '<i8' needs 64 bytes after byte 128, "
            "the file has 60 (truncated)");
  EXPECT_EQ(
      loadError(dir, "long.npy", npyArray("<i8", "(4, 2)", data + "x"), npy),
      "long.npy: shape (4, 2) of '<i8' needs 64 bytes after byte 128, "
      "the file has 65 (trailing bytes)");
  // A shape whose byte count overflows is refused before any allocation.
  EXPECT_EQ(loadError(dir, "huge.npy",
                      npyArray("<i8", "(2305843009213693952, 2)", data), npy),
            "huge.npy: shape (2305843009213693952, 2) of '<i8' needs more "
            "than 2^64 bytes after byte 128, the file has 64 (truncated)");
  EXPECT_EQ(loadError(dir, "overflow.npy",
                      npyArray("<i8", "(18446744073709551615, 2)", data), npy),
            "overflow.npy: shape (18446744073709551615, 2) has more than 2^64 "
            "elements");
}

TEST(NpyGraph, IdsOutOfRange) {
  TempDir dir;
  const auto npy = SLUICE_GRAPH_FORMAT_NPY;
  std::vector<int64_t> negative = {0, 1, 1, -3};
  // Element 3 of the data, which starts at byte 128.
  EXPECT_EQ(loadError(dir, "neg.npy",
                      npyArray("<i8", "(2, 2)", bytesOf(negative)), npy),
            "neg.npy: byte 152: edge 1: negative target vertex id -3");
  std::vector<int32_t> neg32 = {-1, 1};
  EXPECT_EQ(loadError(dir, "neg32.npy",
                      npyArray("<i4", "(1, 2)", bytesOf(neg32)), npy),
            "neg32.npy: byte 128: edge 0: negative source vertex id -1");
  // Without compact ids, ids are vertex ids below 2^32 - 1.
  std::vector<int64_t> large = {4294967295, 0};
  EXPECT_EQ(loadError(dir, "large.npy",
                      npyArray("<i8", "(1, 2)", bytesOf(large)), npy,
                      SLUICE_WEIGHTS_NONE, 0),
            "large.npy: byte 128: edge 0: source vertex id 4294967295 is "
            "beyond the largest vertex id 4294967294");
  writeFile(dir.path("large-ok.npy"),
            npyArray("<i8", "(1, 2)", bytesOf(large)));
  Loaded ok = load(dir.path("large-ok.npy"),
                   options(npy, SLUICE_GRAPH_LOAD_COMPACT_IDS));
  ASSERT_EQ(ok.status, SLUICE_STATUS_OK) << formatted(ok.error);
  EXPECT_EQ(sluice_graph_num_vertices(ok.graph.get()), 2u);
}

TEST(NpyGraph, NpzErrors) {
  TempDir dir;
  const auto npz = SLUICE_GRAPH_FORMAT_NPZ;
  std::string src = npyArray("<i8", "(4,)", bytesOf(kSrc));
  std::string dst = npyArray("<i8", "(4,)", bytesOf(kDst));
  EXPECT_EQ(loadError(dir, "nodst.npz",
                      zipFile({{"src.npy", src}, {"edges.npy", dst}}, false),
                      npz),
            "nodst.npz: the archive has no 'dst' array (expected 'src', 'dst' "
            "and optionally 'weight'; it has 'src.npy', 'edges.npy')");
  std::vector<int64_t> three = {1, 2, 0};
  EXPECT_EQ(
      loadError(dir, "len.npz",
                zipFile({{"src.npy", src},
                         {"dst.npy", npyArray("<i8", "(3,)", bytesOf(three))}},
                        true),
                npz),
      "len.npz: 'dst' has 3 entries, 'src' has 4");
  EXPECT_EQ(loadError(dir, "nowt.npz",
                      zipFile({{"src.npy", src}, {"dst.npy", dst}}, false), npz,
                      SLUICE_WEIGHTS_COLUMN),
            "nowt.npz: weights were requested but the archive has no 'weight' "
            "array");
  std::vector<float> negw = {1, 1, -2, 1};
  EXPECT_EQ(loadError(dir, "negw.npz",
                      zipFile({{"src.npy", src},
                               {"dst.npy", dst},
                               {"weight.npy",
                                npyArray("<f4", "(4,)", bytesOf(negw))}},
                              true),
                      npz, SLUICE_WEIGHTS_COLUMN),
            "negw.npz: edge 2: edge weight -2 is negative");
  EXPECT_EQ(
      loadError(dir, "2d.npz",
                zipFile({{"src.npy", npyArray("<i8", "(2, 2)", bytesOf(kSrc))},
                         {"dst.npy", dst}},
                        false),
                npz),
      "2d.npz: 'src' should be 1-D, it has shape (2, 2)");
  // A broken .npy inside the archive names the entry.
  EXPECT_EQ(
      loadError(dir, "inner.npz",
                zipFile({{"src.npy", src + "xxxx"}, {"dst.npy", dst}}, false),
                npz),
      "inner.npz: src.npy: shape (4,) of '<i8' needs 32 bytes after "
      "byte 128, the file has 36 (trailing bytes)");
  // Corruption: a flipped data byte, a cut archive, a foreign method.
  std::string stored = zipFile({{"src.npy", src}, {"dst.npy", dst}}, false);
  std::string flipped = stored;
  flipped[30 + 7 + 70] ^= 1;
  EXPECT_EQ(loadError(dir, "crc.npz", flipped, npz),
            "crc.npz: byte 37: CRC-32 of 'src.npy' does not match (the archive "
            "is corrupt)");
  EXPECT_EQ(
      loadError(dir, "cut.npz", stored.substr(0, stored.size() - 30), npz),
      "cut.npz: not a zip archive (no end of central directory record)");
  std::string deflated = zipFile({{"src.npy", src}, {"dst.npy", dst}}, true);
  std::string method = deflated;
  method[8] = 12; // bzip2 in the local header does not matter...
  size_t dirAt = deflated.find("PK\x01\x02");
  ASSERT_NE(dirAt, std::string::npos);
  method[dirAt + 10] = 12; // ...the central directory's method does
  EXPECT_EQ(loadError(dir, "method.npz", method, npz),
            "method.npz: 'src.npy' uses zip method 12; stored (0) and "
            "deflate (8) are supported");
  std::string badDeflate = deflated;
  badDeflate[30 + 7 + 2] ^= 0x55;
  std::string text = loadError(dir, "inflate.npz", badDeflate, npz);
  EXPECT_TRUE(text.find("deflated entry 'src.npy' is corrupt") !=
                  std::string::npos ||
              text.find("CRC-32 of 'src.npy'") != std::string::npos)
      << text;
  // A size no deflate stream can produce is refused before allocating.
  std::string bomb = deflated;
  size_t usize = dirAt + 24;
  for (int i = 0; i < 4; ++i)
    bomb[usize + i] = char(0xfe);
  EXPECT_EQ(
      loadError(dir, "bomb.npz", bomb, npz),
      "bomb.npz: deflated entry 'src.npy' claims 4278124286 "
      "bytes from " +
          std::to_string(uint8_t(deflated[18]) | uint8_t(deflated[19]) << 8) +
          ", more than deflate can expand");
}

TEST(NpyGraph, NpyHasNoWeightsOrLabelColumn) {
  TempDir dir;
  std::string g = npyArray("<i8", "(4, 2)", interleaved64());
  EXPECT_EQ(loadError(dir, "w.npy", g, SLUICE_GRAPH_FORMAT_NPY,
                      SLUICE_WEIGHTS_COLUMN),
            "w.npy: a .npy edge array has no weights; write src, dst and "
            "weight arrays to a .npz file (numpy.savez) for a weighted graph");
  EXPECT_EQ(loadError(dir, "l.npy", g, SLUICE_GRAPH_FORMAT_NPY,
                      SLUICE_WEIGHTS_NONE, SLUICE_GRAPH_LOAD_EDGE_LABEL_COLUMN),
            "l.npy: NumPy edge arrays have no edge label column; give the "
            "labels in a file (edge_labels_path)");
}

} // namespace
