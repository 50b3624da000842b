//===- TopoDialect.h - The topo dialect -------------------------*- C++ -*-===//
//
// Declares the `topo` dialect (hardware topologies). Most users want
// TopoOps.h, which includes this header and the attributes.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_TOPO_IR_TOPODIALECT_H
#define SLUICE_DIALECTS_TOPO_IR_TOPODIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialects/Topo/IR/TopoDialect.h.inc"

#endif // SLUICE_DIALECTS_TOPO_IR_TOPODIALECT_H
