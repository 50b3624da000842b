//===- GnnGpuHostRunTest.cpp - gnn-to-gpu's kernels run on the host -------===//
//
// The aggregation kernels gnn-to-gpu builds for Inputs/gnn-kernels.sluice
// (a sage and a gcn job), compiled for the host instead of the GPU: each
// gpu.func becomes a function of (args, block id, thread id) with
// block_dim := SLUICE_GNN_GPU_BLOCK, lowered by the upstream CPU
// conversions and JIT-compiled; the harness runs every thread of the grid
// the runtime launches (sluice_gnn_gpu_forward/backward) on host arrays,
// the backward pass over sluice_gnn_block_transpose. So the IR the pass
// builds runs as written, and every value must equal the CPU trainer's
// aggregation bit for bit; threads past the end must write nothing. What
// remains untested without a GPU: convert-gpu-to-nvvm, the NVPTX back end
// (the lit test checks its mul.rn/add.rn), the driver. Links the
// compiler, so scripts/device-stage.sh does not stage it.
//
//===----------------------------------------------------------------------===//
#include "test/Unit/GnnGpu/GnnGpuCases.h"
#include "test/Unit/Support/KernelHostJit.h"

#include "compiler/Conversion/Passes.h"
#include "compiler/Pipelines/Compilation.h"
#include "compiler/Target/LLVM/Codegen.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

using namespace mlir;
using namespace sluice;
using namespace sluice::test::gnngpu;

namespace {

using Fn = void (*)(const void *args, int64_t block, int64_t thread);

/// The program's four kernels, JIT-compiled for the host once.
struct HostKernels : sluice::test::KernelHostJit {
  std::map<std::string, Fn> kernels;

  HostKernels() {
    OwningOpRef<ModuleOp> copy =
        compile(SLUICE_GNN_KERNELS_SLUICE, "gnn-kernels.sluice");
    if (!copy || !run(*copy, conversion::createGnnToGPU(), "gnn-to-gpu"))
      return;
    std::vector<std::string> names;
    OwningOpRef<ModuleOp> host = hostModule(*copy, names);
    if (!host || !jitHost(*host, {}))
      return;
    for (const std::string &name : names)
      if (void *fn = jit->lookup(name, error))
        kernels[name] = reinterpret_cast<Fn>(fn);
  }

  /// Each kernel as a func.func (args, block id, thread id).
  OwningOpRef<ModuleOp> hostModule(ModuleOp lowered,
                                   std::vector<std::string> &names) {
    auto gpuModule = *lowered.getOps<gpu::GPUModuleOp>().begin();
    OwningOpRef<ModuleOp> host(ModuleOp::create(lowered.getLoc()));
    OpBuilder b = OpBuilder::atBlockEnd(host->getBody());
    Type idx = b.getIndexType();
    for (auto kernelOp :
         llvm::make_early_inc_range(gpuModule.getOps<gpu::GPUFuncOp>())) {
      Location loc = kernelOp.getLoc();
      names.push_back(kernelOp.getName().str());
      SmallVector<Type> inputs(kernelOp.getArgumentTypes());
      inputs.push_back(idx);
      inputs.push_back(idx);
      b.setInsertionPointToEnd(host->getBody());
      auto fn = b.create<func::FuncOp>(loc, kernelOp.getName(),
                                       b.getFunctionType(inputs, {}));
      fn.getBody().takeBody(kernelOp.getBody());
      Block &entry = fn.getBody().front();
      Value block = entry.addArgument(idx, loc);
      Value thread = entry.addArgument(idx, loc);
      SmallVector<Operation *> gpuOps;
      fn.walk([&](Operation *op) {
        if (isa<gpu::GPUDialect>(op->getDialect()))
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
              b.create<arith::ConstantIndexOp>(loc, SLUICE_GNN_GPU_BLOCK));
        } else if (isa<gpu::ReturnOp>(op)) {
          b.create<func::ReturnOp>(loc);
        } else {
          error = "the harness does not know '" +
                  op->getName().getStringRef().str() + "'";
          return nullptr;
        }
        op->erase();
      }
    }
    return host;
  }

  Fn kernel(const std::string &name) const {
    auto it = kernels.find(name);
    return it == kernels.end() ? nullptr : it->second;
  }
};

