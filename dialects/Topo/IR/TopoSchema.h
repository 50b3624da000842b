//===- TopoSchema.h - Device kinds and their typed properties --*- C++ -*-===//
//
// The single source of truth for which device kinds exist and which typed
// properties each kind (and each link) accepts. Sema checks declarations
// against it; the topo dialect's verifiers check IR against it. Depends on
// LLVM Support, the units table and the enums generated from TopoEnums.td
// (header-only MLIR support types; no MLIR library is needed to link it).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_TOPO_IR_TOPOSCHEMA_H
#define SLUICE_DIALECTS_TOPO_IR_TOPOSCHEMA_H

#include "mlir/Support/LLVM.h"
#include "mlir/Support/LogicalResult.h"
#include "support/Units.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMapInfo.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <optional>
#include <string>

// The generated enums DeviceKind and LinkDirection, with
// stringifyDeviceKind ("gpu", "smartnic", ...) and symbolizeDeviceKind.
#include "dialects/Topo/IR/TopoEnums.h.inc"

namespace sluice::topo {

/// All device kinds, in declaration order.
llvm::ArrayRef<DeviceKind> allDeviceKinds();

/// What a property's value is.
/// Number: a plain number without a unit (a ratio), integer or float.
enum class PropValueKind { Quantity, Integer, String, Bool, Number };

struct PropertySpec {
  llvm::StringRef name;
  PropValueKind valueKind;
  Dim dim;                ///< For Quantity properties.
  bool positive;          ///< Value must be > 0 (quantities and integers).
  llvm::StringRef summary;
};

/// Properties a device of `kind` accepts.
llvm::ArrayRef<PropertySpec> deviceProperties(DeviceKind kind);
/// Properties a link accepts ("bandwidth" is required).
llvm::ArrayRef<PropertySpec> linkProperties();
/// Finds `name` in `specs`; nullptr if absent.
const PropertySpec *findProperty(llvm::ArrayRef<PropertySpec> specs,
                                 llvm::StringRef name);
/// "memory, compute, ..." for "expected one of" messages.
std::string listPropertyNames(llvm::ArrayRef<PropertySpec> specs);
/// "bytes", "bandwidth", "integer", "string", "bool", "number".
std::string describeValueKind(const PropertySpec &spec);

} // namespace sluice::topo

#endif // SLUICE_DIALECTS_TOPO_IR_TOPOSCHEMA_H
