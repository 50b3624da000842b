//===- WalkToGPU.cpp - walk.walk to a gpu.module of walk kernels ----------===//
//
// The `walk-to-gpu` pass (see Passes.td): every walk.walk becomes a kernel
// `gpu.func @sluice_walk_<W>` in one `gpu.module @sluice_walks`: one thread
// per walker, rejection sampling against the walk's upper_bound region with
// the exact two-pass fallback after min(64, max(4, 2 * degree)) trials (the
// CPU engine's rejection mode), Philox4x32-10 inline with WalkRng's keying.
// The walk's weight, stop, update, init and upper_bound regions become
// device functions (func.func inside the gpu.module) that read a per-thread
// frame of 8-byte slots; graph built-ins become loads and a binary search.
//
// The device library (Philox, the walker's random stream, graph queries)
// and the per-walk driver and samplers are checked-in .mlir files
// (device/, WalkDeviceCode.h) instantiated into the gpu.module; the walk
// ops in the outlined regions are lowered by the patterns walk-to-llvm
// shares (WalkOpLowering.h) with GpuWalkModel below. Everything stays in func/scf/arith/llvm/gpu: the upstream conversions
// (scf-to-cf, convert-gpu-to-nvvm) lower it (compileWalksToPtx).
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/KernelBuilder.h"
#include "compiler/Conversion/Passes.h"
#include "compiler/Conversion/WalkOpLowering.h"
#include "compiler/Conversion/WalkRegionClone.h"
#include "compiler/Conversion/WalkToGPU/DeviceFrame.h"
#include "compiler/Conversion/WalkToGPU/DeviceIntDivision.h"
#include "compiler/Conversion/WalkToGPU/WalkDeviceCode.h"

#include "dialects/Walk/IR/WalkOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"

#include <string>

namespace sluice::conversion {
#define GEN_PASS_DEF_WALKTOGPU
#include "compiler/Conversion/Passes.h.inc"
} // namespace sluice::conversion

using namespace mlir;
using namespace sluice;

using namespace sluice::conversion;

namespace {

/// The GPU reads the device frame's slots and calls the device library.
class GpuWalkModel final : public conversion::WalkTargetModel {
public:
  Value step(OpBuilder &b, Location loc, Value frame) const override {
    return frameValue(b, loc, frame, kStep, b.getI64Type());
  }
  Value slots(OpBuilder &b, Location loc, Value frame,
              conversion::SlotBlock block) const override {
    return frameValue(b, loc, frame,
                      block == conversion::SlotBlock::Params ? kParams
                                                             : kState,
                      LLVM::LLVMPointerType::get(b.getContext()));
  }
  Value query(OpBuilder &b, Location loc, Value frame,
              conversion::WalkQuery q, ValueRange operands) const override;
  Value labelMass(OpBuilder &, Location, Value, walk::LabelMassOp,
                  ValueRange) const override {
    // Only in the sum bounds, which no GPU kernel calls (checked before).
    llvm_unreachable("label_mass in GPU code");
  }

