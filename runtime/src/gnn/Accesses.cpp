//===- Accesses.cpp - Expected reads of k-hop neighbour sampling ----------===//
//
// sluice_gnn_expected_accesses (sluice/gnn.h): one implementation for the
// runtime's feature cache (Trainer.cpp: which rows to keep in memory) and
// the compiler's gather plans (compiler/Analysis/Flow/GatherAccess.cpp:
// where to place them), which used to keep a copy each.
//
//===----------------------------------------------------------------------===//
#include "sluice/gnn.h"

#include "runtime/src/Error.h"

#include <algorithm>
#include <string>
#include <vector>

using sluice::rt::fail;

sluice_status_t sluice_gnn_expected_accesses(
    const uint64_t *offsets, const uint32_t *targets, uint64_t n,
    const uint32_t *fanouts, uint32_t layers, uint32_t columns,
    double *counts, sluice_error_t *error) {
  if (!offsets || (n && !counts) || (layers && !fanouts) || columns == 0)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_gnn_expected_accesses needs offsets, counts, the "
                "fanouts and at least one column");
  if (n && columns > SIZE_MAX / sizeof(double) / n)
    return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                std::to_string(n) + " vertices x " + std::to_string(columns) +
                    " columns of counts do not fit in memory");
  if (offsets[0] != 0)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "offsets[0] must be 0");
  for (uint64_t v = 0; v < n; ++v)
    if (offsets[v + 1] < offsets[v])
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                  "offsets decrease at vertex " + std::to_string(v));
  if (offsets[n] && !targets)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_gnn_expected_accesses needs the targets");
  for (uint64_t e = 0; e < offsets[n]; ++e)
    if (targets[e] >= n)
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                  "edge " + std::to_string(e) + " leads to vertex " +
                      std::to_string(targets[e]) + " of " + std::to_string(n));
  const size_t width = columns, cells = static_cast<size_t>(n) * width;
  std::vector<double> hop(counts, counts + cells), next(cells);
  for (uint32_t h = 0; h < layers; ++h) {
    const uint64_t f = fanouts[h];
    std::fill(next.begin(), next.end(), 0.0);
    for (uint64_t u = 0; u < n; ++u) {
      const uint64_t deg = offsets[u + 1] - offsets[u];
      if (!deg)
        continue;
      const double *x = &hop[u * width];
      bool any = false;
      for (size_t c = 0; c < width; ++c)
        any |= x[c] != 0.0;
      if (!any)
        continue;
      const double p = static_cast<double>(std::min(f, deg)) /
                       static_cast<double>(deg);
      for (uint64_t e = offsets[u]; e < offsets[u + 1]; ++e) {
        double *y = &next[static_cast<size_t>(targets[e]) * width];
        for (size_t c = 0; c < width; ++c)
          y[c] += p * x[c];
      }
    }
    hop.swap(next);
    for (size_t i = 0; i < cells; ++i)
      counts[i] += hop[i];
  }
  return SLUICE_STATUS_OK;
}
