//===- MLIRGenDemand.h - Lowering demand declarations -----------*- C++ -*-===//
//
// Each `demand NAME on TOPO { ... }` becomes a `plan.demands @NAME on @TOPO`
// holding one `plan.demand` per item: its kind, its size in bytes, and its
// endpoint sets as device path patterns with constant indices
// (`server[0..2].gpu[*]`), which plan-schedule-flows resolves against the
// flat topology.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_FRONTENDS_SLUICE_MLIRGENDEMAND_H
#define SLUICE_FRONTENDS_SLUICE_MLIRGENDEMAND_H

#include "frontends/sluice/AST.h"
#include "frontends/sluice/ConstEval.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"

namespace sluice {

/// Appends the plan.demands of every demand declaration of `program` to
/// `module`, evaluating constants in `globals`. Reports located errors and
/// fails on a non-constant size or index.
mlir::LogicalResult lowerDemands(mlir::ModuleOp module,
                                 const ast::Program &program,
                                 const ConstEnv &globals);

/// Whether `decl` is a graph that a gather job samples (`access:
/// sample(GRAPH, ...)`); lowerDemands reads its file, so it needs no graph
/// op of its own.
bool isDemandGraph(const ast::Program &program, const ast::Decl &decl);

} // namespace sluice

#endif // SLUICE_FRONTENDS_SLUICE_MLIRGENDEMAND_H
