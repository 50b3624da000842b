//===- ChiSquare.h - Pearson's chi-square for sampler tests ----*- C++ -*-===//
//
// Shared by the unit tests that check samples against an exact distribution
// (test/Unit/Runtime/SamplerTest.cpp, test/Unit/Walk): Pearson's statistic
// with pooling of small cells, and the critical value it is compared with.
// A header-only helper, not a test folder (no CMakeLists.txt).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TEST_UNIT_SUPPORT_CHISQUARE_H
#define SLUICE_TEST_UNIT_SUPPORT_CHISQUARE_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace sluice::testsupport {

/// Upper critical value of chi-square with `df` degrees of freedom at
/// significance 1e-4 (z = 3.719), by Wilson-Hilferty; slightly conservative
/// for df = 1 (16.2 instead of 15.1), accurate beyond.
inline double criticalValue(int df) {
  const double z = 3.719;
  double a = 2.0 / (9.0 * df);
  double c = 1 - a + z * std::sqrt(a);
  return df * c * c * c;
}

struct Fit {
  double statistic = 0;
  int df = 0;
  uint64_t zeroHits = 0; // samples in a category of probability 0
  uint64_t misses = 0;   // samples outside every category (set by callers)
  uint64_t total = 0;
  bool passes() const {
    return zeroHits == 0 && misses == 0 &&
           (df == 0 || statistic < criticalValue(df));
  }
  std::string describe() const {
    std::ostringstream os;
    os << "chi2 " << statistic << " df " << df << " critical "
       << (df ? criticalValue(df) : 0.0) << " zero-probability hits "
       << zeroHits << " samples " << total;
    return os.str();
  }
};

/// Pearson's statistic of `counts` against `weights` (normalised here; a
/// weight that is not positive is a category of probability 0). Cells with
/// expected count < 5 are pooled; a pool still below 5 joins the smallest
/// cell.
inline Fit chiSquare(const std::vector<uint64_t> &counts,
                     const std::vector<double> &weights) {
  Fit fit;
  uint64_t total = std::accumulate(counts.begin(), counts.end(), uint64_t(0));
  fit.total = total;
  double sum = 0;
  for (double w : weights)
    sum += w > 0 ? w : 0;
  std::vector<std::pair<double, double>> cells; // (expected, observed)
  double poolE = 0, poolO = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (!(weights[i] > 0)) {
      fit.zeroHits += counts[i];
      continue;
    }
    double e = double(total) * weights[i] / sum;
    if (e < 5) {
      poolE += e;
      poolO += double(counts[i]);
    } else {
      cells.push_back({e, double(counts[i])});
    }
  }
  if (poolE > 0) {
    if (poolE >= 5 || cells.empty()) {
      cells.push_back({poolE, poolO});
    } else {
      auto smallest = std::min_element(cells.begin(), cells.end());
      smallest->first += poolE;
      smallest->second += poolO;
    }
  }
  for (auto [e, o] : cells)
    fit.statistic += (o - e) * (o - e) / e;
  fit.df = static_cast<int>(cells.size()) - 1;
  return fit;
}

} // namespace sluice::testsupport

#endif // SLUICE_TEST_UNIT_SUPPORT_CHISQUARE_H
