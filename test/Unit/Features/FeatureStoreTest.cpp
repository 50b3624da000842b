//===- FeatureStoreTest.cpp - The tiered feature store --------------------===//
//
// Placement order against a sort written here; gathers (random ids with
// duplicates) against the rows computed from the file's definition, in
// memory and through O_DIRECT on both I/O backends, for row sizes smaller
// than, straddling and equal to a 4 KiB block; merging; injected faults;
// many tickets in flight; the bad-argument messages.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/features/FeatureStore.h"

#include "test/Unit/Features/FeatureTestUtil.h"
#include "test/Unit/Offload/IoBackends.h"
#include "test/Unit/Offload/TestDir.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <numeric>
#include <random>
#include <thread>

using namespace sluice::rt::features;
using sluice::test::featureValue;
using sluice::test::ScratchDir;
using sluice::test::writeFeatures;

namespace {

/// Expects `out` (n rows) to hold rows `ids` of the test array.
void expectRows(const std::vector<uint32_t> &ids, const std::vector<float> &out,
                uint64_t dim, const std::string &what) {
  for (size_t i = 0; i < ids.size(); ++i)
    for (uint64_t c = 0; c < dim; ++c)
      if (out[i * dim + c] != featureValue(ids[i], c, dim)) {
        ADD_FAILURE() << what << ": position " << i << " (row " << ids[i]
                      << "), column " << c << ": " << out[i * dim + c]
                      << " != " << featureValue(ids[i], c, dim);
        return;
      }
}

std::vector<uint32_t> randomIds(size_t n, uint64_t rows, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> ids(n);
  for (uint32_t &id : ids)
    id = static_cast<uint32_t>(rng() % rows);
  // Duplicates on purpose: the first few ids again.
  for (size_t i = 0; i + 8 < n && i < 8; ++i)
    ids[n - 1 - i] = ids[i];
  return ids;
}

std::unique_ptr<FeatureStore> openStore(const FeatureStoreOptions &o) {
  std::string error;
  auto store = FeatureStore::open(o, error);
  EXPECT_TRUE(store) << error;
  return store;
}

TEST(FeaturePlacement, HottestFirstTiesById) {
  CachePlacement p;
  std::string error;
  std::vector<double> counts = {1, 5, 3, 5, 0, 3, 9};
  ASSERT_TRUE(placeRows(7, counts, 2, 3, p, error)) << error;
  // Written out by hand: 9 (6); 5 (1, 3); 3 (2, 5); 1 (0); 0 (4).
  EXPECT_EQ(p.order, (std::vector<uint32_t>{6, 1, 3, 2, 5, 0, 4}));
  EXPECT_EQ(p.deviceRows, 2u);
  EXPECT_EQ(p.hostRows, 3u);
  // Uniform: id order; capacities clamp to the rows there are.
  ASSERT_TRUE(placeRows(4, {}, 3, 10, p, error));
  EXPECT_EQ(p.order, (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(p.deviceRows, 3u);
  EXPECT_EQ(p.hostRows, 1u);
}

TEST(FeaturePlacement, MatchesASortOfRandomCounts) {
  std::mt19937_64 rng(7);
  std::vector<double> counts(5000);
  for (double &c : counts)
    c = double(rng() % 50); // many ties
  CachePlacement p;
  std::string error;
  ASSERT_TRUE(placeRows(counts.size(), counts, 100, 900, p, error));
  std::vector<std::pair<double, uint32_t>> want;
  for (uint32_t i = 0; i < counts.size(); ++i)
    want.push_back({-counts[i], i});
  std::sort(want.begin(), want.end());
  for (size_t k = 0; k < want.size(); ++k)
    ASSERT_EQ(p.order[k], want[k].second) << "rank " << k;
}

TEST(FeaturePlacement, BadCounts) {
  CachePlacement p;
  std::string error;
  EXPECT_FALSE(placeRows(3, {1, 2}, 0, 0, p, error));
  EXPECT_EQ(error, "expected access counts: 2 values for 3 rows");
  EXPECT_FALSE(placeRows(3, {1, -2, 0}, 0, 0, p, error));
  EXPECT_EQ(error, "expected access count of row 1 is -2.000000; counts must "
                   "be finite and >= 0");
  EXPECT_FALSE(placeRows(2, {1, std::nan("")}, 0, 0, p, error));
  EXPECT_EQ(error, "expected access count of row 1 is nan; counts must be "
                   "finite and >= 0");
}

TEST(FeatureStore, TiersFollowTheCountsAndTheHostBudget) {
  ScratchDir dir;
  const uint64_t rows = 1000, dim = 128; // 512-byte rows
  std::string path = dir.file("features.npy");
  writeFeatures(path, rows, dim, true);
  FeatureStoreOptions o;
  o.path = path;
  o.rows = rows;
  o.dim = dim;
  o.hostCacheBytes = 100 * 512 + 511; // 100 rows
  o.deviceCacheBytes = 64 << 20;      // skipped without a GPU
  o.expectedAccesses.resize(rows);
  for (uint64_t r = 0; r < rows; ++r)
    o.expectedAccesses[r] = double((r * 7919) % 1000);
  auto store = openStore(o);
  ASSERT_TRUE(store);
  if (store->deviceBytes() == 0) {
    EXPECT_NE(store->deviceNote(), "");
  }
  CachePlacement p;
  std::string error;
  uint64_t deviceRows = store->deviceBytes() / 512;
  ASSERT_TRUE(placeRows(rows, o.expectedAccesses, deviceRows, 100, p, error));
  for (uint64_t k = 0; k < rows; ++k) {
    Tier want = k < deviceRows         ? Tier::Device
                : k < deviceRows + 100 ? Tier::Host
                                       : Tier::File;
    uint32_t id = p.order[k];
    // The last rows of a file whose end is not block-aligned are pinned
    // in host memory (they cannot be read with O_DIRECT).
    if (want == Tier::File && 128 + (uint64_t(id) + 1) * 512 > 128 + 999 * 512)
      want = Tier::Host;
    EXPECT_EQ(store->tierOf(id), want) << "row " << id << ", rank " << k;
  }
  EXPECT_GE(store->hostBytes(), 100u * 512);
  EXPECT_LE(store->hostBytes(), 101u * 512);
}

struct GatherCase {
  uint64_t rows, dim;
  bool npy;
};

class FeatureGather : public testing::TestWithParam<sluice_io_backend_t> {};

TEST_P(FeatureGather, RandomIdsMatchTheFileInMemoryAndDirect) {
  ScratchDir dir;
  const GatherCase cases[] = {
      {3000, 128, true},   // 512-byte rows, header of 128 bytes
      {2000, 1000, false}, // 4000-byte rows straddling blocks
      {700, 1024, true},   // one 4 KiB row, misaligned by the header
      {5000, 16, false},   // 64-byte rows
  };
  for (const GatherCase &g : cases) {
    std::string path = dir.file(g.npy ? "f.npy" : "f.f32");
    writeFeatures(path, g.rows, g.dim, g.npy);
    for (bool direct : {false, true}) {
      FeatureStoreOptions o;
      o.path = path;
      o.rows = g.rows;
      o.dim = g.dim;
      o.direct = direct;
      o.backend = GetParam();
      o.hostCacheBytes = g.rows / 5 * g.dim * 4; // a fifth cached
      o.queueDepth = 16;
      auto store = openStore(o);
      ASSERT_TRUE(store);
      std::string what = path + (direct ? " direct" : " in memory") + ", dim " +
                         std::to_string(g.dim);
      for (uint64_t seed = 1; seed <= 3; ++seed) {
        std::vector<uint32_t> ids = randomIds(257, g.rows, seed);
        ids.push_back(static_cast<uint32_t>(g.rows - 1)); // the last row
        std::vector<float> out(ids.size() * g.dim, -1.0f);
        auto t = store->submit(ids.data(), ids.size(), out.data());
        // The caller may poll while it works; the reads finish on their own.
        while (!store->poll(t))
          std::this_thread::yield();
        std::string error;
        ASSERT_TRUE(store->wait(t, error)) << what << ": " << error;
        expectRows(ids, out, g.dim, what);
      }
      FeatureStoreStats s = store->stats();
      EXPECT_EQ(s.hostHits + s.deviceHits + s.fileRows, 3u * 258) << what;
      EXPECT_EQ(s.failedTickets, 0u);
      if (direct) {
        EXPECT_GT(s.fileRows, 0u) << what;
        EXPECT_LE(s.fileRequests, s.fileRows) << what;
        EXPECT_GE(s.fileBytes, s.fileRequests * 4096) << what;
        EXPECT_GT(s.ioBusyNs, 0u) << what;
      } else {
        EXPECT_EQ(s.fileRows, 0u) << what;
      }
    }
  }
}

TEST_P(FeatureGather, RowsInOneBlockAreOneRead) {
  ScratchDir dir;
  std::string path = dir.file("f.f32");
  writeFeatures(path, 4096, 128, false); // 8 rows per block
  FeatureStoreOptions o;
  o.path = path;
  o.rows = 4096;
  o.dim = 128;
  o.backend = GetParam();
  auto store = openStore(o);
  ASSERT_TRUE(store);
  // Rows 8..15 (block 1), twice, in a scrambled order: one 4 KiB read.
  std::vector<uint32_t> ids = {13, 8, 15, 9, 8, 14, 10, 11, 12, 15};
  std::vector<float> out(ids.size() * 128);
  std::string error;
  ASSERT_TRUE(
      store->wait(store->submit(ids.data(), ids.size(), out.data()), error))
      << error;
  expectRows(ids, out, 128, "one block");
  EXPECT_EQ(store->stats().fileRequests, 1u);
  EXPECT_EQ(store->stats().fileBytes, 4096u);
  // Blocks 2, 3 and 5: 2 and 3 touch and merge, 5 is a second read.
  ids = {16, 31, 40, 24};
  out.assign(ids.size() * 128, 0);
  ASSERT_TRUE(
      store->wait(store->submit(ids.data(), ids.size(), out.data()), error))
      << error;
  expectRows(ids, out, 128, "adjacent blocks");
  EXPECT_EQ(store->stats().fileRequests, 3u);
}

TEST_P(FeatureGather, InjectedFaultsFailTheTicketOnly) {
  ScratchDir dir;
  std::string path = dir.file("features.npy");
  writeFeatures(path, 2000, 128, true);
  FeatureStoreOptions o;
  o.path = path;
  o.rows = 2000;
  o.dim = 128;
  o.backend = GetParam();
  o.hostCacheBytes = 200 * 512; // rows 0..199 cached
  auto store = openStore(o);
  ASSERT_TRUE(store);
  std::vector<uint32_t> ids = {5, 1000, 1500, 7, 1999, 1200};
  for (sluice_io_fault_t fault : {SLUICE_IO_FAULT_EIO, SLUICE_IO_FAULT_ZERO}) {
    sluice_io_engine_inject_fault(store->engine(), 1, fault);
    std::vector<float> out(ids.size() * 128, 0);
    std::string error;
    EXPECT_FALSE(
        store->wait(store->submit(ids.data(), ids.size(), out.data()), error));
    EXPECT_NE(error.find(path + ": ticket "), std::string::npos) << error;
    EXPECT_NE(error.find(" (6 rows, 3 from the file): request 1: read of "
                         "4096 bytes at offset 614400 failed at offset 614400 "
                         "after 0 bytes: "),
              std::string::npos)
        << error;
    EXPECT_NE(error.find(fault == SLUICE_IO_FAULT_EIO
                             ? "Input/output error"
                             : "unexpected end of file"),
              std::string::npos)
        << error;
    // Cached rows are right; file rows are NaN, never stale bytes.
    expectRows({5}, std::vector<float>(out.begin(), out.begin() + 128), 128,
               "cached row of a failed ticket");
    for (size_t i : {1, 2, 5})
      for (size_t c = 0; c < 128; ++c)
        ASSERT_TRUE(std::isnan(out[i * 128 + c])) << "position " << i;
    // The store goes on.
    out.assign(out.size(), 0);
    ASSERT_TRUE(
        store->wait(store->submit(ids.data(), ids.size(), out.data()), error))
        << error;
    expectRows(ids, out, 128, "after a fault");
  }
  // A short transfer is retried, not an error.
  sluice_io_engine_inject_fault(store->engine(), 0, SLUICE_IO_FAULT_SHORT);
  std::vector<float> out(ids.size() * 128, 0);
  std::string error;
  ASSERT_TRUE(
      store->wait(store->submit(ids.data(), ids.size(), out.data()), error))
      << error;
  expectRows(ids, out, 128, "short transfer");
  EXPECT_EQ(store->stats().failedTickets, 2u);
}

TEST_P(FeatureGather, ManyTicketsInFlight) {
  ScratchDir dir;
  std::string path = dir.file("f.f32");
  writeFeatures(path, 20000, 64, false);
  FeatureStoreOptions o;
  o.path = path;
  o.rows = 20000;
  o.dim = 64;
  o.backend = GetParam();
  o.maxTickets = 8;
  o.hostCacheBytes = 1000 * 256;
  auto store = openStore(o);
  ASSERT_TRUE(store);
  for (int round = 0; round < 3; ++round) {
    std::vector<std::vector<uint32_t>> ids(8);
    std::vector<std::vector<float>> outs(8);
    std::vector<FeatureStore::Ticket> tickets;
    for (size_t k = 0; k < 8; ++k) {
      ids[k] = randomIds(100 + 37 * k, 20000, 100 * round + k);
      outs[k].assign(ids[k].size() * 64, 0);
      tickets.push_back(
          store->submit(ids[k].data(), ids[k].size(), outs[k].data()));
    }
    // A ninth is refused while eight are in flight.
    std::vector<float> extra(64);
    uint32_t one = 3;
    auto ninth = store->submit(&one, 1, extra.data());
    std::string error;
    EXPECT_FALSE(store->wait(ninth, error));
    EXPECT_EQ(error, path + ": ticket " + std::to_string(ninth) +
                         ": 8 tickets are already in flight; wait for one "
                         "first");
    // Completed in any order.
    for (size_t k = 8; k-- > 0;) {
      ASSERT_TRUE(store->wait(tickets[k], error)) << error;
      expectRows(ids[k], outs[k], 64, "ticket " + std::to_string(k));
    }
    EXPECT_FALSE(store->wait(tickets[0], error));
    EXPECT_EQ(error, path + ": ticket " + std::to_string(tickets[0]) +
                         " is not in flight (never submitted, or already "
                         "waited for)");
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, FeatureGather,
                         testing::ValuesIn(sluice::test::ioBackends()),
                         sluice::test::ioBackendName);

TEST(FeatureStore, BadArguments) {
  ScratchDir dir;
  std::string path = dir.file("f.f32");
  writeFeatures(path, 100, 8, false);
  FeatureStoreOptions o;
  o.path = path;
  o.rows = 100;
  o.dim = 8;
  o.maxRowsPerTicket = 10;
  auto store = openStore(o);
  ASSERT_TRUE(store);
  std::vector<float> out(20 * 8);
  std::vector<uint32_t> ids = {1, 2, 100};
  std::string error;
  auto t = store->submit(ids.data(), ids.size(), out.data());
  EXPECT_FALSE(store->wait(t, error));
  EXPECT_EQ(error, path + ": ticket " + std::to_string(t) +
                       ": id 100 at position 2 is out of range (100 rows)");
  ids.assign(11, 0);
  t = store->submit(ids.data(), ids.size(), out.data());
  EXPECT_FALSE(store->wait(t, error));
  EXPECT_EQ(error, path + ": ticket " + std::to_string(t) +
                       ": 11 rows is more than the 10 rows a ticket may "
                       "gather");
  // Open errors name the file or the option.
  o.rows = 101;
  EXPECT_FALSE(FeatureStore::open(o, error));
  EXPECT_EQ(error, path + ": expected 101 rows of 8 float32 (3232 bytes), the "
                          "file has 3200 bytes (100 rows)");
  o.rows = 100;
  o.expectedAccesses = {1, 2};
  EXPECT_FALSE(FeatureStore::open(o, error));
  EXPECT_EQ(error, path + ": expected access counts: 2 values for 100 rows");
  o.expectedAccesses.clear();
  o.maxTickets = 0;
  EXPECT_FALSE(FeatureStore::open(o, error));
  EXPECT_EQ(error, path + ": maxTickets 0 is outside 1..64");
}

} // namespace
