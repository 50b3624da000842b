//===- WalkDeviceCode.cpp - walk-to-gpu's checked-in device code ----------===//
#include "compiler/Conversion/WalkToGPU/WalkDeviceCode.h"
#include "compiler/Conversion/WalkToGPU/DeviceFrame.h"
#include "compiler/Conversion/WalkToGPU/KernelArgs.h"

#include "sluice/walk.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"

// kWalkDeviceLibrary, ... (cmake/EmbedFiles.cmake, from device/*.mlir).
#include "compiler/Conversion/WalkToGPU/WalkDeviceFiles.inc"

using namespace mlir;
using namespace sluice;
using namespace sluice::conversion;

namespace {

constexpr llvm::StringLiteral kFrameSlotAttr = "sluice.frame_slot";
constexpr llvm::StringLiteral kWalkConstantAttr = "sluice.walk_constant";
constexpr llvm::StringLiteral kKernelArgAttr = "sluice.kernel_arg";
constexpr llvm::StringLiteral kWalkPrefix = "sluice_walk_WALK";

template <size_t N> StringRef bytes(const unsigned char (&data)[N]) {
  return StringRef(reinterpret_cast<const char *>(data), N - 1);
}

StringRef fileName(DeviceFile file) {
  switch (file) {
  case DeviceFile::Library:
    return "WalkDeviceLibrary.mlir";
  case DeviceFile::ReservoirLibrary:
    return "WalkReservoirLibrary.mlir";
  case DeviceFile::Driver:
    return "WalkDriver.mlir";
  case DeviceFile::RejectionSampler:
    return "WalkRejectionSampler.mlir";
  case DeviceFile::ReservoirSampler:
    return "WalkReservoirSampler.mlir";
  }
  llvm_unreachable("unknown device file");
}

bool isPerWalk(DeviceFile file) {
  return file == DeviceFile::Driver || file == DeviceFile::RejectionSampler ||
         file == DeviceFile::ReservoirSampler;
}

/// Sets the value of the tagged constant `op` and drops the tag.
LogicalResult setTagged(arith::ConstantOp op, StringRef file,
                        const WalkInstance *walk, Location loc) {
  auto fail = [&](const Twine &what) {
    return emitError(loc, "walk-to-gpu: internal error: ")
           << file << ": " << what;
  };
  auto type = dyn_cast<IntegerType>(op.getType());
  auto old = dyn_cast<IntegerAttr>(op.getValue());
  if (!type || !old)
    return fail("a tagged constant must be an integer");
  int64_t value;
  if (auto slot = op->getAttrOfType<StringAttr>(kFrameSlotAttr)) {
    std::optional<int32_t> index = frameSlotNamed(slot.getValue());
    if (!index)
      return fail("unknown frame slot '" + slot.getValue() + "'");
    if (old.getInt() != *index)
      return fail("frame slot '" + slot.getValue() + "' is " +
                  Twine(old.getInt()) + " in the text but " + Twine(*index) +
                  " in DeviceFrame.h");
    value = *index;
    op->removeAttr(kFrameSlotAttr);
  } else if (auto arg = op->getAttrOfType<StringAttr>(kKernelArgAttr)) {
    std::optional<size_t> index = kernelArgNamed(arg.getValue());
    if (!index)
      return fail("unknown kernel argument '" + arg.getValue() + "'");
    if (old.getInt() != static_cast<int64_t>(*index))
      return fail("kernel argument '" + arg.getValue() + "' is field " +
                  Twine(old.getInt()) + " in the text but " + Twine(*index) +
                  " of sluice_walk_gpu_args_t");
    value = static_cast<int64_t>(*index);
    op->removeAttr(kKernelArgAttr);
  } else {
    StringRef name = op->getAttrOfType<StringAttr>(kWalkConstantAttr).getValue();
    if (!walk)
      return fail("per-walk constant '" + name + "' outside a per-walk file");
    if (name == "num_state")
      value = walk->numState;
    else if (name == "threads_per_walker")
      value = walk->threadsPerWalker;
    else if (name == "rejection_max_trials")
      value = SLUICE_WALK_REJECTION_MAX_TRIALS;
    else if (name == "rejection_min_trials")
      value = SLUICE_WALK_REJECTION_MIN_TRIALS;
    else if (name == "rejection_trials_per_edge")
      value = SLUICE_WALK_REJECTION_TRIALS_PER_EDGE;
    else
      return fail("unknown per-walk constant '" + name + "'");
    op->removeAttr(kWalkConstantAttr);
  }
  op.setValueAttr(IntegerAttr::get(type, value));
  return success();
}

} // namespace