/// Built once and never destroyed (see AlgoGpuEmulationTest.cpp).
HostKernels &hostKernels() {
  static HostKernels *k = new HostKernels();
  return *k;
}

/// Every thread of the launch of `threads` threads, in blocks.
void launch(Fn kernel, const void *args, uint64_t threads) {
  const uint64_t blocks =
      (threads + SLUICE_GNN_GPU_BLOCK - 1) / SLUICE_GNN_GPU_BLOCK;
  for (uint64_t blk = 0; blk < blocks; ++blk)
    for (int64_t t = 0; t < SLUICE_GNN_GPU_BLOCK; ++t)
      kernel(args, int64_t(blk), t);
}

uint64_t address(const void *p) { return uint64_t(uintptr_t(p)); }

/// A canary after the last value: threads past the end must not write.
constexpr size_t kCanary = 64;
constexpr float kCanaryValue = 12345.0f;

bool canaryIntact(const std::vector<float> &v, size_t n) {
  return std::all_of(v.begin() + n, v.end(),
                     [](float x) { return x == kCanaryValue; });
}

struct Kind {
  const char *job, *name;
  sluice_gnn_kind_t kind;
  bool sage;
};
const Kind kKinds[] = {{"meansum", "sage", SLUICE_GNN_SAGE, true},
                       {"normsum", "gcn", SLUICE_GNN_GCN, false}};

std::string kernelName(const Kind &k, const char *direction) {
  return std::string("sluice_gnn_") + k.job + "_" + k.name + "_" + direction;
}

/// The forward kernel's aggregate of `h` into `agg`, launched as
/// sluice_gnn_gpu_forward launches it, on the block's own arrays.
void runForward(Fn kernel, const sluice_gnn_block_t &b, const float *h,
                uint32_t in, float *agg) {
  sluice_gnn_gpu_forward_args_t a{};
  a.offsets = address(b.offsets);
  a.nbr = address(b.nbr);
  a.coef = address(b.coef);
  a.self_coef = address(b.self_coef);
  a.h = address(h);
  a.agg = address(agg);
  a.num_dst = b.num_dst;
  a.in = in;
  launch(kernel, &a, uint64_t(b.num_dst) * in);
}

/// The forward kernel's aggregate of `h`, as the runtime launches it.
std::vector<float> hostForward(Fn kernel, const rt::gnn::Block &b, bool sage,
                               const std::vector<float> &h, size_t in) {
  const size_t n = size_t(b.numDst) * (sage ? 2 : 1) * in;
  std::vector<float> agg(n + kCanary, kCanaryValue);
  sluice_gnn_gpu_forward_args_t a{};
  a.offsets = address(b.offsets.data());
  a.nbr = address(b.nbr.data());
  a.coef = address(b.coef.data());
  a.self_coef = address(b.selfCoef.data());
  a.h = address(h.data());
  a.agg = address(agg.data());
  a.num_dst = b.numDst;
  a.in = in;
  launch(kernel, &a, uint64_t(b.numDst) * in);
  EXPECT_TRUE(canaryIntact(agg, n)) << "a thread past the end wrote";
  agg.resize(n);
  return agg;
}

/// The transpose of `b` (sluice_gnn_block_transpose); `reverse` reverses
/// each src's terms (not the CPU's order).
struct Transpose {
  std::vector<uint32_t> offsets, slot;
  std::vector<float> coef;
  Transpose(const rt::gnn::Block &b, sluice_gnn_kind_t kind, bool reverse) {
    const size_t terms = b.numDst + b.nbr.size();
    offsets.resize(b.numSrc() + 1);
    slot.resize(terms);
    coef.resize(terms);
    sluice_gnn_block_t v = view(b);
    sluice_error_t error;
    EXPECT_EQ(sluice_gnn_block_transpose(&v, kind, offsets.data(), slot.data(),
                                         coef.data(), &error),
              SLUICE_STATUS_OK)
        << error.message;
    if (reverse)
      for (uint32_t u = 0; u < b.numSrc(); ++u) {
        std::reverse(slot.begin() + offsets[u], slot.begin() + offsets[u + 1]);
        std::reverse(coef.begin() + offsets[u], coef.begin() + offsets[u + 1]);
      }
  }
};

