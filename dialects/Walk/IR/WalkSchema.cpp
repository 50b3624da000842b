//===- WalkSchema.cpp - Choices of graphs and walk schedules --------------===//
#include "dialects/Walk/IR/WalkSchema.h"

#include "llvm/ADT/StringSwitch.h"
#include <vector>

// The generated stringify/symbolize functions of the walk enums.
#include "dialects/Walk/IR/WalkEnums.cpp.inc"

using namespace sluice;
using namespace sluice::walk;

namespace {
/// Every spelling of an enum with values 0..maxValue.
template <typename E>
std::vector<llvm::StringRef> namesOf(unsigned maxValue,
                                     llvm::StringRef (*stringify)(E)) {
  std::vector<llvm::StringRef> names;
  for (unsigned v = 0; v <= maxValue; ++v)
    names.push_back(stringify(static_cast<E>(v)));
  return names;
}
} // namespace

llvm::ArrayRef<llvm::StringRef> walk::graphFormatNames() {
  static const auto names =
      namesOf(getMaxEnumValForGraphFormat(), stringifyGraphFormat);
  return names;
}

llvm::ArrayRef<llvm::StringRef> walk::duplicatesNames() {
  static const auto names =
      namesOf(getMaxEnumValForDuplicates(), stringifyDuplicates);
  return names;
}

llvm::ArrayRef<llvm::StringRef> walk::selfLoopsNames() {
  static const auto names =
      namesOf(getMaxEnumValForSelfLoops(), stringifySelfLoops);
  return names;
}

llvm::ArrayRef<llvm::StringRef> walk::samplerNames() {
  static const auto names =
      namesOf(getMaxEnumValForSampler(), stringifySampler);
  return names;
}

llvm::ArrayRef<llvm::StringRef> walk::targetNames() {
  static const auto names = namesOf(getMaxEnumValForTarget(), stringifyTarget);
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
