//===- AlgoGpuEmulationTest.cpp - the algorithm kernels run on the host ---===//
//
// graph-to-gpu's kernels for Inputs/gpu-algos.sluice, compiled for the
// host instead of the GPU (each gpu.func a function with one more argument,
// the global thread id: block_id := that id, block_dim := 1, thread_id :=
// 0) and attached with sluice_algo_gpu_attach_host: the device code's logic
// and the runtime's copies, launches and frontier read-back run here,
// without a GPU, against the CPU object's results (the same checks as the
// GPU integration suite: BFS, SSSP and CC equal, PageRank within 1e-9).
//
// A kernel with a warp per item (`threads_per_item` 32) runs as warps of
// 32 lanes whose `gpu.shuffle xor` exchange values (WarpEmulation.h).
//
//===----------------------------------------------------------------------===//
#include "test/Unit/AlgoGpu/AlgoGpuTestSupport.h"
#include "test/Unit/AlgoGpu/WarpEmulation.h"
#include "test/Unit/Support/GpuOpsOnHost.h"
#include "test/Unit/Support/KernelHostJit.h"

#include "compiler/Pipelines/Compilation.h"
#include "compiler/Pipelines/PassPipelines.h"
#include "compiler/Target/Graph/AlgoCompile.h"
#include "compiler/Target/LLVM/Codegen.h"
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace sluice;
using namespace sluice::algogpu;

namespace {

/// The kernels of gpu-algos.sluice, JIT-compiled for the host once.
struct Emulation : sluice::test::KernelHostJit {
  Emulation() {
    OwningOpRef<ModuleOp> copy =
        compile(SLUICE_GPU_ALGOS_SRC, "gpu-algos.sluice");
    if (!copy)
      return;
    for (Operation &op : llvm::make_early_inc_range(copy->getOps()))
      if (!isa<graph::GraphDialect>(op.getDialect()))
        op.erase();
    if (failed(runPasses(*copy, [](OpPassManager &pm) {
          buildGraphToGPUPipeline(pm, false);
        }))) {
      error = "graph-to-gpu failed: " + diagnostics;
      return;
    }
    OwningOpRef<ModuleOp> host = hostModule(*copy);
    if (!host)
      return;
    llvm::StringMap<void *> symbols;
    symbols["sluice_emu_warp"] = reinterpret_cast<void *>(&sluice_emu_warp);
    symbols["sluice_emu_shuffle_xor"] =
        reinterpret_cast<void *>(&sluice_emu_shuffle_xor);
    jitHost(*host, symbols);
  }

  /// The gpu.module's functions and globals in a plain module, each kernel
  /// a func.func taking the global thread id last.
  OwningOpRef<ModuleOp> hostModule(ModuleOp lowered) {
    auto gpuModule = *lowered.getOps<gpu::GPUModuleOp>().begin();
    OwningOpRef<ModuleOp> host(ModuleOp::create(lowered.getLoc()));
    OpBuilder b(ctx.get());
    for (Operation &op :
         llvm::make_early_inc_range(gpuModule.getBody()->getOperations())) {
      if (op.hasTrait<OpTrait::IsTerminator>())
        continue;
      if (auto global = dyn_cast<LLVM::GlobalOp>(op))
        global.setAddrSpace(0); // the host has one address space
      auto kernel = dyn_cast<gpu::GPUFuncOp>(op);
      if (!kernel) {
        op.moveBefore(host->getBody(), host->getBody()->end());
        continue;
      }
      b.setInsertionPointToEnd(host->getBody());
      // A warp per item: the kernel is each lane's code, run by a warp.
      auto described =
          kernel->getAttrOfType<DictionaryAttr>("sluice.algo_kernel");
      auto threads = described
                         ? described.getAs<IntegerAttr>("threads_per_item")
                         : IntegerAttr();
      bool warp = threads && threads.getInt() > 1;
      std::string name = kernel.getName().str();
      auto fn = test::hostFunction(b, kernel, warp ? name + "__lane" : name);
      if (warp)
        buildWarpKernel(b, name, fn);
    }
    // A shuffle of any 32-bit type: bit cast to i32 and back.
    auto xorShuffle = [&](OpBuilder &b, gpu::ShuffleOp shuffle,
                          std::string &error) -> Value {
      if (shuffle.getMode() != gpu::ShuffleMode::XOR) {
        error = "the emulation knows gpu.shuffle xor only";
        return nullptr;
      }
      Location loc = shuffle.getLoc();
      Value x = shuffle.getValue();
      if (!x.getType().isInteger(32))
        x = b.create<arith::BitcastOp>(loc, b.getI32Type(), x);
      Value y = b.create<LLVM::CallOp>(loc, shuffleXor(*host),
                                       ValueRange{x, shuffle.getOffset()})
                    .getResult();
      if (y.getType() != shuffle.getValue().getType())
        y = b.create<arith::BitcastOp>(loc, shuffle.getValue().getType(), y);
      return y;
    };
    if (!test::replaceGpuOpsOnHost(*host, xorShuffle, error))
      return nullptr;
    return host;
  }

