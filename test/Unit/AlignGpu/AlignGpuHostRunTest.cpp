//===- AlignGpuHostRunTest.cpp - align-to-gpu's kernel run on the host ----===//
//
// The kernel align-to-gpu builds for examples/align/extend.sluice, compiled
// for the host instead of the GPU and run by 32 threads per warp: the
// gpu.func becomes a function taking its block and thread ids (block_dim
// := 32, a block per warp); gpu.shuffle and nvvm.bar.warp.sync become
// calls of the harness below, where the warp's threads meet at a barrier
// (a shuffle: each lane posts its value, all meet, each reads its source
// lane's, all meet again). So the IR the pass builds runs as written, lanes
// truly concurrent, on the launcher's arrays (prepareGpuBatch), and every
// field of every pair must equal the row-by-row reference. What remains
// untested without a GPU: convert-gpu-to-nvvm, the NVPTX back end, the
// driver. Links the compiler, so scripts/device-stage.sh does not stage it.
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/Passes.h"
#include "compiler/Pipelines/Compilation.h"
#include "compiler/Pipelines/PassPipelines.h"
#include "compiler/Target/LLVM/Codegen.h"
#include "dialects/Seq/IR/SeqOps.h"
#include "test/Unit/Align/AlignHostLaunch.h"
#include "test/Unit/Align/AlignReference.h"
#include "test/Unit/Support/KernelHostJit.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>

using namespace mlir;
using namespace sluice;
using namespace sluice::test;

namespace {

/// The 32 threads of one emulated warp: a reusable barrier and a slot per
/// lane for the shuffles.
struct Warp {
  std::mutex mutex;
  std::condition_variable cv;
  int arrived = 0;
  uint64_t generation = 0;
  int32_t slots[32] = {};
  uint64_t barriers = 0;

  void barrier() {
    std::unique_lock<std::mutex> lock(mutex);
    uint64_t gen = generation;
    if (++arrived == 32) {
      arrived = 0;
      ++generation;
      ++barriers;
      cv.notify_all();
      return;
    }
    cv.wait(lock, [&] { return generation != gen; });
  }
};

thread_local Warp *tlWarp = nullptr;
thread_local int32_t tlLane = 0;

extern "C" int32_t sluice_emu_shuffle(int32_t value, int32_t source) {
  Warp &w = *tlWarp;
  w.slots[tlLane] = value;
  w.barrier();
  int32_t got = w.slots[source & 31];
  w.barrier();
  return got;
}
extern "C" int32_t sluice_emu_shuffle_xor(int32_t value, int32_t mask) {
  return sluice_emu_shuffle(value, tlLane ^ mask);
}
extern "C" void sluice_emu_sync_warp() { tlWarp->barrier(); }

/// The example's kernel, JIT-compiled for the host once.
struct HostKernel : sluice::test::KernelHostJit {
  using Fn = void (*)(void *args, int64_t block, int64_t thread);
  Fn kernel = nullptr;

  HostKernel() {
    OwningOpRef<ModuleOp> copy = compile(SLUICE_ALIGN_EXAMPLE, "extend.sluice");
    if (!copy)
      return;
    for (Operation &op : llvm::make_early_inc_range(copy->getOps()))
      if (!isa<seq::AlignOp>(op))
        op.erase();
    if (!run(*copy, conversion::createAlignToGPU(), "align-to-gpu"))
      return;
    OwningOpRef<ModuleOp> host = hostModule(*copy);
    if (!host)
      return;
    llvm::StringMap<void *> symbols;
    symbols["sluice_emu_shuffle"] = (void *)&sluice_emu_shuffle;
    symbols["sluice_emu_shuffle_xor"] = (void *)&sluice_emu_shuffle_xor;
    symbols["sluice_emu_sync_warp"] = (void *)&sluice_emu_sync_warp;
    if (jitHost(*host, symbols))
      kernel = reinterpret_cast<Fn>(jit->lookup("sluice_align_extend", error));
  }

