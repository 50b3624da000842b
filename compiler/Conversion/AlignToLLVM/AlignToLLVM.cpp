//===- AlignToLLVM.cpp - align-to-llvm: align jobs as CPU functions -------===//
//
// The `align-to-llvm` pass (Passes.td). Every `seq.align @J` becomes
//
//   func.func @sluice_align_J_pair(%query: !llvm.ptr, %qlen: i32,
//                                  %target: !llvm.ptr, %tlen: i32,
//                                  %scratch: !llvm.ptr, %result: !llvm.ptr)
//
// with the job's scoring as constants: one pair's alignment (base codes
// 0..4, scratch of 7 * (tlen + 2) i32, one sluice_align_result_t written),
// the anti-diagonal loop of AlignWavefront.cpp with one lane. The C
// declaration is sluice_align_pair_kernel_t (runtime/include/sluice/
// align.h); sluice_align_batch_compiled runs it on the runtime's threads.
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/AlignToGPU/AlignGpuAbi.h"
#include "compiler/Conversion/AlignToGPU/AlignWavefront.h"
#include "compiler/Conversion/Passes.h"

#include "dialects/Seq/IR/SeqOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"

namespace sluice::conversion {
#define GEN_PASS_DEF_ALIGNTOLLVM
#include "compiler/Conversion/Passes.h.inc"
} // namespace sluice::conversion

using namespace mlir;
using namespace sluice;
using namespace sluice::conversion::align;
namespace abi = sluice::conversion::align_abi;

namespace {

/// The function of `op`, at the end of `module`.
void buildPairFunction(ModuleOp module, seq::AlignOp op) {
  using P = arith::CmpIPredicate;
  MLIRContext *ctx = module.getContext();
  Location loc = op.getLoc();
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  KernelBuilder k(b, loc);
  auto fn = b.create<func::FuncOp>(
      loc, ("sluice_align_" + op.getSymName() + "_pair").str(),
      FunctionType::get(ctx, {k.ptr, k.i32, k.ptr, k.i32, k.ptr, k.ptr}, {}));
  fn->setAttr(
      "sluice.align_kernel",
      b.getDictionaryAttr({b.getNamedAttr("job", op.getSymNameAttr()),
                           b.getNamedAttr("lanes", b.getI64IntegerAttr(1))}));
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToStart(entry);
  auto scoring = [&](IntegerAttr a) { return k.c32(int32_t(a.getInt())); };
  Pair p;
  p.query = entry->getArgument(0);
  p.qlen = entry->getArgument(1);
  p.target = entry->getArgument(2);
  p.tlen = entry->getArgument(3);
  Value scratch = entry->getArgument(4), result = entry->getArgument(5);
  p.match = scoring(op.getMatchAttr());
  p.mismatch = scoring(op.getMismatchAttr());
  p.gapOpen = scoring(op.getGapOpenAttr());
  p.gapExtend = scoring(op.getGapExtendAttr());
  p.band = scoring(op.getBandAttr());
  p.zdrop = scoring(op.getZdropAttr());
  p.oe = k.add(p.gapOpen, p.gapExtend);
  // Seven rows of tlen + 2 (index 0 is the virtual row i = -1).
  Value row = b.create<arith::ExtUIOp>(loc, k.i64, k.add(p.tlen, k.c32(2)));
  SmallVector<Value> rows;
  for (int64_t i = 0; i < abi::kScratchRows; ++i)
    rows.push_back(k.at(k.i32, scratch, k.mul(row, k.c64(i))));
  Value zero = k.c32(0), negInf = k.c32(abi::kNegInf);
  SmallVector<Value> empty = {zero,      k.c32(-1), k.c32(-1), negInf,
                              k.c32(-1), negInf,    zero};
  SmallVector<Type> types(abi::kResultFields, k.i32);
  auto aligned = b.create<scf::IfOp>(
      loc, types,
      k.land(k.cmp(P::sgt, p.qlen, zero), k.cmp(P::sgt, p.tlen, zero)),
      /*withElse=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(aligned.thenBlock());
    b.create<scf::YieldOp>(loc, buildAlignment(k, p, {1, zero}, rows));
    b.setInsertionPointToStart(aligned.elseBlock());
    b.create<scf::YieldOp>(loc, empty);
  }
  for (int64_t f = 0; f < abi::kResultFields; ++f)
    k.store(aligned.getResult(f), result, k.c64(f));
  b.create<func::ReturnOp>(loc);
}

struct AlignToLLVMPass
    : public sluice::conversion::impl::AlignToLLVMBase<AlignToLLVMPass> {
  using AlignToLLVMBase::AlignToLLVMBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<seq::AlignOp> jobs(module.getOps<seq::AlignOp>());
    for (seq::AlignOp job : jobs) {
      std::string name = ("sluice_align_" + job.getSymName() + "_pair").str();
      if (SymbolTable::lookupSymbolIn(module, name))
        return (void)(job.emitError("align-to-llvm: the symbol '")
                          << name << "' is taken",
                      signalPassFailure());
      buildPairFunction(module, job);
      job.erase();
    }
    if (failed(mlir::verify(module)))
      return signalPassFailure();
  }
};

} // namespace