  /// `name`(ctx, env, count, id): thread 32k runs the warp of lanes
  /// 32k .. 32k + 31 of `lane` (sluice_emu_warp); the others return.
  void buildWarpKernel(OpBuilder &b, StringRef name, func::FuncOp lane) {
    Location loc = lane.getLoc();
    auto module = lane->getParentOfType<ModuleOp>();
    FunctionType type = lane.getFunctionType();
    SmallVector<Type> driverInputs = {type};
    llvm::append_range(driverInputs, type.getInputs());
    auto driver = module.lookupSymbol<func::FuncOp>("sluice_emu_warp");
    if (!driver) {
      b.setInsertionPointToStart(module.getBody());
      driver = b.create<func::FuncOp>(loc, "sluice_emu_warp",
                                      b.getFunctionType(driverInputs, {}));
      driver.setPrivate();
    }
    b.setInsertionPointToEnd(module.getBody());
    auto fn = b.create<func::FuncOp>(loc, name, type);
    Block *entry = fn.addEntryBlock();
    b.setInsertionPointToStart(entry);
    Value id = entry->getArguments().back();
    Value lanes = b.create<arith::ConstantIndexOp>(loc, SLUICE_ALGO_GPU_LANES);
    Value first = b.create<arith::CmpIOp>(
        loc, arith::CmpIPredicate::eq, b.create<arith::RemUIOp>(loc, id, lanes),
        b.create<arith::ConstantIndexOp>(loc, 0));
    auto ifOp = b.create<scf::IfOp>(loc, first, /*withElse=*/false);
    b.setInsertionPointToStart(ifOp.thenBlock());
    SmallVector<Value> args = {
        b.create<func::ConstantOp>(loc, type, lane.getSymName())};
    llvm::append_range(args, entry->getArguments());
    b.create<func::CallOp>(loc, driver, args);
    b.setInsertionPointAfter(ifOp);
    b.create<func::ReturnOp>(loc);
  }

  /// The declaration of sluice_emu_shuffle_xor in `host`.
  LLVM::LLVMFuncOp shuffleXor(ModuleOp host) {
    if (auto fn = host.lookupSymbol<LLVM::LLVMFuncOp>("sluice_emu_shuffle_xor"))
      return fn;
    OpBuilder b = OpBuilder::atBlockBegin(host.getBody());
    Type i32 = b.getI32Type();
    return b.create<LLVM::LLVMFuncOp>(
        host.getLoc(), "sluice_emu_shuffle_xor",
        LLVM::LLVMFunctionType::get(i32, {i32, i32}));
  }