std::vector<float> hostBackward(Fn kernel, const rt::gnn::Block &b,
                                const Kind &k, const std::vector<float> &dA,
                                size_t in, std::vector<float> dH,
                                bool reverse = false) {
  Transpose t(b, k.kind, reverse);
  const size_t n = dH.size();
  dH.resize(n + kCanary, kCanaryValue);
  sluice_gnn_gpu_backward_args_t a{};
  a.offsets = address(t.offsets.data());
  a.slot = address(t.slot.data());
  a.coef = address(t.coef.data());
  a.da = address(dA.data());
  a.dh = address(dH.data());
  a.num_src = b.numSrc();
  a.in = in;
  launch(kernel, &a, uint64_t(b.numSrc()) * in);
  EXPECT_TRUE(canaryIntact(dH, n)) << "a thread past the end wrote";
  dH.resize(n);
  return dH;
}

/// An aggregator (sluice_gnn_options_t.aggregator) that runs the
/// host-compiled kernels on the trainer's blocks, as
/// sluice_gnn_gpu_aggregator runs the PTX (without the copies).
struct HostAggregator {
  Fn forward = nullptr, backward = nullptr;
  sluice_gnn_kind_t kind = SLUICE_GNN_SAGE;
  uint64_t calls = 0;

  static sluice_status_t forwardHook(void *user, const sluice_gnn_block_t *b,
                                     const float *h, uint32_t in, float *agg,
                                     sluice_error_t *) {
    auto *self = static_cast<HostAggregator *>(user);
    ++self->calls;
    runForward(self->forward, *b, h, in, agg);
    return SLUICE_STATUS_OK;
  }
  static sluice_status_t backwardHook(void *user, const sluice_gnn_block_t *b,
                                      const float *da, uint32_t in, float *dh,
                                      sluice_error_t *error) {
    auto *self = static_cast<HostAggregator *>(user);
    ++self->calls;
    const size_t terms = size_t(b->num_dst) + b->offsets[b->num_dst];
    std::vector<uint32_t> offsets(size_t(b->num_src) + 1), slot(terms);
    std::vector<float> coef(terms);
    if (sluice_status_t s = sluice_gnn_block_transpose(
            b, self->kind, offsets.data(), slot.data(), coef.data(), error))
      return s;
    sluice_gnn_gpu_backward_args_t a{};
    a.offsets = address(offsets.data());
    a.slot = address(slot.data());
    a.coef = address(coef.data());
    a.da = address(da);
    a.dh = address(dh);
    a.num_src = b->num_src;
    a.in = in;
    launch(self->backward, &a, uint64_t(b->num_src) * in);
    return SLUICE_STATUS_OK;
  }
};

TEST(GnnGpuHostRun, TheProgramHasFourKernels) {
  HostKernels &h = hostKernels();
  ASSERT_TRUE(h.jit) << h.error;
  for (const Kind &k : kKinds)
    for (const char *direction : {"forward", "backward"})
      EXPECT_TRUE(h.kernel(kernelName(k, direction)))
          << kernelName(k, direction) << ": " << h.error;
  EXPECT_EQ(h.kernels.size(), 4u);
}

TEST(GnnGpuHostRun, ForwardEqualsTheCpuBitForBit) {
  HostKernels &h = hostKernels();
  ASSERT_TRUE(h.jit) << h.error;
  for (const Kind &k : kKinds) {
    Fn kernel = h.kernel(kernelName(k, "forward"));
    ASSERT_TRUE(kernel);
    uint64_t seed = 1;
    for (const Shape &s : shapes()) {
      SCOPED_TRACE(std::string(k.name) + " dst " + std::to_string(s.dst) +
                   " src " + std::to_string(s.src) + " in " +
                   std::to_string(s.in));
      rt::gnn::Block b = randomBlock(s.dst, s.src, s.maxDegree, k.sage, ++seed);
      std::vector<float> x = randomRows(size_t(s.src) * s.in, ++seed);
      EXPECT_EQ(firstDifference(cpuForward(b, k.sage, x, s.in),
                                hostForward(kernel, b, k.sage, x, s.in)),
                "");
    }
  }
}