  /// The kernel as a func.func (args, block id, thread id); the GPU ops
  /// replaced by the harness's calls.
  OwningOpRef<ModuleOp> hostModule(ModuleOp lowered) {
    auto gpuModule = *lowered.getOps<gpu::GPUModuleOp>().begin();
    auto kernelOp = *gpuModule.getOps<gpu::GPUFuncOp>().begin();
    OwningOpRef<ModuleOp> host(ModuleOp::create(lowered.getLoc()));
    OpBuilder b = OpBuilder::atBlockEnd(host->getBody());
    Location loc = kernelOp.getLoc();
    Type i32 = b.getI32Type(), idx = b.getIndexType();
    auto declare = [&](StringRef name, TypeRange args, TypeRange results) {
      auto fn =
          b.create<func::FuncOp>(loc, name, b.getFunctionType(args, results));
      fn.setPrivate();
    };
    declare("sluice_emu_shuffle", {i32, i32}, {i32});
    declare("sluice_emu_shuffle_xor", {i32, i32}, {i32});
    declare("sluice_emu_sync_warp", {}, {});
    SmallVector<Type> inputs(kernelOp.getArgumentTypes());
    inputs.push_back(idx);
    inputs.push_back(idx);
    auto fn = b.create<func::FuncOp>(loc, kernelOp.getName(),
                                     b.getFunctionType(inputs, {}));
    fn.getBody().takeBody(kernelOp.getBody());
    Block &entry = fn.getBody().front();
    Value block = entry.addArgument(idx, loc);
    Value thread = entry.addArgument(idx, loc);
    SmallVector<Operation *> gpuOps;
    fn.walk([&](Operation *op) {
      if (isa<gpu::GPUDialect, NVVM::NVVMDialect>(op->getDialect()))
        gpuOps.push_back(op);
    });
    for (Operation *op : gpuOps) {
      b.setInsertionPoint(op);
      if (isa<gpu::BlockIdOp>(op)) {
        op->getResult(0).replaceAllUsesWith(block);
      } else if (isa<gpu::ThreadIdOp>(op)) {
        op->getResult(0).replaceAllUsesWith(thread);
      } else if (isa<gpu::BlockDimOp>(op)) {
        op->getResult(0).replaceAllUsesWith(
            b.create<arith::ConstantIndexOp>(loc, 32));
      } else if (auto shuffle = dyn_cast<gpu::ShuffleOp>(op)) {
        StringRef callee = shuffle.getMode() == gpu::ShuffleMode::XOR
                               ? "sluice_emu_shuffle_xor"
                               : "sluice_emu_shuffle";
        if (shuffle.getMode() != gpu::ShuffleMode::XOR &&
            shuffle.getMode() != gpu::ShuffleMode::IDX) {
          error = "the harness has no shuffle of this mode";
          return nullptr;
        }
        auto call = b.create<func::CallOp>(
            loc, callee, TypeRange{i32},
            ValueRange{shuffle.getValue(), shuffle.getOffset()});
        shuffle.getShuffleResult().replaceAllUsesWith(call.getResult(0));
        shuffle.getValid().replaceAllUsesWith(
            b.create<arith::ConstantIntOp>(loc, 1, 1));
      } else if (isa<NVVM::SyncWarpOp>(op)) {
        b.create<func::CallOp>(loc, "sluice_emu_sync_warp", TypeRange{},
                               ValueRange{});
      } else if (isa<gpu::ReturnOp>(op)) {
        b.create<func::ReturnOp>(loc);
      } else {
        error = "the harness does not know '" +
                op->getName().getStringRef().str() + "'";
        return nullptr;
      }
      op->erase();
    }
    return host;
  }
};

/// Built once and never destroyed (see AlgoGpuEmulationTest.cpp).
HostKernel &hostKernel() {
  static HostKernel *k = new HostKernel();
  return *k;
}

/// Runs the host kernel on `pairs` with `warps` warps of 32 threads.
void checkAgainstReference(const Pairs &pairs, const sluice_align_scoring_t &sc,
                           uint64_t warps, const std::string &what) {
  HostKernel &k = hostKernel();
  ASSERT_TRUE(k.kernel) << k.error;
  HostLaunch launch(pairs, sc, warps);
  sluice_align_gpu_args_t &a = launch.args;
  // One more warp than `warps`: it must return at once (no scratch).
  std::vector<Warp> warpStates(warps + 1);
  std::vector<std::thread> threads;
  for (uint64_t w = 0; w <= warps; ++w)
    for (int lane = 0; lane < 32; ++lane)
      threads.emplace_back([&, w, lane] {
        tlWarp = &warpStates[w];
        tlLane = lane;
        k.kernel(&a, int64_t(w), int64_t(lane));
      });
  for (std::thread &th : threads)
    th.join();
  EXPECT_EQ(launch.next, pairs.size() + warps)
      << what << ": each warp takes one past";
  EXPECT_EQ(warpStates[warps].barriers, 0u) << what << ": the extra warp ran";
  for (size_t p = 0; p < pairs.size(); ++p)
    EXPECT_EQ(describe(referenceAlign(pairs[p].first, pairs[p].second, sc)),
              describe(launch.results[p]))
        << what << " pair " << p;
}

Pairs generate(uint64_t seed, size_t count, size_t length, size_t junk) {
  return generatePairs(seed, count, length, 0.05, 0.04, junk);
}

TEST(AlignGpuHostRun, HandCasesAndPlateaus) {
  const std::string m = "ACGTTGCAAC";
  checkAgainstReference({{"ACGTACGT", "ACGTACGT"},
                         {"ACGTGTACGTAC", "ACGTACGTACGTAC"},
                         {"AAAA", "CCCC"},
                         {"", "ACGT"},
                         {"ANGT", "ANGT"},
                         {"ACGTACGTACGTACGT", "ACGT"}},
                        {2, 4, 4, 2, 3, 400}, 2, "hand cases");
  checkAgainstReference({{m + std::string(46, 'A'), m + std::string(83, 'C')}},
                        {3, 255, 0, 1, 107, 20}, 1, "plateau");
}

// Bands below, at and above 32 lanes; Z-drops; three warps sharing the
// queue, reusing poisoned scratch.
TEST(AlignGpuHostRun, GeneratedReads) {
  for (int band : {5, 32, 70})
    checkAgainstReference(generate(band, 6, 160, 40), {2, 4, 4, 2, band, 30}, 3,
                          "band " + std::to_string(band));
  checkAgainstReference(generate(9, 6, 160, 40), {1, 1, 10, 3, 8, -1}, 2,
                        "gap-heavy, no Z-drop");
}

} // namespace
