//===- PlanAttrs.h - Attributes of the plan dialect -------------*- C++ -*-===//
//
// The plan enums (PlanSchema.h) as attributes: DemandKindAttr,
// CollectiveKindAttr, ScheduleMethodAttr.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_PLAN_IR_PLANATTRS_H
#define SLUICE_DIALECTS_PLAN_IR_PLANATTRS_H

#include "dialects/Plan/IR/PlanSchema.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include <initializer_list>
#include <string>

namespace sluice::plan {

/// Parses a value of enum `E` written as a string (`"all-reduce"`): one of
/// `names`, the enum's spellings; else an error at the string that lists
/// them, in the words of the generated keyword parsers ("expected
/// `enumName` to be one of: ...").
template <typename E>
mlir::FailureOr<E>
parseQuotedEnum(mlir::AsmParser &parser, llvm::StringRef enumName,
                std::initializer_list<llvm::StringRef> names) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  std::string word;
  if (mlir::failed(parser.parseString(&word)))
    return mlir::failure();
  if (std::optional<E> value = symbolizeEnum<E>(word))
    return *value;
  mlir::InFlightDiagnostic diag =
      parser.emitError(loc) << "expected " << enumName << " to be one of: ";
  llvm::interleaveComma(names, diag,
                        [&](llvm::StringRef n) { diag << "\"" << n << "\""; });
  return mlir::failure();
}

} // namespace sluice::plan

#define GET_ATTRDEF_CLASSES
#include "dialects/Plan/IR/PlanAttrs.h.inc"

#endif // SLUICE_DIALECTS_PLAN_IR_PLANATTRS_H
