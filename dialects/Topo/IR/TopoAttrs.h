//===- TopoAttrs.h - Attributes of the topo dialect -------------*- C++ -*-===//
//
// DeviceKindAttr and LinkDirectionAttr (the enums of TopoSchema.h as
// attributes), QuantityAttr (`#topo.q<80 GiB>`) and EndpointAttr
// (`#topo.ep<server[3]::gpu[2]>`).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_TOPO_IR_TOPOATTRS_H
#define SLUICE_DIALECTS_TOPO_IR_TOPOATTRS_H

#include "dialects/Topo/IR/TopoSchema.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"
#include "support/Units.h"
#include "llvm/ADT/Hashing.h"
#include <optional>
#include <string>

namespace sluice::topo {

/// One segment of an endpoint path: a name and, for arrays, an index
/// (`gpu[2]`).
struct EndpointSegment {
  mlir::StringAttr name;
  std::optional<int64_t> index;

  static EndpointSegment get(mlir::MLIRContext *context, llvm::StringRef name,
                             std::optional<int64_t> index = std::nullopt) {
    return {mlir::StringAttr::get(context, name), index};
  }
  /// "gpu[2]", or "gpu" without an index.
  std::string str() const;

  bool operator==(const EndpointSegment &other) const {
    return name == other.name && index == other.index;
  }
  bool operator!=(const EndpointSegment &other) const {
    return !(*this == other);
  }
};

inline llvm::hash_code hash_value(const EndpointSegment &segment) {
  return llvm::hash_combine(segment.name, segment.index);
}

} // namespace sluice::topo

#define GET_ATTRDEF_CLASSES
#include "dialects/Topo/IR/TopoAttrs.h.inc"

#endif // SLUICE_DIALECTS_TOPO_IR_TOPOATTRS_H
