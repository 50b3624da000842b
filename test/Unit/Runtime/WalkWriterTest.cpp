//===- WalkWriterTest.cpp - Text and .npy walk output ---------------------===//
//
// Exact text output, .npy headers parsed back the way NumPy reads them,
// padding of early-terminated walks, original ids, batch validation, and
// the atomic-write guarantees (no partial file on any error).
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestUtil.h"
#include "test/Unit/Support/SyscallFaults.h"

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <sys/resource.h>
#include <sys/wait.h>

using namespace sluice::test;

namespace {

// Three walks of length <= 3: [0 1 2], [3 4], [5].
const uint32_t kWalks[] = {0, 1, 2, 3, 4, 0, 5, 0, 0};
const uint32_t kLengths[] = {3, 2, 1};

/// A parsed .npy file (format 1.0).
struct Npy {
  std::string descr;
  bool fortranOrder = true;
  uint64_t rows = 0, columns = 0;
  size_t dataOffset = 0;
  std::vector<int64_t> values;
};

/// Parses the header the way numpy.lib.format does, enough for our files.
Npy parseNpy(const std::string &bytes) {
  Npy npy;
  EXPECT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 6), "\x93NUMPY");
  EXPECT_EQ(bytes[6], 1);
  EXPECT_EQ(bytes[7], 0);
  size_t headerLength =
      static_cast<unsigned char>(bytes[8]) |
      static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8;
  npy.dataOffset = 10 + headerLength;
  EXPECT_EQ(npy.dataOffset % 64, 0u) << "data must be 64-byte aligned";
  std::string dict = bytes.substr(10, headerLength);
  EXPECT_EQ(dict.back(), '\n');
  auto after = [&](const std::string &key) {
    size_t at = dict.find(key);
    EXPECT_NE(at, std::string::npos) << key;
    return dict.substr(at + key.size());
  };
  std::string descr = after("'descr': '");
  npy.descr = descr.substr(0, descr.find('\''));
  npy.fortranOrder = after("'fortran_order': ").rfind("True", 0) == 0;
  std::string shape = after("'shape': (");
  npy.rows = std::stoull(shape);
  npy.columns = std::stoull(shape.substr(shape.find(", ") + 2));
  size_t width = npy.descr == "<i4" ? 4 : 8;
  EXPECT_EQ(bytes.size(), npy.dataOffset + npy.rows * npy.columns * width);
  for (size_t at = npy.dataOffset; at + width <= bytes.size(); at += width) {
    if (width == 4) {
      int32_t v;
      std::memcpy(&v, bytes.data() + at, 4);
      npy.values.push_back(v);
    } else {
      int64_t v;
      std::memcpy(&v, bytes.data() + at, 8);
      npy.values.push_back(v);
    }
  }
  return npy;
}

TEST(WalkWriter, TextOneWalkPerLine) {
  TempDir dir;
  std::string path = dir.path("walks.txt");
  sluice_error_t e;
  ASSERT_EQ(sluice_walks_write(path.c_str(), SLUICE_WALK_FORMAT_TEXT, kWalks,
                               kLengths, 3, 3, 0, nullptr, &e),
            SLUICE_STATUS_OK)
      << formatted(e);
  EXPECT_EQ(readFile(path), "0 1 2\n3 4\n5\n");
  // Without lengths every walk is full; a walk of length 0 is an empty line.
  const uint32_t zero[] = {3, 0, 1};
  ASSERT_EQ(sluice_walks_write(path.c_str(), SLUICE_WALK_FORMAT_TEXT, kWalks,
                               zero, 3, 3, 0, nullptr, &e),
            SLUICE_STATUS_OK);
  EXPECT_EQ(readFile(path), "0 1 2\n\n5\n");
  ASSERT_EQ(sluice_walks_write(path.c_str(), SLUICE_WALK_FORMAT_TEXT, kWalks,
                               nullptr, 1, 3, 0, nullptr, &e),
            SLUICE_STATUS_OK);
  EXPECT_EQ(readFile(path), "0 1 2\n");
  EXPECT_EQ(dir.list(), (std::vector<std::string>{"walks.txt"}));
}

