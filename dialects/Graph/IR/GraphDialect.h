//===- GraphDialect.h - The graph dialect -----------------------*- C++ -*-===//
//
// Declares the `graph` dialect (graph algorithms and their schedules), its
// frontier type and its attributes. Most users want GraphOps.h, which
// includes this header.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_GRAPH_IR_GRAPHDIALECT_H
#define SLUICE_DIALECTS_GRAPH_IR_GRAPHDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dialect.h"

#include "dialects/Graph/IR/GraphDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/Graph/IR/GraphTypes.h.inc"

// The graph enums (GraphSchema.h) as attributes, #graph.schedule and
// #graph.algorithm_schedule.
#include "dialects/Graph/IR/GraphSchema.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"

namespace sluice::graph {
/// The enums #graph.schedule holds as optional parameters.
template <typename E> struct IsScheduleEnum : std::false_type {};
template <> struct IsScheduleEnum<Direction> : std::true_type {};
template <> struct IsScheduleEnum<Parallel> : std::true_type {};
template <> struct IsScheduleEnum<FrontierKind> : std::true_type {};
template <> struct IsScheduleEnum<EdgeFormat> : std::true_type {};
template <> struct IsScheduleEnum<VertexOrder> : std::true_type {};
template <> struct IsScheduleEnum<Fusion> : std::true_type {};

/// "expected one of: push, pull, hybrid; got 'x'" at `loc`.
mlir::InFlightDiagnostic unknownWord(mlir::AsmParser &parser, llvm::SMLoc loc,
                                     llvm::ArrayRef<llvm::StringRef> names,
                                     llvm::StringRef word);
/// The spellings of every value of a schedule enum.
template <typename E> llvm::ArrayRef<llvm::StringRef> namesOfEnum();
template <> inline llvm::ArrayRef<llvm::StringRef> namesOfEnum<Direction>() {
  return directionNames();
}
template <> inline llvm::ArrayRef<llvm::StringRef> namesOfEnum<Parallel>() {
  return parallelNames();
}
template <> inline llvm::ArrayRef<llvm::StringRef> namesOfEnum<FrontierKind>() {
  return frontierKindNames();
}
template <> inline llvm::ArrayRef<llvm::StringRef> namesOfEnum<EdgeFormat>() {
  return edgeFormatNames();
}
template <> inline llvm::ArrayRef<llvm::StringRef> namesOfEnum<VertexOrder>() {
  return vertexOrderNames();
}
template <> inline llvm::ArrayRef<llvm::StringRef> namesOfEnum<Fusion>() {
  return fusionNames();
}
} // namespace sluice::graph

namespace mlir {
/// The value of an optional enum parameter of #graph.schedule (a key
/// `struct(params)` prints only when present): a word of the language.
template <typename EnumT>
struct FieldParser<std::optional<EnumT>,
                   std::enable_if_t<sluice::graph::IsScheduleEnum<EnumT>::value,
                                    std::optional<EnumT>>> {
  static FailureOr<std::optional<EnumT>> parse(AsmParser &parser) {
    llvm::SMLoc loc = parser.getCurrentLocation();
    llvm::StringRef word;
    if (parser.parseKeyword(&word))
      return failure();
    if (std::optional<EnumT> value = sluice::graph::symbolizeEnum<EnumT>(word))
      return value;
    return sluice::graph::unknownWord(
        parser, loc, sluice::graph::namesOfEnum<EnumT>(), word);
  }
};

/// The tile of #graph.schedule: `auto` or a size.
template <> struct FieldParser<sluice::graph::Tile> {
  static FailureOr<sluice::graph::Tile> parse(AsmParser &parser);
};
} // namespace mlir

#define GET_ATTRDEF_CLASSES
#include "dialects/Graph/IR/GraphAttrs.h.inc"

#endif // SLUICE_DIALECTS_GRAPH_IR_GRAPHDIALECT_H
