//===- sluice-opt.cpp - mlir-opt for the Sluice dialects ------------------===//
//
// Parses, verifies, transforms and prints IR in the Sluice dialects; the
// driver of the dialect lit tests.
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/Passes.h"
#include "compiler/Pipelines/PassPipelines.h"
#include "dialects/Common/ToolVersion.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Graph/Transforms/Passes.h"
#include "dialects/Model/IR/ModelOps.h"
#include "dialects/Model/Transforms/Passes.h"
#include "dialects/Plan/IR/PlanOps.h"
#include "dialects/Plan/Transforms/Passes.h"
#include "dialects/Seq/IR/SeqOps.h"
#include "dialects/Topo/IR/TopoOps.h"
#include "dialects/Topo/Transforms/Passes.h"
#include "dialects/Walk/IR/WalkOps.h"
#include "dialects/Walk/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  sluice::installVersionPrinter("sluice-opt");
  mlir::registerTransformsPasses();
  sluice::topo::registerTopoPasses();
  sluice::conversion::registerConversionPasses();
  sluice::walk::registerWalkPasses();
  sluice::graph::registerGraphPasses();
  sluice::plan::registerPlanPasses();
  sluice::model::registerModelPasses();
  sluice::registerWalkPipelines();

  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect, sluice::topo::TopoDialect>();
  registry.insert<sluice::walk::WalkDialect>();
  registry.insert<sluice::graph::GraphDialect>();
  registry.insert<sluice::plan::PlanDialect>();
  registry.insert<sluice::model::ModelDialect>();
  registry.insert<sluice::seq::SeqDialect>();
  // What the lowerings produce (walk-to-llvm: llvm; walk-to-gpu: gpu, scf,
  // arith, math, then cf and nvvm), so that sluice-opt re-reads its own
  // output.
  registry.insert<mlir::LLVM::LLVMDialect, mlir::gpu::GPUDialect,
                  mlir::NVVM::NVVMDialect, mlir::cf::ControlFlowDialect,
                  mlir::scf::SCFDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect>();

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Sluice optimizer driver\n", registry));
}