/// Writes `walks` walks of one vertex each (vertex i) shuffled by `seed`
/// in batches of `batch`; returns the file's lines.
std::vector<std::string> shuffledLines(const std::string &path, uint64_t seed,
                                       uint32_t walks, uint32_t batch) {
  sluice_error_t e;
  sluice_walk_writer_t *w = nullptr;
  EXPECT_EQ(sluice_walk_writer_open(path.c_str(), SLUICE_WALK_FORMAT_TEXT, 1, 0,
                                    nullptr, &w, &e),
            SLUICE_STATUS_OK);
  EXPECT_EQ(sluice_walk_writer_shuffle(w, seed, &e), SLUICE_STATUS_OK);
  std::vector<uint32_t> ids(walks);
  for (uint32_t i = 0; i < walks; ++i)
    ids[i] = i;
  for (uint32_t at = 0; at < walks; at += batch)
    EXPECT_EQ(sluice_walk_writer_append(w, ids.data() + at, nullptr,
                                        std::min(batch, walks - at), &e),
              SLUICE_STATUS_OK);
  EXPECT_EQ(sluice_walk_writer_num_walks(w), walks);
  EXPECT_EQ(sluice_walk_writer_commit(w, &e), SLUICE_STATUS_OK) << formatted(e);
  sluice_walk_writer_release(w);
  std::vector<std::string> lines;
  std::istringstream in(readFile(path));
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

/// Shuffled output: a permutation of the walks, the same for the same seed
/// whatever the batches, different for another seed; .npy rows keep their
/// lengths and padding; asking after the first append is refused.
TEST(WalkWriter, ShuffledOrderIsASeededPermutation) {
  TempDir dir;
  const uint32_t n = 3000; // more than one commit chunk
  auto a = shuffledLines(dir.path("a.txt"), 7, n, 64);
  auto b = shuffledLines(dir.path("b.txt"), 7, n, 1000);
  auto c = shuffledLines(dir.path("c.txt"), 8, n, 64);
  ASSERT_EQ(a.size(), n);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  std::vector<std::string> sorted = a, identity;
  for (uint32_t i = 0; i < n; ++i)
    identity.push_back(std::to_string(i));
  std::sort(sorted.begin(), sorted.end());
  std::sort(identity.begin(), identity.end());
  EXPECT_EQ(sorted, identity);
  uint32_t fixedPoints = 0;
  for (uint32_t i = 0; i < n; ++i)
    fixedPoints += a[i] == std::to_string(i);
  EXPECT_LT(fixedPoints, 20u); // about 1 expected of a random permutation

  // .npy int32: each row is one of the walks, padded as before.
  std::string path = dir.path("w.npy");
  sluice_error_t e;
  sluice_walk_writer_t *w = nullptr;
  ASSERT_EQ(sluice_walk_writer_open(path.c_str(), SLUICE_WALK_FORMAT_NPY_INT32,
                                    3, 0, nullptr, &w, &e),
            SLUICE_STATUS_OK);
  ASSERT_EQ(sluice_walk_writer_shuffle(w, 1, &e), SLUICE_STATUS_OK);
  ASSERT_EQ(sluice_walk_writer_append(w, kWalks, kLengths, 3, &e),
            SLUICE_STATUS_OK);
  EXPECT_EQ(sluice_walk_writer_shuffle(w, 1, &e),
            SLUICE_STATUS_FAILED_PRECONDITION);
  EXPECT_STREQ(e.message, "shuffling must be asked for before the first walk "
                          "is appended (3 already are)");
  ASSERT_EQ(sluice_walk_writer_commit(w, &e), SLUICE_STATUS_OK);
  sluice_walk_writer_release(w);
  Npy npy = parseNpy(readFile(path));
  EXPECT_EQ(npy.descr, "<i4");
  ASSERT_EQ(npy.rows, 3u);
  std::vector<std::vector<int64_t>> rows,
      expected = {{0, 1, 2}, {3, 4, -1}, {5, -1, -1}};
  for (uint64_t r = 0; r < 3; ++r)
    rows.emplace_back(npy.values.begin() + r * 3,
                      npy.values.begin() + r * 3 + 3);
  std::sort(rows.begin(), rows.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(rows, expected);
  EXPECT_EQ(sluice_walk_writer_shuffle(nullptr, 1, &e),
            SLUICE_STATUS_INVALID_ARGUMENT);
}

TEST(WalkWriter, NpyInt32AndInt64WithPadding) {
  TempDir dir;
  for (auto format :
       {SLUICE_WALK_FORMAT_NPY_INT32, SLUICE_WALK_FORMAT_NPY_INT64}) {
    std::string path = dir.path("walks.npy");
    sluice_error_t e;
    ASSERT_EQ(sluice_walks_write(path.c_str(), format, kWalks, kLengths, 3, 3,
                                 0, nullptr, &e),
              SLUICE_STATUS_OK)
        << formatted(e);
    Npy npy = parseNpy(readFile(path));
    EXPECT_EQ(npy.descr,
              format == SLUICE_WALK_FORMAT_NPY_INT32 ? "<i4" : "<i8");
    EXPECT_FALSE(npy.fortranOrder);
    EXPECT_EQ(npy.rows, 3u);
    EXPECT_EQ(npy.columns, 3u);
    EXPECT_EQ(npy.dataOffset, 128u);
    EXPECT_EQ(npy.values, (std::vector<int64_t>{0, 1, 2, 3, 4, -1, 5, -1, -1}));
  }
  EXPECT_EQ(SLUICE_WALK_NPY_PADDING, -1);
}

/// Batches of many walks (their .npy rows span several of the writer's
/// 1 MiB blocks), with original ids of a one-based graph and without a
/// graph; an id above int32 without a graph is refused by name.
TEST(WalkWriter, NpyBatchesSpanningSeveralBlocks) {
  TempDir dir;
  writeFile(dir.path("b.el"), "1 2\n2 3\n3 4\n");
  Loaded body = load(dir.path("b.el"), options(SLUICE_GRAPH_FORMAT_MTX_BODY));
  ASSERT_EQ(body.status, SLUICE_STATUS_OK);
  const uint32_t n = 100000, length = 5;
  std::vector<uint32_t> walks(size_t(n) * length), lengths(n);
  for (uint32_t i = 0; i < n; ++i) {
    lengths[i] = i % (length + 1);
    for (uint32_t k = 0; k < lengths[i]; ++k)
      walks[size_t(i) * length + k] = (i + k) % 4;
  }
  for (auto format :
       {SLUICE_WALK_FORMAT_NPY_INT32, SLUICE_WALK_FORMAT_NPY_INT64}) {
    for (const sluice_graph_t *graph :
         {static_cast<const sluice_graph_t *>(body.graph.get()),
          static_cast<const sluice_graph_t *>(nullptr)}) {
      std::string path = dir.path("many.npy");
      sluice_error_t e;
      ASSERT_EQ(sluice_walks_write(path.c_str(), format, walks.data(),
                                   lengths.data(), n, length,
                                   graph ? SLUICE_WALK_WRITE_ORIGINAL_IDS : 0,
                                   graph, &e),
                SLUICE_STATUS_OK)
          << formatted(e);
      Npy npy = parseNpy(readFile(path));
      ASSERT_EQ(npy.rows, n);
      ASSERT_EQ(npy.values.size(), size_t(n) * length);
      size_t wrong = 0;
      for (uint32_t i = 0; i < n; ++i)
        for (uint32_t k = 0; k < length; ++k) {
          int64_t want = k < lengths[i] ? int64_t((i + k) % 4) + (graph ? 1 : 0)
                                        : int64_t(SLUICE_WALK_NPY_PADDING);
          wrong += npy.values[size_t(i) * length + k] != want;
        }
      EXPECT_EQ(wrong, 0u) << (graph ? "original ids" : "no graph");
    }
  }
  walks[size_t(70000) * length] = 0x80000000u;
  lengths[70000] = 1;
  std::string path = dir.path("big.npy");
  sluice_error_t e;
  EXPECT_EQ(sluice_walks_write(path.c_str(), SLUICE_WALK_FORMAT_NPY_INT32,
                               walks.data(), lengths.data(), n, length, 0,
                               nullptr, &e),
            SLUICE_STATUS_OUT_OF_RANGE);
  EXPECT_STREQ(e.message, "walk 70000, step 0: vertex id 2147483648 does not "
                          "fit in an int32 .npy file (use int64)");
  EXPECT_FALSE(fileExists(path));
}

TEST(WalkWriter, StreamingBatchesUpdateTheNpyShape) {
  TempDir dir;
  std::string path = dir.path("stream.npy");
  sluice_walk_writer_t *w = nullptr;
  sluice_error_t e;
  ASSERT_EQ(sluice_walk_writer_open(path.c_str(), SLUICE_WALK_FORMAT_NPY_INT64,
                                    3, 0, nullptr, &w, &e),
            SLUICE_STATUS_OK);
  for (int batch = 0; batch < 4; ++batch)
    ASSERT_EQ(sluice_walk_writer_append(w, kWalks, kLengths, 3, &e),
              SLUICE_STATUS_OK);
  EXPECT_EQ(sluice_walk_writer_num_walks(w), 12u);
  EXPECT_FALSE(fileExists(path)) << "nothing visible before commit";
  ASSERT_EQ(sluice_walk_writer_commit(w, &e), SLUICE_STATUS_OK);
  EXPECT_EQ(sluice_walk_writer_commit(w, &e),
            SLUICE_STATUS_FAILED_PRECONDITION);
  EXPECT_STREQ(e.message, "the walk writer is already committed");
  EXPECT_EQ(sluice_walk_writer_append(w, kWalks, kLengths, 1, &e),
            SLUICE_STATUS_FAILED_PRECONDITION);
  sluice_walk_writer_release(w);
  Npy npy = parseNpy(readFile(path));
  EXPECT_EQ(npy.rows, 12u);
  EXPECT_EQ(npy.values.size(), 36u);
  EXPECT_EQ(npy.values[33], 5);
  EXPECT_EQ(dir.list(), (std::vector<std::string>{"stream.npy"}));
}

TEST(WalkWriter, OriginalIds) {
  const uint32_t src[] = {0, 1}, dst[] = {1, 2};
  sluice_graph_t *raw = nullptr;
  ASSERT_EQ(sluice_graph_create_from_edges(3, 2, src, dst, nullptr, nullptr,
                                           nullptr, 0, &raw, nullptr),
            SLUICE_STATUS_OK);
  GraphPtr dense(raw);
  TempDir dir;
  writeFile(dir.path("g.txt"), "100 7\n7 3000000000000\n");
  Loaded sparse =
      load(dir.path("g.txt"),
           options(SLUICE_GRAPH_FORMAT_SNAP, SLUICE_GRAPH_LOAD_COMPACT_IDS));
  ASSERT_EQ(sparse.status, SLUICE_STATUS_OK);
  const uint32_t walk[] = {1, 0, 2};
  std::string text = dir.path("w.txt"), npy = dir.path("w.npy");
  sluice_error_t e;
  ASSERT_EQ(sluice_walks_write(text.c_str(), SLUICE_WALK_FORMAT_TEXT, walk,
                               nullptr, 1, 3, SLUICE_WALK_WRITE_ORIGINAL_IDS,
                               sparse.graph.get(), &e),
            SLUICE_STATUS_OK)
      << formatted(e);
  EXPECT_EQ(readFile(text), "100 7 3000000000000\n");
  ASSERT_EQ(sluice_walks_write(npy.c_str(), SLUICE_WALK_FORMAT_NPY_INT64, walk,
                               nullptr, 1, 3, SLUICE_WALK_WRITE_ORIGINAL_IDS,
                               sparse.graph.get(), &e),
            SLUICE_STATUS_OK);
  EXPECT_EQ(parseNpy(readFile(npy)).values,
            (std::vector<int64_t>{100, 7, 3000000000000LL}));

  // int32 cannot hold 3000000000000: the batch is refused, nothing written.
  std::string small = dir.path("w32.npy");
  EXPECT_EQ(sluice_walks_write(
                small.c_str(), SLUICE_WALK_FORMAT_NPY_INT32, walk, nullptr, 1,
                3, SLUICE_WALK_WRITE_ORIGINAL_IDS, sparse.graph.get(), &e),
            SLUICE_STATUS_OUT_OF_RANGE);
  EXPECT_STREQ(e.message, "walk 0, step 2: vertex id 3000000000000 does not "
                          "fit in an int32 .npy file (use int64)");
  EXPECT_FALSE(fileExists(small));
  // A walk that avoids that vertex fits (the graph's largest id does not
  // decide).
  const uint32_t fits[] = {1, 0, 1};
  ASSERT_EQ(sluice_walks_write(
                small.c_str(), SLUICE_WALK_FORMAT_NPY_INT32, fits, nullptr, 1,
                3, SLUICE_WALK_WRITE_ORIGINAL_IDS, sparse.graph.get(), &e),
            SLUICE_STATUS_OK)
      << formatted(e);
  EXPECT_EQ(parseNpy(readFile(small)).values,
            (std::vector<int64_t>{100, 7, 100}));

  // One-based graphs write their file ids.
  writeFile(dir.path("b.el"), "1 2\n2 3\n");
  Loaded body = load(dir.path("b.el"), options(SLUICE_GRAPH_FORMAT_MTX_BODY));
  ASSERT_EQ(sluice_walks_write(text.c_str(), SLUICE_WALK_FORMAT_TEXT, walk,
                               nullptr, 1, 3, SLUICE_WALK_WRITE_ORIGINAL_IDS,
                               body.graph.get(), &e),
            SLUICE_STATUS_OK);
  EXPECT_EQ(readFile(text), "2 1 3\n");
  EXPECT_EQ(sluice_walks_write(text.c_str(), SLUICE_WALK_FORMAT_TEXT, walk,
                               nullptr, 1, 3, 0, dense.get(), &e),
            SLUICE_STATUS_OK);
  EXPECT_EQ(readFile(text), "1 0 2\n");
}

/// A snap graph whose ids are `ids` (sorted and made unique here), in a
/// path, loaded with compacted ids: vertex i is ids[i].
Loaded pathOfIds(TempDir &dir, std::vector<uint64_t> &ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::string edges;
  for (size_t i = 0; i + 1 < ids.size(); ++i)
    edges += std::to_string(ids[i]) + " " + std::to_string(ids[i + 1]) + "\n";
  writeFile(dir.path("g.txt"), edges);
  return load(dir.path("g.txt"),
              options(SLUICE_GRAPH_FORMAT_SNAP, SLUICE_GRAPH_LOAD_COMPACT_IDS));
}

/// The text writer's id table (graphs of at most 2^18 vertices whose ids
/// are below 10^14: a copy per id of its text and a space) against
/// std::to_string: ids of every digit count up to the table's largest,
/// 10^14 - 1, walks of length 0 to 4; and the same walks on the graph with
/// one more vertex of id 10^14, which is formatted without the table.
TEST(WalkWriter, TextIdTableEqualsToString) {
  TempDir dir;
  for (uint64_t largest : {99999999999999ull, 100000000000000ull}) {
    std::vector<uint64_t> ids{0, 1, 5, 9};
    for (uint64_t p = 10; p < largest; p *= 10) {
      ids.push_back(p - 1);
      ids.push_back(p);
      ids.push_back(p + 1);
    }
    ids.push_back(largest);
    Loaded g = pathOfIds(dir, ids);
    ASSERT_EQ(g.status, SLUICE_STATUS_OK);
    const uint32_t n = static_cast<uint32_t>(ids.size());
    ASSERT_EQ(sluice_graph_num_vertices(g.graph.get()), n);
    const uint32_t width = 4, walks = 5000;
    std::vector<uint32_t> rows(size_t(walks) * width), lengths(walks);
    std::string want;
    for (uint32_t i = 0; i < walks; ++i) {
      lengths[i] = i % (width + 1);
      for (uint32_t k = 0; k < lengths[i]; ++k) {
        rows[size_t(i) * width + k] = (i * 7 + k * 3) % n;
        want +=
            (k ? " " : "") + std::to_string(ids[rows[size_t(i) * width + k]]);
      }
      want += '\n';
    }
    std::string path = dir.path("w.txt");
    sluice_error_t e;
    ASSERT_EQ(sluice_walks_write(path.c_str(), SLUICE_WALK_FORMAT_TEXT,
                                 rows.data(), lengths.data(), walks, width,
                                 SLUICE_WALK_WRITE_ORIGINAL_IDS, g.graph.get(),
                                 &e),
              SLUICE_STATUS_OK)
        << formatted(e);
    EXPECT_TRUE(readFile(path) == want) << "largest id " << largest;
  }
}

/// The text writer's own decimal formatting against std::to_string: every
/// digit count of 64-bit original ids (10^k - 1, 10^k, 10^k + 1 up to
/// 2^64 - 1), the dense ids of a 0- and a 1-based graph, walks of every
/// length 0 to 3, and batches whose text (about 12 MB) spans many of the
/// writer's 1 MiB blocks, written in two appends.
TEST(WalkWriter, TextDigitsEqualToStringOnEveryDigitCount) {
  TempDir dir;
  std::vector<uint64_t> ids{0, 1, 2, 9, 10, 11};
  for (uint64_t p = 100; p <= 1000000000000000000ull; p *= 10) {
    ids.push_back(p - 1);
    ids.push_back(p);
    ids.push_back(p + 1);
  }
  ids.push_back(UINT32_MAX);
  ids.push_back(uint64_t(UINT32_MAX) + 1);
  ids.push_back(10000000000000000000ull);
  ids.push_back(UINT64_MAX - 1);
  ids.push_back(UINT64_MAX);
  Loaded sparse = pathOfIds(dir, ids);
  ASSERT_EQ(sparse.status, SLUICE_STATUS_OK);
  const uint32_t n = static_cast<uint32_t>(ids.size());
  ASSERT_EQ(sluice_graph_num_vertices(sparse.graph.get()), n);
  writeFile(dir.path("b.el"), "1 2\n2 3\n");
  Loaded oneBased =
      load(dir.path("b.el"), options(SLUICE_GRAPH_FORMAT_MTX_BODY));
  ASSERT_EQ(oneBased.status, SLUICE_STATUS_OK);

  // Walks of width 3 over vertices 0..n-1 (lengths cycle 3, 0, 1, 2).
  const uint32_t width = 3, walks = 700000;
  std::vector<uint32_t> rows(size_t(walks) * width), lengths(walks);
  uint64_t state = 12345;
  for (uint32_t i = 0; i < walks; ++i) {
    lengths[i] = (i + 3) % 4;
    for (uint32_t k = 0; k < width; ++k) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      rows[size_t(i) * width + k] = uint32_t(state >> 33) % n;
    }
  }
  auto expected = [&](auto idOf) {
    std::string text;
    for (uint32_t i = 0; i < walks; ++i) {
      for (uint32_t k = 0; k < lengths[i]; ++k)
        text +=
            (k ? " " : "") + std::to_string(idOf(rows[size_t(i) * width + k]));
      text += '\n';
    }
    return text;
  };
  auto written = [&](uint32_t flags, const sluice_graph_t *graph) {
    std::string path = dir.path("w.txt");
    sluice_error_t e;
    sluice_walk_writer_t *w = nullptr;
    EXPECT_EQ(sluice_walk_writer_open(path.c_str(), SLUICE_WALK_FORMAT_TEXT,
                                      width, flags, graph, &w, &e),
              SLUICE_STATUS_OK);
    const uint32_t half = walks / 2;
    EXPECT_EQ(
        sluice_walk_writer_append(w, rows.data(), lengths.data(), half, &e),
        SLUICE_STATUS_OK);
    EXPECT_EQ(sluice_walk_writer_append(w, rows.data() + size_t(half) * width,
                                        lengths.data() + half, walks - half,
                                        &e),
              SLUICE_STATUS_OK);
    EXPECT_EQ(sluice_walk_writer_commit(w, &e), SLUICE_STATUS_OK)
        << formatted(e);
    sluice_walk_writer_release(w);
    return readFile(path);
  };
  std::string big = written(SLUICE_WALK_WRITE_ORIGINAL_IDS, sparse.graph.get());
  EXPECT_GT(big.size(), size_t(8) << 20);
  EXPECT_TRUE(big == expected([&](uint32_t v) { return ids[v]; }))
      << "original ids differ from std::to_string's";
  EXPECT_TRUE(written(0, nullptr) == expected([](uint32_t v) { return v; }))
      << "dense ids differ from std::to_string's";
  // Without a graph any 32-bit value is written as it is: random ones, of
  // every width.
  for (uint32_t &v : rows) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v = uint32_t(state >> 32) >> (state % 32);
  }
  EXPECT_TRUE(written(0, nullptr) == expected([](uint32_t v) { return v; }))
      << "32-bit ids differ from std::to_string's";
  // The 1-based graph has 3 vertices: its rows keep to them.
  for (uint32_t &v : rows)
    v %= 3;
  EXPECT_TRUE(written(SLUICE_WALK_WRITE_ORIGINAL_IDS, oneBased.graph.get()) ==
              expected([](uint32_t v) { return uint64_t(v) + 1; }))
      << "1-based ids differ from std::to_string's";
}

