//===- GatherAccess.cpp - Access counts of gather jobs --------------------===//
#include "compiler/Analysis/Flow/GatherAccess.h"

#include "sluice/gnn.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

using namespace sluice::flow;

char AccessFileError::ID = 0;

void AccessFileError::log(llvm::raw_ostream &os) const {
  os << path << ":" << line << ":" << column << ": " << message;
}

std::error_code AccessFileError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

double AccessCounts::total() const {
  return std::accumulate(counts.begin(), counts.end(), 0.0);
}

llvm::Expected<AccessCounts>
sluice::flow::parseAccessCounts(llvm::StringRef text, llvm::StringRef path,
                                size_t items, size_t destinations) {
  AccessCounts out;
  out.items = items;
  out.destinations = destinations;
  out.counts.assign(items * destinations, 0.0);
  std::vector<unsigned> lineOf(items, 0);
  unsigned lineNo = 0;
  auto fail = [&](size_t column, const llvm::Twine &msg) {
    return llvm::make_error<AccessFileError>(
        path.str(), lineNo, static_cast<unsigned>(column + 1), msg.str());
  };
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    text = rest;
    ++lineNo;
    line = line.take_until([](char c) { return c == '#'; });
    // Fields with their columns.
    llvm::SmallVector<std::pair<llvm::StringRef, size_t>> fields;
    size_t i = 0;
    auto isSep = [](char c) {
      return c == ' ' || c == '\t' || c == ',' || c == '\r';
    };
    while (i < line.size()) {
      while (i < line.size() && isSep(line[i]))
        ++i;
      size_t start = i;
      while (i < line.size() && !isSep(line[i]))
        ++i;
      if (i > start)
        fields.push_back({line.slice(start, i), start});
    }
    if (fields.empty())
      continue;
    uint64_t item = 0;
    if (fields[0].first.getAsInteger(10, item))
      return fail(fields[0].second, "the item id '" + fields[0].first +
                                        "' is not a non-negative integer");
    if (item >= items)
      return fail(fields[0].second, "item " + llvm::Twine(item) +
                                        " is out of range: the job has " +
                                        llvm::Twine(items) + " items");
    if (lineOf[item])
      return fail(fields[0].second, "item " + llvm::Twine(item) +
                                        " is listed twice (first on line " +
                                        llvm::Twine(lineOf[item]) + ")");
    if (fields.size() != destinations + 1)
      return fail(fields.size() > destinations + 1
                      ? fields[destinations + 1].second
                      : line.rtrim().size(),
                  "expected " + llvm::Twine(destinations) +
                      " access counts (one per destination) after the item "
                      "id, got " +
                      llvm::Twine(fields.size() - 1));
    lineOf[item] = lineNo;
    for (size_t d = 0; d < destinations; ++d) {
      auto [field, column] = fields[d + 1];
      double v = 0;
      if (field.getAsDouble(v) || !std::isfinite(v))
        return fail(column, "'" + field + "' is not a finite number");
      if (v < 0)
        return fail(column, "access count " + field + " is negative");
      out.counts[item * destinations + d] = v;
    }
  }
  return out;
}

llvm::Expected<AccessCounts>
sluice::flow::readAccessCounts(llvm::StringRef path, size_t items,
                               size_t destinations) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return llvm::createStringError(buffer.getError(),
                                   "cannot read the access file '%s': %s",
                                   path.str().c_str(),
                                   buffer.getError().message().c_str());
  return parseAccessCounts((*buffer)->getBuffer(), path, items, destinations);
}

size_t sluice::flow::ownerOf(uint64_t v, uint64_t n, size_t destinations) {
  return static_cast<size_t>(
      (static_cast<unsigned __int128>(v) * destinations) / n);
}

AccessCounts sluice::flow::expectedSampledAccesses(
    llvm::ArrayRef<uint64_t> offsets, llvm::ArrayRef<uint32_t> targets,
    size_t destinations, llvm::ArrayRef<int64_t> fanout) {
  size_t n = offsets.empty() ? 0 : offsets.size() - 1;
  AccessCounts out;
  out.items = n;
  out.destinations = destinations;
  // Hop 0: every vertex is a seed of its owner; the hops are the runtime's
  // (sluice_gnn_expected_accesses, shared with the GNN trainer's cache).
  out.counts.assign(n * destinations, 0.0);
  for (size_t v = 0; v < n; ++v)
    out.counts[v * destinations + ownerOf(v, n, destinations)] = 1.0;
  if (n == 0 || destinations == 0)
    return out;
  std::vector<uint32_t> fanouts;
  for (int64_t f : fanout)
    fanouts.push_back(static_cast<uint32_t>(
        std::clamp<int64_t>(f, 0, std::numeric_limits<uint32_t>::max())));
  sluice_error_t error;
  sluice_status_t status = sluice_gnn_expected_accesses(
      offsets.data(), targets.data(), n, fanouts.data(),
      static_cast<uint32_t>(fanouts.size()),
      static_cast<uint32_t>(destinations), out.counts.data(), &error);
  // The callers pass a graph the runtime built: a failure is a bug.
  if (status != SLUICE_STATUS_OK)
    llvm::report_fatal_error(llvm::Twine("expectedSampledAccesses: ") +
                             error.message);
  return out;
}

std::vector<PlacementClass>
sluice::flow::accessClasses(const AccessCounts &counts, double itemBytes,
                            size_t classes, std::vector<size_t> *classOf) {
  size_t n = counts.items, dn = counts.destinations;
  std::vector<double> total(n, 0.0);
  for (size_t i = 0; i < n; ++i)
    for (size_t d = 0; d < dn; ++d)
      total[i] += counts.at(i, d);
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return total[a] > total[b]; });
  size_t k = std::max<size_t>(1, std::min(classes, n));
  std::vector<PlacementClass> out;
  if (classOf)
    classOf->assign(n, 0);
  for (size_t c = 0; c < k && n > 0; ++c) {
    size_t lo = c * n / k, hi = (c + 1) * n / k;
    PlacementClass cls;
    cls.bytesPerItem = itemBytes;
    cls.itemCount = static_cast<double>(hi - lo);
    cls.accesses.assign(dn, 0.0);
    for (size_t j = lo; j < hi; ++j) {
      for (size_t d = 0; d < dn; ++d)
        cls.accesses[d] += counts.at(order[j], d);
      if (classOf)
        (*classOf)[order[j]] = out.size();
    }
    out.push_back(std::move(cls));
  }
  return out;
}
