//===- GraphToLLVM.cpp - graph-to-llvm: algorithms to CPU functions -------===//
//
// The pass (Passes.td): checks that every op of the algorithms has a CPU
// lowering, outlines each algorithm and its loops (AlgorithmOutline.cpp),
// drops the jobs, then converts the graph ops left (GraphOpLowering.cpp).
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/GraphToLLVM/GraphLowering.h"
#include "compiler/Conversion/Passes.h"

#include "dialects/Graph/IR/GraphOps.h"

namespace sluice::conversion {
#define GEN_PASS_DEF_GRAPHTOLLVM
#include "compiler/Conversion/Passes.h.inc"
} // namespace sluice::conversion

using namespace mlir;
using namespace sluice;
using namespace sluice::conversion;

namespace {

struct GraphToLLVMPass
    : public sluice::conversion::impl::GraphToLLVMBase<GraphToLLVMPass> {
  using GraphToLLVMBase::GraphToLLVMBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Built-ins the CPU lowering does not have yet, at their use.
    WalkResult unsupported = module.walk([](Operation *op) {
      if (isa<graph::RandomOp>(op)) {
        op->emitError("not supported yet: '")
            << op->getName() << "' in the CPU lowering of algorithms";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (unsupported.wasInterrupted())
      return signalPassFailure();
    AlgoLowering state;
    state.directInserts = true;
    state.inlineMerges = true;
    state.inlineIds = true;
    state.unswitchWeights = true;
    state.bucketBins = true;
    for (auto algo :
         llvm::make_early_inc_range(module.getOps<graph::AlgorithmOp>()))
      if (failed(outlineAlgorithm(algo, state, remarks)))
        return signalPassFailure();
    for (auto job : llvm::make_early_inc_range(module.getOps<graph::JobOp>()))
      job.erase();
    if (failed(lowerGraphOps(module, state)))
      signalPassFailure();
  }
};

} // namespace
