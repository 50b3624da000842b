//===- Passes.h - Passes of the graph dialect -------------------*- C++ -*-===//
//
// create*() and register*() of each graph pass (Passes.td), and
// registerGraphPasses() for all of them.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_GRAPH_TRANSFORMS_PASSES_H
#define SLUICE_DIALECTS_GRAPH_TRANSFORMS_PASSES_H

#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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