TEST(GnnGpuHostRun, BackwardEqualsTheCpuBitForBit) {
  HostKernels &h = hostKernels();
  ASSERT_TRUE(h.jit) << h.error;
  for (const Kind &k : kKinds) {
    Fn kernel = h.kernel(kernelName(k, "backward"));
    ASSERT_TRUE(kernel);
    uint64_t seed = 100;
    for (const Shape &s : shapes()) {
      SCOPED_TRACE(std::string(k.name) + " dst " + std::to_string(s.dst) +
                   " src " + std::to_string(s.src) + " in " +
                   std::to_string(s.in));
      rt::gnn::Block b = randomBlock(s.dst, s.src, s.maxDegree, k.sage, ++seed);
      std::vector<float> dA =
          randomRows(size_t(s.dst) * (k.sage ? 2 : 1) * s.in, ++seed);
      // dH is added to: its values on entry are the sums' first terms.
      std::vector<float> dH = randomRows(size_t(s.src) * s.in, ++seed);
      EXPECT_EQ(firstDifference(cpuBackward(b, k.sage, dA, s.in, dH),
                                hostBackward(kernel, b, k, dA, s.in, dH)),
                "");
    }
  }
}

// SAGE's neighbour half starts at +0.0 as on the CPU: one neighbour whose
// row is -0.0 sums to +0.0 (a sum that started at its first term would
// keep -0.0).
TEST(GnnGpuHostRun, TheNeighbourSumStartsAtZeroAsOnTheCpu) {
  HostKernels &h = hostKernels();
  ASSERT_TRUE(h.jit) << h.error;
  rt::gnn::Block b;
  b.numDst = 1;
  b.src = {0, 1};
  b.offsets = {0, 1};
  b.nbr = {1};
  b.coef = {1.0f};
  b.selfCoef = {1.0f};
  std::vector<float> x = {1.0f, -0.0f};
  std::vector<float> cpu = cpuForward(b, true, x, 1);
  ASSERT_FALSE(std::signbit(cpu[1])) << "the CPU's sum is +0.0";
  EXPECT_EQ(firstDifference(
                cpu, hostForward(h.kernel(kernelName(kKinds[0], "forward")), b,
                                 true, x, 1)),
            "");
}

// The comparison can fail: the same terms summed in another order (each
// src's terms reversed) differ from the CPU in some bits.
TEST(GnnGpuHostRun, AnotherSummationOrderIsCaught) {
  HostKernels &h = hostKernels();
  ASSERT_TRUE(h.jit) << h.error;
  const Kind &k = kKinds[1];
  Fn kernel = h.kernel(kernelName(k, "backward"));
  ASSERT_TRUE(kernel);
  rt::gnn::Block b = randomBlock(200, 300, 25, false, 9);
  std::vector<float> dA = randomRows(size_t(200) * 16, 10);
  std::vector<float> dH = randomRows(size_t(300) * 16, 11);
  EXPECT_NE(firstDifference(cpuBackward(b, false, dA, 16, dH),
                            hostBackward(kernel, b, k, dA, 16, dH, true)),
            "");
}

// sluice_gnn_train with the kernels as its aggregator (every dense
// layer's aggregation, training and evaluation) gives the CPU training's
// losses and accuracies in every bit, for both kinds.
TEST(GnnGpuHostRun, TrainingThroughTheKernelsEqualsTheCpu) {
  HostKernels &h = hostKernels();
  ASSERT_TRUE(h.jit) << h.error;
  GraphPtr g = plantedGraph(16, 3);
  ASSERT_TRUE(g);
  std::vector<float> features = randomRows(48 * 8, 4);
  for (const Kind &k : kKinds) {
    SCOPED_TRACE(k.name);
    sluice_gnn_options_t o = plantedOptions(k.kind, features.data());
    const std::string cpu = trainLog(g.get(), o);
    ASSERT_EQ(cpu.rfind("error", 0), std::string::npos) << cpu;
    HostAggregator host;
    host.forward = h.kernel(kernelName(k, "forward"));
    host.backward = h.kernel(kernelName(k, "backward"));
    host.kind = k.kind;
    ASSERT_TRUE(host.forward && host.backward);
    sluice_gnn_aggregator_t aggregator = {HostAggregator::forwardHook,
                                          HostAggregator::backwardHook, &host};
    o.aggregator = &aggregator;
    EXPECT_EQ(trainLog(g.get(), o), cpu);
    EXPECT_GT(host.calls, 0u);
  }
}

} // namespace
