//===- sluice-opt.cpp - mlir-opt for the Sluice dialects ------------------===//
//
// Parses, verifies, transforms and prints IR in the Sluice dialects; the
// driver of the dialect lit tests.
//
//===----------------------------------------------------------------------===//
#include "dialects/Common/ToolVersion.h"
#include "compiler/Conversion/Passes.h"
#include "dialects/Topo/IR/TopoOps.h"
#include "dialects/Topo/Transforms/Passes.h"
#include "dialects/Walk/IR/WalkOps.h"
#include "dialects/Walk/Transforms/Passes.h"
#include "dialects/Plan/IR/PlanOps.h"
#include "dialects/Plan/Transforms/Passes.h"
#include "dialects/Model/IR/ModelOps.h"
#include "dialects/Model/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  sluice::installVersionPrinter("sluice-opt");
  mlir::registerTransformsPasses();
  sluice::topo::registerTopoPasses();
  sluice::conversion::registerConversionPasses();
  sluice::walk::registerWalkPasses();
  sluice::plan::registerPlanPasses();
  sluice::model::registerModelPasses();

  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect, sluice::topo::TopoDialect>();
  registry.insert<sluice::walk::WalkDialect>();
  registry.insert<sluice::plan::PlanDialect>();
  registry.insert<sluice::model::ModelDialect>();

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Sluice optimizer driver\n", registry));
}