TEST(WalkWriter, InvalidBatchesAreRejectedWholeAndTheWriterStaysUsable) {
  const uint32_t src[] = {0, 1}, dst[] = {1, 2};
  sluice_graph_t *raw = nullptr;
  ASSERT_EQ(sluice_graph_create_from_edges(3, 2, src, dst, nullptr, nullptr,
                                           nullptr, 0, &raw, nullptr),
            SLUICE_STATUS_OK);
  GraphPtr g(raw);
  TempDir dir;
  std::string path = dir.path("w.txt");
  sluice_walk_writer_t *w = nullptr;
  sluice_error_t e;
  ASSERT_EQ(sluice_walk_writer_open(path.c_str(), SLUICE_WALK_FORMAT_TEXT, 3, 0,
                                    g.get(), &w, &e),
            SLUICE_STATUS_OK);
  const uint32_t tooLong[] = {3, 4, 1};
  EXPECT_EQ(sluice_walk_writer_append(w, kWalks, tooLong, 3, &e),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(e.message, "walk 1 has 4 vertices, more than the walk length 3");
  const uint32_t bad[] = {0, 1, 9};
  EXPECT_EQ(sluice_walk_writer_append(w, bad, nullptr, 1, &e),
            SLUICE_STATUS_OUT_OF_RANGE);
  EXPECT_STREQ(e.message,
               "walk 0, step 2: vertex 9 is not in the graph (3 vertices)");
  const uint32_t good[] = {0, 1, 2};
  ASSERT_EQ(sluice_walk_writer_append(w, good, nullptr, 1, &e),
            SLUICE_STATUS_OK);
  EXPECT_EQ(sluice_walk_writer_append(w, nullptr, nullptr, 1, &e),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(e.message, "vertices is NULL");
  ASSERT_EQ(sluice_walk_writer_commit(w, &e), SLUICE_STATUS_OK);
  sluice_walk_writer_release(w);
  EXPECT_EQ(readFile(path), "0 1 2\n");
}

TEST(WalkWriter, OpenArguments) {
  TempDir dir;
  std::string path = dir.path("w.txt");
  sluice_walk_writer_t *w = nullptr;
  sluice_error_t e;
  EXPECT_EQ(sluice_walk_writer_open(path.c_str(), SLUICE_WALK_FORMAT_TEXT, 0, 0,
                                    nullptr, &w, &e),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(e.message, "the walk length must be at least 1");
  EXPECT_EQ(sluice_walk_writer_open(path.c_str(), SLUICE_WALK_FORMAT_TEXT, 3,
                                    SLUICE_WALK_WRITE_ORIGINAL_IDS, nullptr, &w,
                                    &e),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(e.message, "original ids need the graph");
  EXPECT_EQ(sluice_walk_writer_open(path.c_str(),
                                    static_cast<sluice_walk_format_t>(5), 3, 0,
                                    nullptr, &w, &e),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(e.message, "unknown walk format 5");
  EXPECT_EQ(sluice_walk_writer_open(path.c_str(), SLUICE_WALK_FORMAT_TEXT, 3, 4,
                                    nullptr, &w, &e),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(e.message, "unknown walk writer flags 0x4");
  EXPECT_EQ(sluice_walk_writer_open(nullptr, SLUICE_WALK_FORMAT_TEXT, 3, 0,
                                    nullptr, &w, &e),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(w, nullptr);
  EXPECT_TRUE(dir.list().empty());
  sluice_walk_writer_release(nullptr);
  EXPECT_EQ(sluice_walk_writer_num_walks(nullptr), 0u);
}

TEST(WalkWriter, ReleaseWithoutCommitLeavesNothing) {
  TempDir dir;
  std::string path = dir.path("w.npy");
  writeFile(path, "previous run");
  sluice_walk_writer_t *w = nullptr;
  ASSERT_EQ(sluice_walk_writer_open(path.c_str(), SLUICE_WALK_FORMAT_NPY_INT32,
                                    3, 0, nullptr, &w, nullptr),
            SLUICE_STATUS_OK);
  ASSERT_EQ(sluice_walk_writer_append(w, kWalks, kLengths, 3, nullptr),
            SLUICE_STATUS_OK);
  EXPECT_EQ(dir.list().size(), 2u) << "the temporary exists while writing";
  sluice_walk_writer_release(w);
  EXPECT_EQ(dir.list(), (std::vector<std::string>{"w.npy"}));
  EXPECT_EQ(readFile(path), "previous run");
}

TEST(WalkWriter, RefusesToOverwriteTheGraphsInputFiles) {
  TempDir dir;
  const std::string graphText = "0 1\n1 2\n2 3\n3 4\n4 5\n5 0\n";
  writeFile(dir.path("g.txt"), graphText);
  writeFile(dir.path("g.labels"), "0 1\n");
  sluice_graph_load_options_t o = options(SLUICE_GRAPH_FORMAT_SNAP);
  const std::string labels = dir.path("g.labels");
  o.vertex_labels_path = labels.c_str();
  Loaded r = load(dir.path("g.txt"), o);
  ASSERT_EQ(r.status, SLUICE_STATUS_OK) << formatted(r.error);
  ASSERT_EQ(link(dir.path("g.txt").c_str(), dir.path("hard.txt").c_str()), 0);
  ASSERT_EQ(symlink("g.txt", dir.path("soft.txt").c_str()), 0);
  const std::vector<std::string> before = dir.list();
  // The graph file itself, through "./", a hard link and a symbolic link,
  // and the label file: refused before anything is created.
  for (const std::string &out :
       {dir.path("g.txt"), dir.root() + "/./g.txt", dir.path("hard.txt"),
        dir.path("soft.txt"), dir.path("g.labels")}) {
    sluice_walk_writer_t *w = nullptr;
    sluice_error_t e;
    EXPECT_EQ(sluice_walk_writer_open(out.c_str(), SLUICE_WALK_FORMAT_TEXT, 3,
                                      0, r.graph.get(), &w, &e),
              SLUICE_STATUS_INVALID_ARGUMENT)
        << out;
    EXPECT_EQ(w, nullptr);
    const std::string input =
        out == dir.path("g.labels") ? labels : dir.path("g.txt");
    EXPECT_EQ(formatted(e), out +
                                ": the walk output is the file the graph was "
                                "read from ('" +
                                input + "'); refusing to overwrite it");
    EXPECT_EQ(sluice_walks_write(out.c_str(), SLUICE_WALK_FORMAT_NPY_INT32,
                                 kWalks, kLengths, 3, 3, 0, r.graph.get(), &e),
              SLUICE_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(sluice_graph_write_binary(r.graph.get(), out.c_str(), &e),
              SLUICE_STATUS_INVALID_ARGUMENT)
        << out;
    EXPECT_NE(std::string(e.message).find("the binary graph output is the "
                                          "file the graph was read from"),
              std::string::npos)
        << e.message;
  }
  EXPECT_EQ(dir.list(), before) << "no temporary was created";
  EXPECT_EQ(readFile(dir.path("g.txt")), graphText);
  // Another file is fine, and so is a copy with the same content.
  writeFile(dir.path("copy.txt"), graphText);
  EXPECT_EQ(sluice_walks_write(dir.path("copy.txt").c_str(),
                               SLUICE_WALK_FORMAT_TEXT, kWalks, kLengths, 3, 3,
                               0, r.graph.get(), nullptr),
            SLUICE_STATUS_OK);
  // A binary graph: its own file is an input too.
  const std::string binary = dir.path("g.scsr");
  ASSERT_EQ(sluice_graph_write_binary(r.graph.get(), binary.c_str(), nullptr),
            SLUICE_STATUS_OK);
  Loaded mapped = load(binary, options(SLUICE_GRAPH_FORMAT_BINARY));
  ASSERT_EQ(mapped.status, SLUICE_STATUS_OK) << formatted(mapped.error);
  EXPECT_EQ(sluice_walks_write(binary.c_str(), SLUICE_WALK_FORMAT_TEXT, kWalks,
                               kLengths, 3, 3, 0, mapped.graph.get(), nullptr),
            SLUICE_STATUS_INVALID_ARGUMENT);
  // A graph built from arrays has no input file.
  const uint32_t src[] = {0}, dst[] = {1};
  sluice_graph_t *arrays = nullptr;
  ASSERT_EQ(sluice_graph_create_from_edges(6, 1, src, dst, nullptr, nullptr,
                                           nullptr, 0, &arrays, nullptr),
            SLUICE_STATUS_OK);
  GraphPtr owned(arrays);
  EXPECT_EQ(sluice_walks_write(dir.path("g.txt").c_str(),
                               SLUICE_WALK_FORMAT_TEXT, kWalks, kLengths, 3, 3,
                               0, arrays, nullptr),
            SLUICE_STATUS_OK);
}

/// Every step of the commit is checked (AtomicFile: fsync, close, rename,
/// then fsync of the directory): an error in any of them fails it. Before
/// the rename the previous file stays and the temporary goes; after it the
/// new file is in place, but the caller learns that it may not be durable.
TEST(WalkWriter, CommitChecksFsyncCloseRenameAndTheDirectorysFsync) {
  using sluice::test::failSyscall;
  using sluice::test::PathMatch;
  using sluice::test::Syscall;
  sluice::test::SyscallFaultScope scope;
  TempDir dir;
  char real[PATH_MAX];
  ASSERT_NE(realpath(dir.root().c_str(), real), nullptr);
  const std::string root = real, path = root + "/w.txt";
  const std::string newText = "0 1 2\n3 4\n5\n";
  auto write = [&](sluice_error_t &e) {
    return sluice_walks_write(path.c_str(), SLUICE_WALK_FORMAT_TEXT, kWalks,
                              kLengths, 3, 3, 0, nullptr, &e);
  };
  struct Case {
    Syscall call;
    std::string path;
    PathMatch match;
    std::string message;
  } beforeRename[] = {
      {Syscall::Fsync, "/.w.txt.tmp-", PathMatch::Contains,
       "cannot flush to disk (fsync): Input/output error"},
      {Syscall::Close, "/.w.txt.tmp-", PathMatch::Contains,
       "cannot close: Input/output error"},
      {Syscall::Rename, path, PathMatch::Exactly,
       "cannot rename the finished file: Input/output error"},
  };
  for (const Case &c : beforeRename) {
    writeFile(path, "previous run");
    const uint64_t fired = sluice::test::syscallFaultsFired();
    failSyscall(c.call, EIO, c.path, 0, c.match);
    sluice_error_t e;
    EXPECT_EQ(write(e), SLUICE_STATUS_IO_ERROR) << c.message;
    EXPECT_EQ(sluice::test::syscallFaultsFired(), fired + 1) << c.message;
    EXPECT_EQ(formatted(e), path + ": " + c.message);
    EXPECT_EQ(readFile(path), "previous run") << c.message;
    EXPECT_EQ(dir.list(), (std::vector<std::string>{"w.txt"})) << c.message;
  }
  // The directory's fsync fails after the rename: the commit fails, the
  // writer with it; the new content is in place.
  writeFile(path, "previous run");
  failSyscall(Syscall::Fsync, EIO, root, 0, PathMatch::Exactly);
  sluice_walk_writer_t *w = nullptr;
  sluice_error_t e;
  ASSERT_EQ(sluice_walk_writer_open(path.c_str(), SLUICE_WALK_FORMAT_TEXT, 3, 0,
                                    nullptr, &w, &e),
            SLUICE_STATUS_OK);
  ASSERT_EQ(sluice_walk_writer_append(w, kWalks, kLengths, 3, &e),
            SLUICE_STATUS_OK);
  EXPECT_EQ(sluice_walk_writer_commit(w, &e), SLUICE_STATUS_IO_ERROR);
  EXPECT_EQ(formatted(e), path +
                              ": the file is in place but flushing (fsync) "
                              "its directory '" +
                              root +
                              "' failed, so it may not survive a crash: "
                              "Input/output error");
  EXPECT_EQ(sluice_walk_writer_commit(w, &e),
            SLUICE_STATUS_FAILED_PRECONDITION);
  sluice_walk_writer_release(w);
  EXPECT_EQ(readFile(path), newText);
  EXPECT_EQ(dir.list(), (std::vector<std::string>{"w.txt"}));
  // ... and the same for a binary graph, and for the directory's close.
  const uint32_t src[] = {0}, dst[] = {1};
  sluice_graph_t *g = nullptr;
  ASSERT_EQ(sluice_graph_create_from_edges(2, 1, src, dst, nullptr, nullptr,
                                           nullptr, 0, &g, nullptr),
            SLUICE_STATUS_OK);
  GraphPtr owned(g);
  failSyscall(Syscall::Close, EIO, root, 0, PathMatch::Exactly);
  EXPECT_EQ(sluice_graph_write_binary(g, (root + "/g.scsr").c_str(), &e),
            SLUICE_STATUS_IO_ERROR);
  EXPECT_NE(std::string(e.message).find("the file is in place but closing its "
                                        "directory"),
            std::string::npos)
      << e.message;
  // A file system that cannot fsync a directory (EINVAL) is not an error.
  failSyscall(Syscall::Fsync, EINVAL, root, 0, PathMatch::Exactly);
  EXPECT_EQ(write(e), SLUICE_STATUS_OK) << e.message;
  EXPECT_EQ(readFile(path), newText);
}

/// A killed writer leaves its temporary; the next writer of the same file
/// removes it, and only it: not a live process's, not another file's, not a
/// name that merely looks similar, not a link or a directory.
TEST(WalkWriter, TemporariesOfDeadProcessesAreRemoved) {
  TempDir dir;
  const std::string path = dir.path("w.txt");
  // A writer that dies before committing (10 MB appended, no commit).
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::vector<uint32_t> walks(80 * 30000, 7);
    sluice_walk_writer_t *w = nullptr;
    bool ok =
        sluice_walk_writer_open(path.c_str(), SLUICE_WALK_FORMAT_NPY_INT32, 80,
                                0, nullptr, &w, nullptr) == SLUICE_STATUS_OK &&
        sluice_walk_writer_append(w, walks.data(), nullptr, 30000, nullptr) ==
            SLUICE_STATUS_OK;
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const std::string dead = std::to_string(child);
  // ".w.txt.tmp-<pid>-<n>" (n counts this process's temporaries).
  ASSERT_EQ(dir.list().size(), 1u);
  EXPECT_EQ(dir.list()[0].rfind(".w.txt.tmp-" + dead + "-", 0), 0u)
      << dir.list()[0];
  // Names that must stay.
  const std::string live = std::to_string(getppid());
  const std::vector<std::string> kept = {
      ".w.txt.tmp-" + live + "-1",     // its process is alive
      ".w.txt.tmp-" + dead + "-x",     // not our pattern
      ".w.txt.tmp-" + dead,            // no serial number
      ".other.txt.tmp-" + dead + "-0", // another file's
      "w.txt.tmp-" + dead + "-0",      // not hidden
      ".w.txt.tmp-0" + dead + "-0",    // not a pid
  };
  for (const std::string &name : kept)
    writeFile(dir.path(name), "x");
  const std::string link = ".w.txt.tmp-" + dead + "-8";
  const std::string folder = ".w.txt.tmp-" + dead + "-9";
  ASSERT_EQ(symlink("w.txt", dir.path(link).c_str()), 0);
  ASSERT_EQ(mkdir(dir.path(folder).c_str(), 0755), 0);
  ASSERT_EQ(sluice_walks_write(path.c_str(), SLUICE_WALK_FORMAT_TEXT, kWalks,
                               kLengths, 3, 3, 0, nullptr, nullptr),
            SLUICE_STATUS_OK);
  std::vector<std::string> want = kept;
  want.push_back(link);
  want.push_back(folder);
  want.push_back("w.txt");
  std::sort(want.begin(), want.end());
  EXPECT_EQ(dir.list(), want);
}

TEST(WalkWriter, UnwritableDirectory) {
  TempDir dir;
  std::string path = dir.path("missing/w.txt");
  sluice_error_t e;
  EXPECT_EQ(sluice_walks_write(path.c_str(), SLUICE_WALK_FORMAT_TEXT, kWalks,
                               kLengths, 3, 3, 0, nullptr, &e),
            SLUICE_STATUS_NOT_FOUND);
  EXPECT_EQ(std::string(e.message), "cannot create a file in directory '" +
                                        dir.path("missing") +
                                        "': No such file or directory");
  EXPECT_TRUE(dir.list().empty());
  // A read-only file system: /proc refuses new files even to root.
  EXPECT_NE(sluice_walks_write("/proc/sluice-walks.txt",
                               SLUICE_WALK_FORMAT_TEXT, kWalks, kLengths, 3, 3,
                               0, nullptr, &e),
            SLUICE_STATUS_OK);
  EXPECT_FALSE(fileExists("/proc/sluice-walks.txt"));
}

TEST(WalkWriter, WriteErrorMidStreamFailsTheWriterAndLeavesNoFile) {
  TempDir dir;
  std::string path = dir.path("big.npy");
  std::vector<uint32_t> walks(80 * 4000, 7);
  sluice_walk_writer_t *w = nullptr;
  sluice_error_t e;
  ASSERT_EQ(sluice_walk_writer_open(path.c_str(), SLUICE_WALK_FORMAT_NPY_INT64,
                                    80, 0, nullptr, &w, &e),
            SLUICE_STATUS_OK);
  struct rlimit saved;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  struct rlimit small = saved;
  small.rlim_cur = 64 * 1024;
  auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  // 4000 walks x 80 x 8 bytes = 2.5 MB: past the 1 MiB buffer and the limit.
  sluice_status_t status =
      sluice_walk_writer_append(w, walks.data(), nullptr, 4000, &e);
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, oldHandler);
  EXPECT_EQ(status, SLUICE_STATUS_IO_ERROR);
  EXPECT_STREQ(e.message, "cannot write: File too large");
  EXPECT_TRUE(dir.list().empty()) << "the temporary is gone at once";
  EXPECT_EQ(sluice_walk_writer_append(w, walks.data(), nullptr, 1, &e),
            SLUICE_STATUS_FAILED_PRECONDITION);
  EXPECT_STREQ(e.message, "the walk writer failed earlier; release it");
  EXPECT_EQ(sluice_walk_writer_commit(w, &e),
            SLUICE_STATUS_FAILED_PRECONDITION);
  sluice_walk_writer_release(w);
  EXPECT_TRUE(dir.list().empty());
}

} // namespace
