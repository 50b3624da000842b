//===- TopoPipeline.cpp - Topology phases of the compiler -----------------===//
#include "compiler/Pipelines/TopoPipeline.h"

#include "dialects/Topo/Transforms/Passes.h"

using namespace sluice;
using namespace mlir;

void sluice::buildTopoFlattenPipeline(OpPassManager &pm, llvm::StringRef top) {
  topo::TopoFlattenOptions options;
  options.top = top.str();
  pm.addPass(topo::createTopoFlatten(options));
}
