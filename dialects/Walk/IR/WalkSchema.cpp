//===- WalkSchema.cpp - Choices of graphs and walk schedules --------------===//
#include "dialects/Walk/IR/WalkSchema.h"

#include "support/EnumNames.h"

#include "llvm/ADT/StringSwitch.h"
#include <vector>

// The generated stringify/symbolize functions of the walk enums.
#include "dialects/Walk/IR/WalkEnums.cpp.inc"

using namespace sluice;
using namespace sluice::walk;


llvm::ArrayRef<llvm::StringRef> walk::graphFormatNames() {
  static const auto names =
      enumNames(getMaxEnumValForGraphFormat(), stringifyGraphFormat);
  return names;
}

llvm::ArrayRef<llvm::StringRef> walk::walksDtypeNames() {
  static const auto names =
      enumNames(getMaxEnumValForWalksDtype(), stringifyWalksDtype);
  return names;
}

llvm::ArrayRef<llvm::StringRef> walk::duplicatesNames() {
  static const auto names =
      enumNames(getMaxEnumValForDuplicates(), stringifyDuplicates);
  return names;
}

llvm::ArrayRef<llvm::StringRef> walk::selfLoopsNames() {
  static const auto names =
      enumNames(getMaxEnumValForSelfLoops(), stringifySelfLoops);
  return names;
}

llvm::ArrayRef<llvm::StringRef> walk::samplerNames() {
  static const auto names =
      enumNames(getMaxEnumValForSampler(), stringifySampler);
  return names;
}

llvm::ArrayRef<llvm::StringRef> walk::targetNames() {
  static const auto names = enumNames(getMaxEnumValForTarget(), stringifyTarget);
  return names;
}

StepMethod walk::selectStepMethod(Sampler requested, Target target,
                                  WeightClass cls, bool unbounded,
                                  SamplerConflict &conflict) {
  conflict = SamplerConflict::None;
  bool uniformWeight =
      cls == WeightClass::Constant || cls == WeightClass::Parameter;
  if (requested == Sampler::Alias && cls == WeightClass::Dynamic)
    conflict = SamplerConflict::AliasNeedsStatic;
  if (requested == Sampler::Rejection && unbounded)
    conflict = SamplerConflict::RejectionNeedsBound;
  if (conflict != SamplerConflict::None)
    return StepMethod::Reservoir;
  if (target == Target::Gpu)
    return unbounded || requested == Sampler::Reservoir ? StepMethod::Reservoir
                                                        : StepMethod::Rejection;
  switch (requested) {
  case Sampler::Auto:
    if (uniformWeight)
      return StepMethod::Uniform;
    if (cls == WeightClass::Static)
      return StepMethod::Alias;
    return unbounded ? StepMethod::Reservoir : StepMethod::CostModel;
  case Sampler::Alias:
    return uniformWeight ? StepMethod::Uniform : StepMethod::Alias;
  case Sampler::Rejection:
    return StepMethod::Rejection;
  case Sampler::Reservoir:
    return StepMethod::Reservoir;
  }
  llvm_unreachable("unknown sampler");
}
