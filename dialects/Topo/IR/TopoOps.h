//===- TopoOps.h - Operations of the topo dialect ---------------*- C++ -*-===//
//
// topo.topology, topo.device, topo.instance, topo.link and topo.override.
// Include this header to build or inspect topo IR.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_TOPO_IR_TOPOOPS_H
#define SLUICE_DIALECTS_TOPO_IR_TOPOOPS_H

#include "dialects/Topo/IR/TopoAttrs.h"
#include "dialects/Topo/IR/TopoDialect.h"
#include "dialects/Topo/IR/TopoSchema.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"

#define GET_OP_CLASSES
#include "dialects/Topo/IR/TopoOps.h.inc"

#endif // SLUICE_DIALECTS_TOPO_IR_TOPOOPS_H
