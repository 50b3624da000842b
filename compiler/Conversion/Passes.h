//===- Passes.h - Cross-dialect lowerings -----------------------*- C++ -*-===//
//
// createWalkToLLVM(), createWalkToGPU() and registerConversionPasses().
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_CONVERSION_PASSES_H
#define SLUICE_COMPILER_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include <memory>

namespace sluice::conversion {

#define GEN_PASS_DECL
#include "compiler/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/Conversion/Passes.h.inc"

} // namespace sluice::conversion

#endif // SLUICE_COMPILER_CONVERSION_PASSES_H
