//===- GnnToGPU.cpp - gnn-to-gpu: the aggregation kernels of gnn jobs -----===//
//
// The `gnn-to-gpu` pass (Passes.td). For every `model.gnn_train @J` of a
// sage or gcn model (kind K), two kernels in `gpu.module @sluice_gnn`,
// built with the builders, computing what the CPU trainer's aggregation
// computes (runtime/src/gnn/Aggregate.cpp) in the same order, so with the
// same bits:
//
//   sluice_gnn_J_K_forward(%args: !llvm.ptr)    thread t < num_dst * in:
//     d = t / in, j = t % in, x = h[d in + j]
//     sage: agg[d 2in + j] = x; acc = 0.0
//     gcn:  acc = self_coef[d] * x
//     for e in offsets[d] .. offsets[d + 1]:
//       acc = acc + coef[e] * h[nbr[e] in + j]
//     agg[d rows + (sage ? in : 0) + j] = acc
//
//   sluice_gnn_J_K_backward(%args: !llvm.ptr)   thread t < num_src * in:
//     u = t / in, j = t % in, acc = dh[u in + j]
//     for k in offsets[u] .. offsets[u + 1]:
//       acc = acc + coef[k] * da[(slot[k] >> 1) rows + (slot[k] & 1) in + j]
//     dh[u in + j] = acc
//
// with rows = 2 in (sage) or in (gcn). The backward kernel gathers over
// the block's transpose, which the host builds in the order the CPU's
// scatter adds its terms (sluice_gnn_block_transpose, sluice/gnn_gpu.h).
// Multiplies and adds stay separate operations without fast-math flags, so
// the NVPTX back end emits mul.rn.f32 and add.rn.f32 (never contracted to
// an fma), as the CPU computes them. The arguments are the structs of
// sluice/gnn_gpu.h, read by offset (GnnGpuAbi.h).
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/GnnToGPU/GnnGpuAbi.h"
#include "compiler/Conversion/KernelBuilder.h"
#include "compiler/Conversion/Passes.h"

#include "dialects/Model/IR/ModelOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"

namespace sluice::conversion {
#define GEN_PASS_DEF_GNNTOGPU
#include "compiler/Conversion/Passes.h.inc"
} // namespace sluice::conversion

using namespace mlir;
using namespace sluice;
namespace abi = sluice::conversion::gnn_abi;

