//===- GraphSchema.cpp - Words of graph algorithms and schedules ----------===//
#include "dialects/Graph/IR/GraphSchema.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include <vector>

// The generated stringify/symbolize functions of the graph enums.
#include "dialects/Graph/IR/GraphEnums.cpp.inc"

using namespace sluice;
using namespace sluice::graph;

namespace {
/// Every spelling of an enum with values 0..maxValue.
template <typename E>
std::vector<llvm::StringRef> namesOf(unsigned maxValue,
                                     llvm::StringRef (*stringify)(E)) {
  std::vector<llvm::StringRef> names;
  for (unsigned v = 0; v <= maxValue; ++v)
    names.push_back(stringify(static_cast<E>(v)));
  return names;
}
} // namespace

llvm::ArrayRef<llvm::StringRef> graph::reductionKindNames() {
  static const auto names =
      namesOf(getMaxEnumValForReductionKind(), stringifyReductionKind);
  return names;
}

llvm::ArrayRef<llvm::StringRef> graph::directionNames() {
  static const auto names =
      namesOf(getMaxEnumValForDirection(), stringifyDirection);
  return names;
}

llvm::ArrayRef<llvm::StringRef> graph::parallelNames() {
  static const auto names =
      namesOf(getMaxEnumValForParallel(), stringifyParallel);
  return names;
}

llvm::ArrayRef<llvm::StringRef> graph::frontierKindNames() {
  static const auto names =
      namesOf(getMaxEnumValForFrontierKind(), stringifyFrontierKind);
  return names;
}

llvm::ArrayRef<llvm::StringRef> graph::edgeFormatNames() {
  static const auto names =
      namesOf(getMaxEnumValForEdgeFormat(), stringifyEdgeFormat);
  return names;
}

llvm::ArrayRef<llvm::StringRef> graph::targetNames() {
  static const auto names = namesOf(getMaxEnumValForTarget(), stringifyTarget);
  return names;
}

llvm::ArrayRef<llvm::StringRef> graph::edgesOnlyScheduleKeys() {
  static const llvm::StringRef keys[] = {kDirectionKey, kFrontierKey,
                                         kFormatKey};
  return keys;
}

bool graph::isEdgesOnlyScheduleKey(llvm::StringRef key) {
  return llvm::is_contained(edgesOnlyScheduleKeys(), key);
}

llvm::hash_code graph::hash_value(const Tile &tile) {
  return llvm::hash_combine(static_cast<uint8_t>(tile.kind), tile.size);
}

std::string Tile::str() const {
  switch (kind) {
  case Kind::None:
    return "none";
  case Kind::Auto:
    return "auto";
  case Kind::Size:
    return std::to_string(size);
  }
  llvm_unreachable("unknown tile kind");
}

llvm::raw_ostream &graph::operator<<(llvm::raw_ostream &os, const Tile &tile) {
  return os << tile.str();
}
