//===- SelectSampler.cpp - walk-select-sampler: decide each schedule ------===//
//
// Turns what a walk's schedule asks for and what walk-bounds found into the
// `#walk.schedule<...>` that every consumer reads (Passes.td has the table;
// the rule itself is selectStepMethod in WalkSchema.h, shared with nothing
// else so that it exists once).
//
//===----------------------------------------------------------------------===//
#include "dialects/Walk/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"

namespace sluice::walk {
#define GEN_PASS_DEF_WALKSELECTSAMPLER
#include "dialects/Walk/Transforms/Passes.h.inc"
} // namespace sluice::walk

using namespace mlir;
using namespace sluice::walk;

namespace {

struct WalkSelectSamplerPass
    : public sluice::walk::impl::WalkSelectSamplerBase<WalkSelectSamplerPass> {
  using WalkSelectSamplerBase::WalkSelectSamplerBase;

  void runOnOperation() override {
    std::optional<Target> forced;
    if (!target.empty()) {
      forced = symbolizeTarget(target);
      if (!forced) {
        getOperation().emitError("walk-select-sampler: target '")
            << target << "' is not one of " << llvm::join(targetNames(), ", ");
        return signalPassFailure();
      }
    }
    std::optional<Sampler> asked;
    if (!sampler.empty()) {
      asked = symbolizeSampler(sampler);
      if (!asked) {
        getOperation().emitError("walk-select-sampler: sampler '")
            << sampler << "' is not one of "
            << llvm::join(samplerNames(), ", ");
        return signalPassFailure();
      }
    }
    bool anyFailed = false;
    getOperation().walk([&](WalkOp walk) {
      if (mlir::failed(schedule(walk, forced, asked)))
        anyFailed = true;
    });
    if (anyFailed)
      signalPassFailure();
  }

  static LogicalResult schedule(WalkOp walk, std::optional<Target> forced,
                                std::optional<Sampler> asked) {
    std::optional<WeightClass> cls = walk.getWeightClass();
    if (!cls)
      return walk.emitError("walk '")
             << walk.getSymName()
             << "' has no weight_class: run walk-bounds before "
                "walk-select-sampler";
    Sampler requested =
        asked ? *asked : walk.getSampler().value_or(Sampler::Auto);
    Target where = forced ? *forced : walk.getTarget().value_or(Target::Cpu);
    SamplerConflict conflict;
    StepMethod method =
        selectStepMethod(requested, where, *cls, walk.getUnbounded(), conflict);
    if (conflict == SamplerConflict::AliasNeedsStatic)
      return walk.emitError("walk '")
             << walk.getSymName()
             << "' is scheduled with sampler 'alias', but its weight is "
                "dynamic; use 'auto', 'rejection' or 'reservoir'";
    if (conflict == SamplerConflict::RejectionNeedsBound)
      return walk.emitError("walk '")
             << walk.getSymName()
             << "' is scheduled with sampler 'rejection', but its weight has "
                "no upper bound; use 'reservoir' or 'auto'";
    walk.setScheduleAttr(ScheduleAttr::get(
        walk.getContext(), where, method, threadsPerWalker(where, method),
        walk.getThreads().value_or(0), walk.getWalkersPerThread().value_or(0)));
    return success();
  }
};

} // namespace