namespace {

constexpr StringLiteral kModuleName = "sluice_gnn";

using conversion::KernelBuilder;

/// x + c * y in fp32, a separate multiply and add.
Value multiplyAdd(KernelBuilder &k, Value x, Value c, Value y) {
  return k.b.create<arith::AddFOp>(k.loc, x,
                                   k.b.create<arith::MulFOp>(k.loc, c, y));
}
/// A u32 element widened to i64.
Value loadIndex(KernelBuilder &k, Value base, Value index) {
  return k.b.create<arith::ExtUIOp>(k.loc, k.i64, k.load(k.i32, base, index));
}
/// acc = fold over k in [begin, end) of `term(k, acc)`.
Value sum(KernelBuilder &k, Value begin, Value end, Value init,
          function_ref<Value(Value e, Value acc)> term) {
  auto loop =
      k.b.create<scf::ForOp>(k.loc, begin, end, k.c64(1), ValueRange{init});
  OpBuilder::InsertionGuard guard(k.b);
  k.b.setInsertionPointToStart(loop.getBody());
  k.b.create<scf::YieldOp>(
      k.loc, term(loop.getInductionVar(), loop.getRegionIterArg(0)));
  return loop.getResult(0);
}

enum class Direction { Forward, Backward };

/// The kernel `sluice_gnn_<job>_<kind>_<direction>` with its description
/// attribute; the builder is left inside `if (t < num * in)`, with t the
/// global thread id and num, in the args' i64 fields at the byte offsets
/// `numField`, `inField`. Thread t works on feature t % in of row t / in.
struct Kernel {
  Value args, thread, in, row, feature;
};

Kernel beginKernel(KernelBuilder &k, gpu::GPUModuleOp gpuModule,
                   model::GnnTrainOp job, model::GnnOp modelOp,
                   Direction direction, int64_t numField, int64_t inField) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  StringRef kind = model::stringifyGnnKind(modelOp.getKind());
  StringRef dir = direction == Direction::Forward ? "forward" : "backward";
  b.setInsertionPoint(gpuModule.getBody()->getTerminator());
  auto kernel = b.create<gpu::GPUFuncOp>(
      loc, ("sluice_gnn_" + job.getSymName() + "_" + kind + "_" + dir).str(),
      FunctionType::get(b.getContext(), {k.ptr}, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  kernel->setAttr(
      "sluice.gnn_kernel",
      b.getDictionaryAttr(
          {b.getNamedAttr("job", job.getSymNameAttr()),
           b.getNamedAttr("model", modelOp.getSymNameAttr()),
           b.getNamedAttr("kind", b.getStringAttr(kind)),
           b.getNamedAttr("direction", b.getStringAttr(dir)),
           b.getNamedAttr("block", b.getI64IntegerAttr(abi::kBlock))}));
  Block &entry = kernel.getBody().front();
  b.setInsertionPointToStart(&entry);
  b.create<gpu::ReturnOp>(loc);
  b.setInsertionPointToStart(&entry);
  Value args = entry.getArgument(0);
  Value t = k.globalThreadIdX(k.threadIdX());
  // The field `in` read first, then `num` (the order of the IR).
  Value threadsPerRow = k.field(args, inField, k.i64);
  Value count = k.mul(k.field(args, numField, k.i64), threadsPerRow);
  auto active = b.create<scf::IfOp>(
      loc, b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, t, count),
      /*withElse=*/false);
  b.setInsertionPointToStart(active.thenBlock());
  Value in = k.field(args, inField, k.i64);
  return {args, t, in, b.create<arith::DivUIOp>(loc, t, in),
          b.create<arith::RemUIOp>(loc, t, in)};
}

/// The forward kernel (file header).
void buildForward(gpu::GPUModuleOp gpuModule, model::GnnTrainOp job,
                  model::GnnOp modelOp) {
  namespace f = abi::fwd;
  OpBuilder b(job.getContext());
  KernelBuilder k(b, job.getLoc());
  const bool sage = modelOp.getKind() == model::GnnKind::Sage;
  Kernel kernel = beginKernel(k, gpuModule, job, modelOp, Direction::Forward,
                              f::kNumDst, f::kIn);
  Value args = kernel.args, in = kernel.in, d = kernel.row, j = kernel.feature;
  Value offsets = k.field(args, f::kOffsets, k.ptr);
  Value nbr = k.field(args, f::kNbr, k.ptr);
  Value coef = k.field(args, f::kCoef, k.ptr);
  Value h = k.field(args, f::kH, k.ptr);
  Value agg = k.field(args, f::kAgg, k.ptr);
  Value x = k.load(k.f32, h, k.add(k.mul(d, in), j));
  Value rows = sage ? k.add(in, in) : in;
  Value out = k.add(k.mul(d, rows), j);
  Value init;
  if (sage) {
    k.store(x, agg, out);
    out = k.add(out, in);
    init = b.create<arith::ConstantFloatOp>(k.loc, APFloat(0.0f),
                                            cast<FloatType>(k.f32));
  } else {
    Value selfCoef = k.field(args, f::kSelfCoef, k.ptr);
    init = b.create<arith::MulFOp>(k.loc, k.load(k.f32, selfCoef, d), x);
  }
  Value acc = sum(
      k, loadIndex(k, offsets, d), loadIndex(k, offsets, k.add(d, k.c64(1))),
      init, [&](Value e, Value acc) {
        Value u = loadIndex(k, nbr, e);
        return multiplyAdd(k, acc, k.load(k.f32, coef, e),
                           k.load(k.f32, h, k.add(k.mul(u, in), j)));
      });
  k.store(acc, agg, out);
}

/// The backward kernel (file header).
void buildBackward(gpu::GPUModuleOp gpuModule, model::GnnTrainOp job,
                   model::GnnOp modelOp) {
  namespace w = abi::bwd;
  OpBuilder b(job.getContext());
  KernelBuilder k(b, job.getLoc());
  const bool sage = modelOp.getKind() == model::GnnKind::Sage;
  Kernel kernel = beginKernel(k, gpuModule, job, modelOp, Direction::Backward,
                              w::kNumSrc, w::kIn);
  Value args = kernel.args, in = kernel.in, u = kernel.row, j = kernel.feature;
  Value offsets = k.field(args, w::kOffsets, k.ptr);
  Value slot = k.field(args, w::kSlot, k.ptr);
  Value coef = k.field(args, w::kCoef, k.ptr);
  Value da = k.field(args, w::kDa, k.ptr);
  Value dh = k.field(args, w::kDh, k.ptr);
  Value rows = sage ? k.add(in, in) : in;
  Value index = kernel.thread; // u in + j
  Value acc = sum(
      k, loadIndex(k, offsets, u), loadIndex(k, offsets, k.add(u, k.c64(1))),
      k.load(k.f32, dh, index), [&](Value t, Value acc) {
        Value s = loadIndex(k, slot, t);
        Value row = b.create<arith::ShRUIOp>(k.loc, s, k.c64(1));
        Value half = b.create<arith::AndIOp>(k.loc, s, k.c64(1));
        Value at = k.add(k.add(k.mul(row, rows), k.mul(half, in)), j);
        return multiplyAdd(k, acc, k.load(k.f32, coef, t),
                           k.load(k.f32, da, at));
      });
  k.store(acc, dh, index);
}

struct GnnToGPUPass
    : public sluice::conversion::impl::GnnToGPUBase<GnnToGPUPass> {
  using GnnToGPUBase::GnnToGPUBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<model::GnnTrainOp> jobs(module.getOps<model::GnnTrainOp>());
    if (jobs.empty())
      return;
    if (failed(conversion::checkKernelModuleName(module, kModuleName,
                                                 "gnn-to-gpu")))
      return signalPassFailure();
    SmallVector<std::pair<model::GnnTrainOp, model::GnnOp>> kernels;
    for (model::GnnTrainOp job : jobs) {
      auto modelOp = SymbolTable::lookupNearestSymbolFrom<model::GnnOp>(
          job, job.getModelAttr());
      if (!modelOp)
        return (void)(job.emitError("gnn-to-gpu: '")
                          << job.getModel() << "' is not a gnn model",
                      signalPassFailure());
      if (modelOp.getKind() == model::GnnKind::Gat)
        return (void)(job.emitError("not supported yet: GPU aggregation "
                                    "kernels of gat model '")
                          << modelOp.getSymName() << "' (job '"
                          << job.getSymName()
                          << "'); sage and gcn jobs have them",
                      signalPassFailure());
      kernels.push_back({job, modelOp});
    }
    auto gpuModule = conversion::createKernelModule(module, kModuleName);
    for (auto [job, modelOp] : kernels) {
      buildForward(gpuModule, job, modelOp);
      buildBackward(gpuModule, job, modelOp);
    }
    if (failed(mlir::verify(gpuModule)))
      return signalPassFailure();
  }
};

} // namespace