StringRef sluice::conversion::deviceFileText(DeviceFile file) {
  switch (file) {
  case DeviceFile::Library:
    return bytes(kWalkDeviceLibrary);
  case DeviceFile::ReservoirLibrary:
    return bytes(kWalkReservoirLibrary);
  case DeviceFile::Driver:
    return bytes(kWalkDriver);
  case DeviceFile::RejectionSampler:
    return bytes(kWalkRejectionSampler);
  case DeviceFile::ReservoirSampler:
    return bytes(kWalkReservoirSampler);
  }
  llvm_unreachable("unknown device file");
}

LogicalResult DeviceCodeBuilder::append(DeviceFile file,
                                        const WalkInstance *walk,
                                        Location loc) {
  if (isPerWalk(file) != (walk != nullptr))
    return emitError(loc, "walk-to-gpu: internal error: ")
           << fileName(file) << (walk ? " is not per walk" : " needs a walk");
  return append(deviceFileText(file), fileName(file), walk, loc);
}

LogicalResult DeviceCodeBuilder::append(StringRef text, StringRef name,
                                        const WalkInstance *walk,
                                        Location loc) {
  MLIRContext *ctx = module.getContext();
  auto fail = [&](const Twine &what) {
    return emitError(loc, "walk-to-gpu: internal error: ") << name << ": "
                                                           << what;
  };

  // Symbol uses are checked once the module is whole (checkImports).
  ParserConfig config(ctx, /*verifyAfterParse=*/false);
  OwningOpRef<ModuleOp> parsed =
      parseSourceString<ModuleOp>(text, config, name);
  if (!parsed)
    return fail("does not parse");
  auto range = parsed->getOps<gpu::GPUModuleOp>();
  if (range.empty())
    return fail("has no gpu.module");
  gpu::GPUModuleOp src = *range.begin();

  if (walk) {
    SmallVector<Operation *> perWalk;
    for (Operation &op : src.getBody()->getOperations())
      if (auto sym = SymbolTable::getSymbolName(&op);
          sym && sym.getValue().starts_with(kWalkPrefix))
        perWalk.push_back(&op);
    for (Operation *op : perWalk) {
      StringRef old = SymbolTable::getSymbolName(op).getValue();
      auto renamed = StringAttr::get(
          ctx, "sluice_walk_" + walk->walk +
                   old.drop_front(kWalkPrefix.size()).str());
      if (failed(SymbolTable::replaceAllSymbolUses(op, renamed, src)))
        return fail("cannot rename '" + old + "'");
      SymbolTable::setSymbolName(op, renamed);
    }
  }

  LogicalResult tagged = success();
  src.walk([&](arith::ConstantOp op) {
    if (succeeded(tagged) &&
        (op->hasAttr(kFrameSlotAttr) || op->hasAttr(kWalkConstantAttr) ||
         op->hasAttr(kKernelArgAttr)))
      tagged = setTagged(op, name, walk, loc);
  });
  if (failed(tagged))
    return failure();

  Block *dst = module.getBody();
  for (Operation &op :
       llvm::make_early_inc_range(src.getBody()->getOperations())) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      continue;
    if (auto fn = dyn_cast<func::FuncOp>(op); fn && fn.isExternal()) {
      imports.emplace_back(fn.getSymName().str(), fn.getFunctionType());
      continue;
    }
    StringAttr sym = SymbolTable::getSymbolName(&op);
    if (sym && SymbolTable::lookupSymbolIn(module, sym))
      return fail("'" + sym.getValue() + "' is defined twice");
    op.moveBefore(dst->getTerminator());
  }
  return success();
}

LogicalResult DeviceCodeBuilder::checkImports(Location loc) const {
  for (const auto &[name, type] : imports) {
    auto fn = dyn_cast_or_null<FunctionOpInterface>(
        SymbolTable::lookupSymbolIn(module, name));
    if (!fn)
      return emitError(loc, "walk-to-gpu: internal error: the device code "
                            "imports '")
             << name << "', which nothing defines";
    if (fn.getFunctionType() != type)
      return emitError(loc, "walk-to-gpu: internal error: the device code "
                            "imports '")
             << name << "' as " << type << " but it is "
             << fn.getFunctionType();
  }
  return success();
}