  /// Frame slot `slot` as `type` (i32, i64 or a pointer).
  static Value frameValue(OpBuilder &b, Location loc, Value frame,
                          FrameSlot slot, Type type) {
    StringRef callee = type.isInteger(32)   ? "sluice_frame_i32"
                       : type.isInteger(64) ? "sluice_frame_i64"
                                            : "sluice_frame_ptr";
    Value index = b.create<arith::ConstantIntOp>(loc, slot, 32);
    return b.create<func::CallOp>(loc, callee, type, ValueRange{frame, index})
        .getResult(0);
  }
};

Value GpuWalkModel::query(OpBuilder &b, Location loc, Value frame,
                          conversion::WalkQuery q, ValueRange operands) const {
  using conversion::WalkQuery;
  Type i1 = b.getI1Type(), i32 = b.getI32Type(), i64 = b.getI64Type(),
       f64 = b.getF64Type();
  // Device library functions take the frame first, then the operands.
  auto call = [&](StringRef callee, Type result,
                  std::optional<int32_t> extra = std::nullopt) {
    SmallVector<Value> args = {frame};
    args.append(operands.begin(), operands.end());
    if (extra)
      args.push_back(b.create<arith::ConstantIntOp>(loc, *extra, 32));
    return b.create<func::CallOp>(loc, callee, result, args).getResult(0);
  };
  switch (q) {
  case WalkQuery::Random:
    return call("sluice_random", f64);
  case WalkQuery::Degree:
    return call("sluice_degree", i64);
  case WalkQuery::HasEdge:
    return call("sluice_has_edge", i1);
  case WalkQuery::EdgeWeight:
    return call("sluice_edge_weight", f64);
  case WalkQuery::EdgeLabel:
    return call("sluice_edge_label", i64);
  case WalkQuery::Label:
    return call("sluice_label", i64);
  case WalkQuery::NumVertices:
    return frameValue(b, loc, frame, kNumVertices, i64);
  case WalkQuery::NumEdges:
    return frameValue(b, loc, frame, kNumEdges, i64);
  case WalkQuery::VertexOf:
    return call("sluice_vertex_of", i32);
  case WalkQuery::WeightMax:
    return call("sluice_weight_stat", f64, 0);
  case WalkQuery::WeightMin:
    return call("sluice_weight_stat", f64, 1);
  case WalkQuery::WeightSum:
    return call("sluice_weight_stat", f64, 2);
  case WalkQuery::ListGet:
    return call("sluice_list_get", i64);
  case WalkQuery::ListSize: // the list alone, no frame
    return b.create<func::CallOp>(loc, "sluice_list_size", i64, operands)
        .getResult(0);
  case WalkQuery::IntDiv:
    return call("sluice_idiv", i64);
  case WalkQuery::IntRem:
    return call("sluice_irem", i64);
  }
  llvm_unreachable("unknown walk query");
}

class DeviceOutliner {
public:
  DeviceOutliner(gpu::GPUModuleOp gpuModule, walk::WalkOp walk)
      : gpuModule(gpuModule), walk(walk), ctx(walk.getContext()),
        ptr(LLVM::LLVMPointerType::get(ctx)), i1(IntegerType::get(ctx, 1)),
        i32(IntegerType::get(ctx, 32)), i64(IntegerType::get(ctx, 64)),
        f64(Float64Type::get(ctx)) {}

  /// Outlines `region` (or the default body when it is empty) as
  /// sluice_walk_<W>_<name>.
  LogicalResult outline(Region &region, StringRef name);

private:
  Value frameI32(OpBuilder &b, Location loc, FrameSlot slot) {
    return GpuWalkModel::frameValue(b, loc, frame, slot, i32);
  }
  Value frameI64(OpBuilder &b, Location loc, FrameSlot slot) {
    return GpuWalkModel::frameValue(b, loc, frame, slot, i64);
  }

