//===- Sema.h - Name resolution, type and unit checking --------*- C++ -*-===//
//
// Sema resolves every name in a Program (declarations across imports,
// parameters, loop variables, binders, vertex properties, builtins), checks
// types and units (e.g. "expected bandwidth, got bytes"), checks device and
// link properties against dialects/Topo/IR/TopoSchema.h and the option
// schemas of graphs, walks, schedules, models and jobs, and fills in
// ast::Expr::type. It reports every error it finds (through the
// MLIRContext's diagnostic engine, located) and does not stop at the first.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_FRONTENDS_SLUICE_SEMA_H
#define SLUICE_FRONTENDS_SLUICE_SEMA_H

#include "frontends/sluice/AST.h"
#include "mlir/Support/LogicalResult.h"

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace sluice {

/// Checks `program`; fails if any error was reported.
mlir::LogicalResult checkProgram(ast::Program &program, mlir::MLIRContext *ctx);

} // namespace sluice

#endif // SLUICE_FRONTENDS_SLUICE_SEMA_H
