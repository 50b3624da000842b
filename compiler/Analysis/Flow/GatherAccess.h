//===- GatherAccess.h - Access counts of gather jobs ------------*- C++ -*-===//
//
// Where the access counts of a gather job come from (docs/flows.md, "Gather
// jobs"): a text file of per-item counts per destination, or the exact
// expected accesses of k-hop neighbour sampling on a graph whose vertices
// are partitioned over the destinations. And the hotness classes the
// placement works on.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_FLOW_GATHERACCESS_H
#define SLUICE_COMPILER_ANALYSIS_FLOW_GATHERACCESS_H

#include "compiler/Analysis/Flow/Placement.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>
#include <vector>

namespace sluice::flow {

/// counts[i * destinations + d]: accesses to item i by destination d.
struct AccessCounts {
  size_t items = 0;
  size_t destinations = 0;
  std::vector<double> counts;
  double at(size_t item, size_t destination) const {
    return counts[item * destinations + destination];
  }
  double total() const;
};

/// A malformed line of an access file: where (1-based line and column) and
/// what.
class AccessFileError : public llvm::ErrorInfo<AccessFileError> {
public:
  static char ID;
  AccessFileError(std::string path, unsigned line, unsigned column,
                  std::string message)
      : path(std::move(path)), line(line), column(column),
        message(std::move(message)) {}
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;
  std::string path;
  unsigned line, column;
  std::string message;
};

/// Parses an access file (`path` names it in errors). Format: one line per
/// item, `ITEM C0 C1 ... C(D-1)` with D = `destinations` counts (finite,
/// non-negative, fractional allowed), separated by spaces, tabs or commas;
/// `#` starts a comment, blank lines are skipped; an item listed at most
/// once, items not listed have no accesses. Errors are AccessFileErrors.
llvm::Expected<AccessCounts> parseAccessCounts(llvm::StringRef text,
                                               llvm::StringRef path,
                                               size_t items,
                                               size_t destinations);
/// parseAccessCounts of a file's contents (a plain llvm::Error if it cannot
/// be read).
llvm::Expected<AccessCounts>
readAccessCounts(llvm::StringRef path, size_t items, size_t destinations);

/// The destination that owns vertex v of n when n vertices are split into
/// `destinations` contiguous blocks: floor(v * destinations / n).
size_t ownerOf(uint64_t v, uint64_t n, size_t destinations);

/// The expected accesses of one epoch of k-hop neighbour sampling
/// (GraphSAGE-style, every sampled vertex's item read once per sample):
/// every vertex is a seed once, on the destination that owns it (ownerOf);
/// hop h samples min(fanout[h-1], deg u) distinct out-neighbours of every
/// vertex u reached at hop h-1, uniformly, so each neighbour of u is
/// sampled with probability min(f, deg u) / deg u. The expectation is exact
/// (propagated hop by hop, no random numbers). `offsets` has n + 1 entries,
/// `targets` the CSR neighbours.
AccessCounts expectedSampledAccesses(llvm::ArrayRef<uint64_t> offsets,
                                     llvm::ArrayRef<uint32_t> targets,
                                     size_t destinations,
                                     llvm::ArrayRef<int64_t> fanout);

/// Hotness classes: items sorted by total accesses (descending; ties by
/// item id) and cut into `classes` groups of equal size (sizes differ by at
/// most one; no empty group); a class's accesses are its items' summed per
/// destination. `classOf` (optional) receives each item's class.
std::vector<PlacementClass> accessClasses(const AccessCounts &counts,
                                          double itemBytes, size_t classes,
                                          std::vector<size_t> *classOf =
                                              nullptr);

} // namespace sluice::flow

#endif // SLUICE_COMPILER_ANALYSIS_FLOW_GATHERACCESS_H
