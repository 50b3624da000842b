//===- GraphOps.h - Operations of the graph dialect -------------*- C++ -*-===//
//
// graph.algorithm, graph.property, the loops graph.vertices and graph.edges,
// the property, frontier and graph ops, and graph.job. Include this header to
// build or inspect graph IR.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_GRAPH_IR_GRAPHOPS_H
#define SLUICE_DIALECTS_GRAPH_IR_GRAPHOPS_H

#include "dialects/Graph/IR/GraphDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace sluice::graph {
class PropertyOp;
} // namespace sluice::graph

#define GET_OP_CLASSES
#include "dialects/Graph/IR/GraphOps.h.inc"

namespace sluice::graph {
/// The property `op` writes (graph.prop.set, graph.prop.reduce or
/// graph.compare_swap), or "" for any other op.
llvm::StringRef updatedProperty(mlir::Operation *op);
/// The property `op` reads or writes (graph.prop.get too), or "".
llvm::StringRef accessedProperty(mlir::Operation *op);
/// The vertex at which `op` (graph.prop.get, .set, .reduce or
/// graph.compare_swap) accesses its property, or null for any other op.
mlir::Value accessedVertex(mlir::Operation *op);
} // namespace sluice::graph

#endif // SLUICE_DIALECTS_GRAPH_IR_GRAPHOPS_H
