//===- GraphSchema.cpp - Words of graph algorithms and schedules ----------===//
#include "dialects/Graph/IR/GraphSchema.h"

#include "llvm/ADT/STLExtras.h"
#include "support/EnumNames.h"

#include "llvm/ADT/StringSwitch.h"
#include <vector>

// The generated stringify/symbolize functions of the graph enums.
#include "dialects/Graph/IR/GraphEnums.cpp.inc"

using namespace sluice;
using namespace sluice::graph;


llvm::ArrayRef<llvm::StringRef> graph::reductionKindNames() {
  static const auto names =
      enumNames(getMaxEnumValForReductionKind(), stringifyReductionKind);
  return names;
}

llvm::ArrayRef<llvm::StringRef> graph::directionNames() {
  static const auto names =
      enumNames(getMaxEnumValForDirection(), stringifyDirection);
  return names;
}

llvm::ArrayRef<llvm::StringRef> graph::parallelNames() {
  static const auto names =
      enumNames(getMaxEnumValForParallel(), stringifyParallel);
  return names;
}

llvm::ArrayRef<llvm::StringRef> graph::frontierKindNames() {
  static const auto names =
      enumNames(getMaxEnumValForFrontierKind(), stringifyFrontierKind);
  return names;
}

llvm::ArrayRef<llvm::StringRef> graph::edgeFormatNames() {
  static const auto names =
      enumNames(getMaxEnumValForEdgeFormat(), stringifyEdgeFormat);
  return names;
}

llvm::ArrayRef<llvm::StringRef> graph::targetNames() {
  static const auto names = enumNames(getMaxEnumValForTarget(), stringifyTarget);
  return names;
}

llvm::ArrayRef<llvm::StringRef> graph::edgesOnlyScheduleKeys() {
  static const llvm::StringRef keys[] = {kDirectionKey, kFrontierKey,
                                         kFormatKey};
  return keys;
}

llvm::ArrayRef<llvm::StringRef> graph::vertexOrderNames() {
  static const auto names =
      enumNames(getMaxEnumValForVertexOrder(), stringifyVertexOrder);
  return names;
}

llvm::ArrayRef<llvm::StringRef> graph::fusionNames() {
  static const auto names =
      enumNames(getMaxEnumValForFusion(), stringifyFusion);
  return names;
}

bool graph::isEdgesOnlyScheduleKey(llvm::StringRef key) {
  return llvm::is_contained(edgesOnlyScheduleKeys(), key) || key == kOrderKey ||
         key == kFusionKey;
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
