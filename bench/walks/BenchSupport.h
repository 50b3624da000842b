//===- BenchSupport.h - Small helpers shared by the walk benchmarks -------===//
#ifndef SLUICE_BENCH_WALKS_BENCHSUPPORT_H
#define SLUICE_BENCH_WALKS_BENCHSUPPORT_H

#include <sstream>
#include <string>
#include <vector>

namespace sluice::benchwalks {

/// The non-empty items of a comma-separated option value ("a,b,,c").
inline std::vector<std::string> split(const std::string &s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty())
      out.push_back(item);
  return out;
}

} // namespace sluice::benchwalks

#endif // SLUICE_BENCH_WALKS_BENCHSUPPORT_H