  static void *symbol(void *user, const char *name) {
    std::string error;
    return static_cast<Emulation *>(user)->jit->lookup(name, error);
  }
};

/// Built once and never destroyed: the JIT's destructor runs after LLVM's
/// own static objects at exit otherwise (and crashes there).
Emulation &emulation() {
  static Emulation *e = new Emulation();
  return *e;
}

/// Attaches the host build of the kernels.
sluice_status_t attachHost(sluice_algo_ctx_t *ctx, sluice_error_t *error) {
  return sluice_algo_gpu_attach_host(ctx, &Emulation::symbol, &emulation(),
                                     error);
}

class AlgoGpuEmulated : public SharedGraphTest {
protected:
  void SetUp() override {
    ASSERT_TRUE(emulation().jit) << emulation().error;
    loadGraph();
  }
};

TEST_P(AlgoGpuEmulated, BfsDepthsEqual) { checkBfs(graph.get(), attachHost); }
TEST_P(AlgoGpuEmulated, SsspDistancesEqual) {
  checkSssp(graph.get(), attachHost);
}
TEST_P(AlgoGpuEmulated, ComponentLabelsEqual) {
  checkComponents(graph.get(), attachHost);
}
TEST_P(AlgoGpuEmulated, TrianglesEqual) {
  checkTriangles(graph.get(), attachHost);
}
TEST_P(AlgoGpuEmulated, PageRankPullWithin1e9) {
  checkPageRankPull(graph.get(), attachHost);
}
TEST_P(AlgoGpuEmulated, PageRankPushToToleranceWithin1e9) {
  checkPageRankPush(graph.get(), attachHost);
}

TEST_P(AlgoGpuEmulated, PageRankCooWithin1e9) {
  checkPageRankCoo(graph.get(), attachHost);
}

TEST_P(AlgoGpuEmulated, BetweennessWithin1e9) {
  checkBetweenness(graph.get(), attachHost);
}

INSTANTIATE_TEST_SUITE_P(SharedGraphs, AlgoGpuEmulated,
                         ::testing::ValuesIn(kSharedGraphs), sharedGraphName);

// The pull loops' warp per destination (lanes and shuffles emulated) and
// thread per destination, each against the CPU: PageRank's gather (5
// iterations: an emulated warp reruns its lanes about ten times) on the
// small graphs, a skewed one (Slashdot) and a road graph (luxembourg_osm);
// ccpull's spread on the small ones (label propagation takes a round per
// hop, thousands on the road graph: the device suite runs those).
class AlgoGpuEmulatedLanes : public AlgoGpuEmulated {};
TEST_P(AlgoGpuEmulatedLanes, PullWarpOrThreadPageRankWithin1e9) {
  checkPageRankBothKernels(graph.get(), attachHost, 5);
}
INSTANTIATE_TEST_SUITE_P(SharedGraphs, AlgoGpuEmulatedLanes,
                         ::testing::ValuesIn(kLanesGraphs), sharedGraphName);
TEST_P(AlgoGpuEmulated, PullWarpOrThreadComponentLabelsEqual) {
  checkComponentsPulledBothKernels(graph.get(), attachHost);
}

// The runtime picks a kernel's `_lanes` twin by the graph's average degree:
// PageRank's gather on facebook (degree 43.7) runs it by default, and not
// above a threshold of 50; luxembourg_osm's (2.1) does not by default.
TEST(AlgoGpuEmulatedLanesChoice, TheAverageDegreeAgainstTheThreshold) {
  ASSERT_TRUE(emulation().jit) << emulation().error;
  for (auto [file, undirected] :
       {std::pair<const char *, bool>{"facebook_combined.txt.gz", true},
        {"luxembourg_osm.el.gz", true}}) {
    std::string why;
    GraphPtr g = loadSnap(file, undirected, why);
    if (!g)
      GTEST_SKIP() << why;
    double degree = double(sluice_graph_num_edges(g.get())) /
                    double(sluice_graph_num_vertices(g.get()));
    sluice_algo_params_pagerank_t pr{0.85, 2};
    Outcome byDefault =
        run(g.get(), sluice_algo_pagerank, pr, kPageRankProps, attachHost);
    ASSERT_EQ(byDefault.error, "");
    EXPECT_EQ(byDefault.stats.lanes_launches,
              degree >= SLUICE_ALGO_GPU_LANES_MIN_DEGREE ? 2u : 0u)
        << file << ": degree " << degree;
    Outcome above = run(g.get(), sluice_algo_pagerank, pr, kPageRankProps,
                        withLanesFrom(attachHost, 50.0));
    ASSERT_EQ(above.error, "");
    EXPECT_EQ(above.stats.lanes_launches, 0u) << file;
  }
}

TEST(AlgoGpuEmulatedErrors, AnUnboundLoopFaultsAndAMissingKernelIsNotFound) {
  ASSERT_TRUE(emulation().jit) << emulation().error;
  EdgeGraph e = fromEdges(3, {0, 1}, {1, 2});
  ASSERT_TRUE(e.ctx) << e.error;
  sluice_algo_ctx_t *ctx = e.ctx.get();
  sluice_error_t error;
  ASSERT_EQ(attachHost(ctx, &error), SLUICE_STATUS_OK) << error.message;
  EXPECT_EQ(attachHost(ctx, &error), SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(error.message,
               "sluice_algo_gpu_attach_host: the context has a GPU already");
  EXPECT_EQ(sluice_algo_gpu_bind(ctx, sluice_algo_cc_init_vertices,
                                 "sluice_algo_nothing", &error),
            SLUICE_STATUS_NOT_FOUND);
  EXPECT_STREQ(error.message,
               "no global 'sluice_algo_nothing_info' in the host build");
  // Only @init bound: @spread has no kernel, the run faults there.
  ASSERT_EQ(sluice_algo_gpu_bind(ctx, sluice_algo_cc_init_vertices,
                                 "sluice_algo_cc_init_vertices", &error),
            SLUICE_STATUS_OK)
      << error.message;
  std::vector<int64_t> comp(3);
  void *props[] = {comp.data()};
  sluice_algo_params_cc_t params{};
  sluice_algo_cc(ctx, &params, props);
  EXPECT_EQ(comp, (std::vector<int64_t>{0, 1, 2})); // @init ran
  const char *message = nullptr;
  EXPECT_EQ(sluice_algo_fault_site(ctx, &message), SLUICE_ALGO_GPU_FAULT_SITE);
  EXPECT_STREQ(message, "GPU: a loop function has no kernel bound "
                        "(sluice_algo_gpu_bind)");
  EXPECT_EQ(sluice_algo_gpu_launches(ctx), 1u);
}

// The device keeps a property between passes only while the host's bytes
// are the ones it holds: BFS twice on one context and the same arrays, from
// two sources (the second run's host code resets the depths and sets the
// new source's), each equal to a queue BFS; within a run the depths stay
// on the device (copies skipped). The graph's second level is wider than
// the frontier list's first copy back (kListHead), so its rest comes in a
// second copy.
TEST(AlgoGpuEmulatedResidency, HostWritesBetweenRunsReachTheDevice) {
  ASSERT_TRUE(emulation().jit) << emulation().error;
  // 0 -> 1..1500 -> 1501 (from each), 1501 -> 0; 1502 alone.
  std::vector<uint32_t> src, dst;
  for (uint32_t v = 1; v <= 1500; ++v) {
    src.push_back(0), dst.push_back(v);
    src.push_back(v), dst.push_back(1501);
  }
  src.push_back(1501), dst.push_back(0);
  EdgeGraph e = fromEdges(1503, src, dst);
  ASSERT_TRUE(e.ctx) << e.error;
  sluice_graph_t *g = e.graph.get();
  sluice_algo_ctx_t *ctx = e.ctx.get();
  sluice_error_t error;
  ASSERT_EQ(attachHost(ctx, &error), SLUICE_STATUS_OK) << error.message;
  for (const Bound &b : kKernels)
    ASSERT_EQ(sluice_algo_gpu_bind(ctx, b.fn, b.kernel, &error),
              SLUICE_STATUS_OK)
        << b.kernel << ": " << error.message;
  std::vector<int64_t> depth(1503, 7);
  void *props[] = {depth.data()};
  for (uint32_t source : {0u, 1501u, 700u}) {
    sluice_algo_params_bfs_t params{};
    params.source = static_cast<int64_t>(sluice_graph_original_id(g, source));
    sluice_algo_bfs(ctx, &params, props);
    ASSERT_EQ(sluice_algo_fault_site(ctx, nullptr), -1);
    EXPECT_EQ(depth, referenceBfs(g, source)) << "from " << source;
  }
  sluice_algo_gpu_stats_t st;
  sluice_algo_gpu_stats(ctx, &st);
  EXPECT_GT(st.launches, 6u);
  EXPECT_GT(st.properties_kept, 0u);
  // Per launch one block up and at most the depths, the count with the
  // list's head and the list's rest back.
  EXPECT_LE(st.copies_to_device, 2 * st.launches);
  EXPECT_LE(st.copies_from_device, 3 * st.launches);
  sluice_algo_gpu_stats_t none;
  sluice_algo_gpu_stats(nullptr, &none);
  EXPECT_EQ(none.launches, 0u);
}

// sluicec --run --target=gpu's path: the host code JIT'd with the job's
// kernels; with a GPU the depths are the CPU's, without one the run is a
// located error with the driver's reason.
TEST(AlgoGpuCompiled, RunOnTheGpuOrSayWhyNot) {
  Emulation &e = emulation();
  ASSERT_TRUE(e.jit) << e.error;
  auto algo = e.compilation->module().lookupSymbol<graph::AlgorithmOp>("bfs");
  ASSERT_TRUE(algo);
  auto cpu = target::CompiledAlgorithm::compile(algo, false);
  auto gpu = target::CompiledAlgorithm::compile(algo, false, /*gpu=*/true);
  ASSERT_TRUE(succeeded(cpu) && succeeded(gpu)) << e.diagnostics;
  const uint32_t src[] = {0, 1, 2, 0}, dst[] = {1, 2, 3, 4};
  sluice_graph_t *g = nullptr;
  sluice_error_t error;
  ASSERT_EQ(sluice_graph_create_from_edges(6, 4, src, dst, nullptr, nullptr,
                                           nullptr, 0, &g, &error),
            SLUICE_STATUS_OK);
  GraphPtr graph(g, sluice_graph_release);
  auto onCpu = (*cpu)->run(g, DictionaryAttr::get(e.ctx.get()), 1, true, algo);
  ASSERT_TRUE(succeeded(onCpu)) << e.diagnostics;
  e.diagnostics.clear();
  auto onGpu = (*gpu)->run(g, DictionaryAttr::get(e.ctx.get()), 1, true, algo);
  if (failed(onGpu)) {
    EXPECT_NE(e.diagnostics.find("error: cannot run algorithm 'bfs' on the "
                                 "GPU: "),
              std::string::npos)
        << e.diagnostics;
    EXPECT_NE(e.diagnostics.find("; --target=cpu runs it on the CPU"),
              std::string::npos)
        << e.diagnostics;
    return;
  }
  EXPECT_GT(onGpu->gpuLaunches, 0u);
  EXPECT_EQ(onGpu->storage, onCpu->storage);
}

} // namespace
