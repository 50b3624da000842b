//===- Passes.h - Passes of the graph dialect -------------------*- C++ -*-===//
//
// createGraphAttachSchedule(), createGraphHoistSourceTerms() (and their
// register*), and registerGraphPasses() for all of them.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_GRAPH_TRANSFORMS_PASSES_H
#define SLUICE_DIALECTS_GRAPH_TRANSFORMS_PASSES_H

#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include <memory>

namespace sluice::graph {

#define GEN_PASS_DECL
#include "dialects/Graph/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dialects/Graph/Transforms/Passes.h.inc"

} // namespace sluice::graph

#endif // SLUICE_DIALECTS_GRAPH_TRANSFORMS_PASSES_H