  gpu::GPUModuleOp gpuModule;
  walk::WalkOp walk;
  MLIRContext *ctx;
  Type ptr, i1, i32, i64, f64;
  Value frame;
};

LogicalResult DeviceOutliner::outline(Region &region, StringRef name) {
  Location loc = region.empty() ? walk.getLoc() : region.getLoc();
  std::string symbol = ("sluice_walk_" + walk.getSymName() + "_" + name).str();
  SmallVector<Type> inputs = {ptr}, results;
  if (name == "weight") {
    inputs.append({i32, i64, f64});
    results = {f64};
  } else if (name == "stop") {
    results = {i1};
  } else if (name == "update") {
    inputs.push_back(i32);
  } else if (name == "upper_bound") {
    results = {f64};
  }
  OpBuilder b = OpBuilder::atBlockTerminator(gpuModule.getBody());
  auto func = b.create<func::FuncOp>(loc, symbol,
                                     FunctionType::get(ctx, inputs, results));
  func.setPrivate();
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  frame = entry->getArgument(0);
  if (region.empty()) {
    // No stop rule: never stop; no update / init: nothing to do.
    if (name == "stop")
      b.create<func::ReturnOp>(loc, ValueRange{b.create<arith::ConstantIntOp>(
                                        loc, 0, 1)});
    else
      b.create<func::ReturnOp>(loc);
    return success();
  }

  SmallVector<Value> args;
  if (name == "weight")
    args = {frameI32(b, loc, kPrev), frameI32(b, loc, kCur),
            entry->getArgument(1), entry->getArgument(2),
            entry->getArgument(3)};
  else if (name == "stop")
    args = {frameI32(b, loc, kCur), frameI64(b, loc, kStep)};
  else if (name == "update")
    args = {frameI32(b, loc, kPrev), frameI32(b, loc, kCur),
            entry->getArgument(1)};
  else if (name == "upper_bound")
    args = {frameI32(b, loc, kCur)};
  SmallVector<Value> values;
  FailureOr<walk::YieldOp> cloned =
      conversion::cloneWalkRegion(b, walk, region, args, "walk-to-gpu", name,
                                  values);
  if (failed(cloned))
    return failure();
  walk::YieldOp yield = *cloned;
  if (name == "init") {
    if (values.size() != walk.getStateTypes().size())
      return yield.emitError("walk-to-gpu: init yields ")
             << values.size() << " values for "
             << walk.getStateTypes().size() << " state variables";
    for (auto [i, v] : llvm::enumerate(values))
      conversion::storeWalkSlot(
          b, yield.getLoc(),
          GpuWalkModel::frameValue(b, yield.getLoc(), frame, kState, ptr), i,
          v);
    b.create<func::ReturnOp>(yield.getLoc());
  } else if (name == "update") {
    b.create<func::ReturnOp>(yield.getLoc());
  } else {
    if (values.size() != 1 || values[0].getType() != results[0])
      return yield.emitError("walk-to-gpu: the ")
             << name << " region must yield one " << results[0];
    b.create<func::ReturnOp>(yield.getLoc(), values[0]);
  }

  return conversion::lowerWalkOps(func, GpuWalkModel());
}

struct WalkToGPUPass
    : public sluice::conversion::impl::WalkToGPUBase<WalkToGPUPass> {
  using WalkToGPUBase::WalkToGPUBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<walk::WalkOp> walks(module.getOps<walk::WalkOp>());

    // Everything checked before anything is built.
    bool ok = true;
    for (walk::WalkOp w : walks) {
      walk::ScheduleAttr schedule = w.getScheduleAttr();
      if (!schedule || schedule.getTarget() != walk::Target::Gpu) {
        w.emitError("walk-to-gpu: walk '")
            << w.getSymName() << "' is "
            << (schedule ? "scheduled for the cpu" : "not scheduled")
            << "; run walk-select-sampler with target=gpu first";
        ok = false;
        continue;
      }
      // label_mass answers only the sum bounds, which no GPU kernel calls.
      w.getUpperBound().walk([&](walk::LabelMassOp op) {
        op.emitError("walk-to-gpu: not supported yet: 'walk.label_mass' "
                     "in GPU code");
        ok = false;
      });
    }
    if (!ok)
      return signalPassFailure();
    if (walks.empty())
      return;
    if (failed(conversion::checkKernelModuleName(module, "sluice_walks",
                                                 "walk-to-gpu")))
      return signalPassFailure();

    auto gpuModule = conversion::createKernelModule(module, "sluice_walks");
    conversion::DeviceCodeBuilder device(gpuModule);
    using conversion::DeviceFile;
    if (failed(device.append(DeviceFile::Library, nullptr, module.getLoc())))
      return signalPassFailure();
    sluice::conversion::buildDeviceIntDivision(gpuModule);
    auto reservoir = [](walk::WalkOp w) {
      return w.getScheduleAttr().getMethod() == walk::StepMethod::Reservoir;
    };
    if (llvm::any_of(walks, reservoir) &&
        failed(device.append(DeviceFile::ReservoirLibrary, nullptr,
                             module.getLoc())))
      return signalPassFailure();
    for (walk::WalkOp w : walks) {
      bool warp = reservoir(w);
      conversion::WalkInstance instance;
      instance.walk = w.getSymName().str();
      instance.numState = std::max<int64_t>(1, w.getStateTypes().size());
      instance.threadsPerWalker = w.getScheduleAttr().getThreadsPerWalker();
      if (failed(device.append(DeviceFile::Driver, &instance, w.getLoc())) ||
          failed(device.append(warp ? DeviceFile::ReservoirSampler
                                    : DeviceFile::RejectionSampler,
                               &instance, w.getLoc())))
        return signalPassFailure();
      DeviceOutliner outliner(gpuModule, w);
      std::pair<Region *, StringRef> regions[] = {
          {&w.getWeight(), "weight"},
          {&w.getStop(), "stop"},
          {&w.getUpdate(), "update"},
          {&w.getInit(), "init"},
          {&w.getUpperBound(), "upper_bound"}};
      for (auto [region, name] : regions)
        if ((!warp || name != "upper_bound") &&
            failed(outliner.outline(*region, name)))
          return signalPassFailure();
    }
    // The walks are compiled; graph and job ops have no device code.
    for (Operation &op : llvm::make_early_inc_range(module.getOps()))
      if (isa<walk::WalkDialect>(op.getDialect()))
        op.erase();
    if (failed(device.checkImports(module.getLoc())) ||
        failed(mlir::verify(gpuModule)))
      return signalPassFailure();
  }
};

} // namespace
