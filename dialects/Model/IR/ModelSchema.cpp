//===- ModelSchema.cpp - The words of a model -----------------------------===//
#include "dialects/Model/IR/ModelSchema.h"

#include "llvm/ADT/StringSwitch.h"
#include <vector>

// The generated stringify/symbolize functions of the model enums.
#include "dialects/Model/IR/ModelEnums.cpp.inc"

using namespace sluice;
using namespace sluice::model;

llvm::ArrayRef<llvm::StringRef> model::normKindNames() {
  static const auto names = [] {
    std::vector<llvm::StringRef> out;
    for (unsigned v = 0; v <= getMaxEnumValForNormKind(); ++v)
      out.push_back(stringifyNormKind(static_cast<NormKind>(v)));
    return out;
  }();
  return names;
}

llvm::ArrayRef<llvm::StringRef> model::weightQuantNames() {
  static const auto names = [] {
    std::vector<llvm::StringRef> out;
    for (unsigned v = 0; v <= getMaxEnumValForWeightQuant(); ++v)
      out.push_back(stringifyWeightQuant(static_cast<WeightQuant>(v)));
    return out;
  }();
  return names;
}

llvm::ArrayRef<llvm::StringRef> model::compressedTensorsNames() {
  static const auto names = [] {
    std::vector<llvm::StringRef> out;
    for (unsigned v = 0; v <= getMaxEnumValForCompressedTensors(); ++v)
      out.push_back(
          stringifyCompressedTensors(static_cast<CompressedTensors>(v)));
    return out;
  }();
  return names;
}

llvm::ArrayRef<llvm::StringRef> model::tierNames() {
  static const auto names = [] {
    std::vector<llvm::StringRef> out;
    for (unsigned v = 0; v <= getMaxEnumValForTier(); ++v)
      out.push_back(stringifyTier(static_cast<Tier>(v)));
    return out;
  }();
  return names;
}
