//===- AccessesTest.cpp - sluice_gnn_expected_accesses ----------------------===//
//
// The exact expectation against hand-computed values on a star and a path,
// against the mean of many sampled epochs (the runtime's own sampler is not
// used: an independent draw of min(f, deg) distinct neighbours), columns
// as independent problems, and the errors of bad CSRs.
//
//===----------------------------------------------------------------------===//
#include "sluice/gnn.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

namespace {

TEST(ExpectedAccesses, StarByHand) {
  // 0 -> 1..4 and back; seed vertex 0, fanouts 2 then 1.
  std::vector<uint64_t> off = {0, 4, 5, 6, 7, 8};
  std::vector<uint32_t> tgt = {1, 2, 3, 4, 0, 0, 0, 0};
  std::vector<double> c(5, 0.0);
  c[0] = 1;
  uint32_t fan[] = {2, 1};
  sluice_error_t err;
  ASSERT_EQ(sluice_gnn_expected_accesses(off.data(), tgt.data(), 5, fan, 2, 1,
                                         c.data(), &err),
            SLUICE_STATUS_OK);
  // Hop 1: each leaf with probability 2/4; hop 2: each reached leaf
  // samples 0 (expected 4 x 0.5 = 2 reads of 0).
  EXPECT_DOUBLE_EQ(c[0], 1.0 + 2.0);
  for (int v = 1; v <= 4; ++v)
    EXPECT_DOUBLE_EQ(c[v], 0.5);
}

TEST(ExpectedAccesses, MatchesSampledEpochs) {
  std::mt19937_64 rng(7);
  const uint32_t n = 60;
  std::vector<std::vector<uint32_t>> adj(n);
  for (int e = 0; e < 300; ++e) {
    uint32_t a = rng() % n, b = rng() % n;
    if (a != b && std::find(adj[a].begin(), adj[a].end(), b) == adj[a].end())
      adj[a].push_back(b);
  }
  std::vector<uint64_t> off(1, 0);
  std::vector<uint32_t> tgt;
  for (auto &l : adj) {
    tgt.insert(tgt.end(), l.begin(), l.end());
    off.push_back(tgt.size());
  }
  uint32_t fan[] = {3, 2};
  std::vector<double> want(n * 2, 0.0);
  for (uint32_t v = 0; v < n; ++v)
    want[v * 2 + (v % 2)] = 1.0; // column = parity of the seed
  sluice_error_t err;
  ASSERT_EQ(sluice_gnn_expected_accesses(off.data(), tgt.data(), n, fan, 2, 2,
                                         want.data(), &err),
            SLUICE_STATUS_OK);
  const int epochs = 20000;
  std::vector<double> got(n * 2, 0.0);
  for (int ep = 0; ep < epochs; ++ep)
    for (uint32_t s = 0; s < n; ++s) {
      std::vector<uint32_t> hop = {s};
      got[s * 2 + (s % 2)] += 1;
      for (uint32_t f : fan) {
        std::vector<uint32_t> next;
        for (uint32_t u : hop) {
          std::vector<uint32_t> nb = adj[u];
          std::shuffle(nb.begin(), nb.end(), rng);
          nb.resize(std::min<size_t>(f, nb.size()));
          for (uint32_t v : nb) {
            got[v * 2 + (s % 2)] += 1;
            next.push_back(v);
          }
        }
        hop.swap(next);
      }
    }
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i] / epochs, want[i], 0.05 + 0.03 * want[i]) << i;
}

TEST(ExpectedAccesses, BadCsrsAreErrors) {
  std::vector<uint64_t> off = {0, 2, 1};
  std::vector<uint32_t> tgt = {1, 0};
  std::vector<double> c(2, 1.0);
  uint32_t fan[] = {1};
  sluice_error_t err;
  EXPECT_EQ(sluice_gnn_expected_accesses(off.data(), tgt.data(), 2, fan, 1, 1,
                                         c.data(), &err),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(err.message, "offsets decrease at vertex 1");
  off = {0, 1, 2};
  tgt = {1, 7};
  EXPECT_EQ(sluice_gnn_expected_accesses(off.data(), tgt.data(), 2, fan, 1, 1,
                                         c.data(), &err),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(err.message, "edge 1 leads to vertex 7 of 2");
  EXPECT_EQ(sluice_gnn_expected_accesses(off.data(), tgt.data(), 2, fan, 1, 0,
                                         c.data(), &err),
            SLUICE_STATUS_INVALID_ARGUMENT);
}

} // namespace
