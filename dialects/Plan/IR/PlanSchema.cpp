//===- PlanSchema.cpp - The decisions a plan records ----------------------===//
#include "dialects/Plan/IR/PlanSchema.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ErrorHandling.h"
#include <vector>

// The generated stringify/symbolize functions of the plan enums.
#include "dialects/Plan/IR/PlanEnums.cpp.inc"

using namespace sluice;
using namespace sluice::plan;

llvm::ArrayRef<llvm::StringRef> plan::demandKindNames() {
  static const auto names = [] {
    std::vector<llvm::StringRef> out;
    for (unsigned v = 0; v <= getMaxEnumValForDemandKind(); ++v)
      out.push_back(stringifyDemandKind(static_cast<DemandKind>(v)));
    return out;
  }();
  return names;
}

bool plan::isOverOneGroup(DemandKind kind) {
  return kind != DemandKind::Transfer && kind != DemandKind::Gather &&
         kind != DemandKind::BlockIO;
}

std::optional<CollectiveKind> plan::collectiveOf(DemandKind kind) {
  switch (kind) {
  case DemandKind::AllGather:
    return CollectiveKind::AllGather;
  case DemandKind::ReduceScatter:
    return CollectiveKind::ReduceScatter;
  case DemandKind::AllReduce:
    return CollectiveKind::AllReduce;
  case DemandKind::Transfer:
  case DemandKind::Gather:
  case DemandKind::AllToAll:
  case DemandKind::BlockIO:
    return std::nullopt;
  }
  llvm_unreachable("unknown demand kind");
}
