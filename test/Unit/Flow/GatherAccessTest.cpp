//===- GatherAccessTest.cpp - Access counts of gather jobs ----------------===//
//
// The access file parser (format and every located error, verbatim), the
// exact expected accesses of k-hop neighbour sampling against a brute-force
// enumeration of every neighbour subset on small random graphs, and the
// hotness classes.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/GatherAccess.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>

using namespace sluice::flow;

namespace {

std::string errorOf(llvm::StringRef text, size_t items, size_t dests) {
  auto r = parseAccessCounts(text, "c.txt", items, dests);
  if (r)
    return "no error";
  return llvm::toString(r.takeError());
}

TEST(GatherAccess, ParsesTheFormat) {
  auto r = parseAccessCounts("# item gpu0 gpu1\n"
                             "0 1 2\n"
                             "\n"
                             "3,\t4.5, 0   # hot\n"
                             "  2 0 7e1\r\n",
                             "c.txt", 5, 2);
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(r->items, 5u);
  EXPECT_EQ(r->destinations, 2u);
  std::vector<double> want = {1, 2, 0, 0, 0, 70, 4.5, 0, 0, 0};
  EXPECT_EQ(r->counts, want);
  EXPECT_DOUBLE_EQ(r->total(), 77.5);
}

TEST(GatherAccess, LocatedErrors) {
  EXPECT_EQ(errorOf("0 1 2\nx 1 2\n", 3, 2),
            "c.txt:2:1: the item id 'x' is not a non-negative integer");
  EXPECT_EQ(errorOf("0 1 2\n  -1 1 2\n", 3, 2),
            "c.txt:2:3: the item id '-1' is not a non-negative integer");
  EXPECT_EQ(errorOf("3 1 2\n", 3, 2),
            "c.txt:1:1: item 3 is out of range: the job has 3 items");
  EXPECT_EQ(errorOf("# c\n1 1 2\n1 1 2\n", 3, 2),
            "c.txt:3:1: item 1 is listed twice (first on line 2)");
  EXPECT_EQ(errorOf("1 1\n", 3, 2),
            "c.txt:1:4: expected 2 access counts (one per destination) after "
            "the item id, got 1");
  EXPECT_EQ(errorOf("1 1 2 3\n", 3, 2),
            "c.txt:1:7: expected 2 access counts (one per destination) after "
            "the item id, got 3");
  EXPECT_EQ(errorOf("1 1 abc\n", 3, 2),
            "c.txt:1:5: 'abc' is not a finite number");
  EXPECT_EQ(errorOf("1 inf 2\n", 3, 2),
            "c.txt:1:3: 'inf' is not a finite number");
  EXPECT_EQ(errorOf("1 1 -2\n", 3, 2),
            "c.txt:1:5: access count -2 is negative");
  auto missing = readAccessCounts("/nonexistent/counts.txt", 1, 1);
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_NE(llvm::toString(missing.takeError())
                .find("cannot read the access file '/nonexistent/counts.txt'"),
            std::string::npos);
}

TEST(GatherAccess, Owners) {
  // 10 vertices over 4 destinations: blocks of 2 or 3, ascending.
  std::vector<size_t> owners;
  for (uint64_t v = 0; v < 10; ++v)
    owners.push_back(ownerOf(v, 10, 4));
  EXPECT_EQ(owners, (std::vector<size_t>{0, 0, 0, 1, 1, 2, 2, 2, 3, 3}));
}

/// The expectation by enumerating, for every sampled vertex, every subset
/// of min(f, deg) neighbours with its probability 1 / C(deg, k).
AccessCounts bruteForce(const std::vector<uint64_t> &off,
                        const std::vector<uint32_t> &tgt, size_t dests,
                        const std::vector<int64_t> &fanout) {
  size_t n = off.size() - 1;
  AccessCounts out;
  out.items = n;
  out.destinations = dests;
  out.counts.assign(n * dests, 0.0);
  std::function<void(uint32_t, size_t, size_t, double)> visit =
      [&](uint32_t u, size_t hop, size_t d, double p) {
        out.counts[u * dests + d] += p;
        if (hop == fanout.size())
          return;
        std::vector<uint32_t> nbrs(tgt.begin() + off[u],
                                   tgt.begin() + off[u + 1]);
        size_t deg = nbrs.size();
        if (deg == 0)
          return;
        size_t k = std::min<size_t>(fanout[hop], deg);
        // Every k-subset, as a bit mask.
        std::vector<uint32_t> subsets;
        for (uint32_t mask = 0; mask < (1u << deg); ++mask)
          if (static_cast<size_t>(__builtin_popcount(mask)) == k)
            subsets.push_back(mask);
        for (uint32_t mask : subsets)
          for (size_t j = 0; j < deg; ++j)
            if (mask >> j & 1)
              visit(nbrs[j], hop + 1, d, p / subsets.size());
      };
  for (uint32_t s = 0; s < n; ++s)
    visit(s, 0, ownerOf(s, n, dests), 1.0);
  return out;
}

TEST(GatherAccess, SampledExpectationEqualsEnumeration) {
  std::mt19937_64 rng(20261130);
  for (int trial = 0; trial < 60; ++trial) {
    size_t n = 3 + rng() % 6, dests = 1 + rng() % 3;
    std::vector<std::vector<uint32_t>> adj(n);
    for (size_t u = 0; u < n; ++u)
      for (size_t v = 0; v < n; ++v)
        if (u != v && rng() % 100 < 45 && adj[u].size() < 6)
          adj[u].push_back(static_cast<uint32_t>(v));
    std::vector<uint64_t> off = {0};
    std::vector<uint32_t> tgt;
    for (auto &a : adj) {
      tgt.insert(tgt.end(), a.begin(), a.end());
      off.push_back(tgt.size());
    }
    std::vector<int64_t> fanout;
    for (size_t h = 0, hops = 1 + rng() % 3; h < hops; ++h)
      fanout.push_back(1 + static_cast<int64_t>(rng() % 3));
    AccessCounts got = expectedSampledAccesses(off, tgt, dests, fanout);
    AccessCounts want = bruteForce(off, tgt, dests, fanout);
    ASSERT_EQ(got.counts.size(), want.counts.size());
    for (size_t i = 0; i < got.counts.size(); ++i)
      ASSERT_NEAR(got.counts[i], want.counts[i], 1e-9)
          << "trial " << trial << " entry " << i;
  }
}

TEST(GatherAccess, PathGraphByHand) {
  // 0 -> 1 -> 2, 0 -> 2; fanout [1]: seed 0 samples 1 or 2 with 1/2 each,
  // seed 1 samples 2. One destination.
  std::vector<uint64_t> off = {0, 2, 3, 3};
  std::vector<uint32_t> tgt = {1, 2, 2};
  AccessCounts c = expectedSampledAccesses(off, tgt, 1, {1});
  EXPECT_EQ(c.counts, (std::vector<double>{1, 1.5, 2.5}));
}

TEST(GatherAccess, ClassesByHotness) {
  AccessCounts c;
  c.items = 5;
  c.destinations = 2;
  c.counts = {1, 0, 5, 5, 0, 0, 3, 3, 2, 2};
  std::vector<size_t> classOf;
  auto classes = accessClasses(c, 100, 2, &classOf);
  ASSERT_EQ(classes.size(), 2u);
  // Hotness order: 1 (10), 3 (6), 4 (4), 0 (1), 2 (0); cut 2 + 3.
  EXPECT_EQ(classOf, (std::vector<size_t>{1, 0, 1, 0, 1}));
  EXPECT_EQ(classes[0].itemCount, 2);
  EXPECT_EQ(classes[0].accesses, (std::vector<double>{8, 8}));
  EXPECT_EQ(classes[1].itemCount, 3);
  EXPECT_EQ(classes[1].accesses, (std::vector<double>{3, 2}));
  EXPECT_EQ(classes[1].bytesPerItem, 100);
  // More classes than items: one per item.
  EXPECT_EQ(accessClasses(c, 100, 64).size(), 5u);
}

} // namespace
