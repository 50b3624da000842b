//===- Passes.h - Passes of the topo dialect --------------------*- C++ -*-===//
//
// createTopoFlatten() / registerTopoFlatten(), and registerTopoPasses() for
// all of them.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_TOPO_TRANSFORMS_PASSES_H
#define SLUICE_DIALECTS_TOPO_TRANSFORMS_PASSES_H

#include "dialects/Topo/IR/TopoOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include <memory>
#include <string>

namespace sluice::topo {

#define GEN_PASS_DECL
#include "dialects/Topo/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dialects/Topo/Transforms/Passes.h.inc"

} // namespace sluice::topo

#endif // SLUICE_DIALECTS_TOPO_TRANSFORMS_PASSES_H
