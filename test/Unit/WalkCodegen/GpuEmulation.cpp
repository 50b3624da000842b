//===- GpuEmulation.cpp - walk-to-gpu's device code run on the host -------===//
#include "test/Unit/WalkCodegen/GpuEmulation.h"
#include "test/Unit/Support/GpuOpsOnHost.h"

#include "compiler/Conversion/Passes.h"
#include "compiler/Target/Walk/GraphLoadOptions.h"
#include "dialects/Walk/Transforms/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <ucontext.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

using namespace mlir;

namespace sluice::gpuemu {

namespace {

/// Lowers the math ops of `module` as lowerWalksToPtx lowers those of the
/// gpu.module: convert-gpu-to-nvvm's patterns turn math.sqrt (f64) and the
/// like into calls of libdevice's __nv_sqrt, ..., and what they leave
/// (math.absi) goes by convert-math-to-llvm (the caller's next pass).
LogicalResult lowerMathAsOnTheDevice(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  LLVMTypeConverter converter(ctx);
  RewritePatternSet patterns(ctx);
  populateGpuToNVVMConversionPatterns(converter, patterns);
  // No gpu op is left; math ops, of unknown legality, are converted where
  // a pattern applies and kept where none does.
  ConversionTarget target(*ctx);
  target.addLegalDialect<arith::ArithDialect, func::FuncDialect,
                         scf::SCFDialect, LLVM::LLVMDialect>();
  target.addLegalOp<ModuleOp>();
  return applyPartialConversion(module, target, std::move(patterns));
}

/// The libdevice functions those calls name, on the host: libm's. fabs and
/// sqrt are exact on both (IEEE); libdevice's exp and log are within 1 ulp
/// of the exact result (CUDA Math API), so are glibc's, and the two may
/// differ in the last bit.
double nvFabs(double x) { return std::fabs(x); }
double nvSqrt(double x) { return std::sqrt(x); }
double nvExp(double x) { return std::exp(x); }
double nvLog(double x) { return std::log(x); }
const std::pair<const char *, double (*)(double)> kLibdeviceOnTheHost[] = {
    {"__nv_fabs", &nvFabs},
    {"__nv_sqrt", &nvSqrt},
    {"__nv_exp", &nvExp},
    {"__nv_log", &nvLog}};

} // namespace

std::unique_ptr<target::HostJit> emulateKernels(ModuleOp source,
                                                std::string &error) {
  MLIRContext *ctx = source.getContext();
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(source->clone()));
  PassManager pm(ctx);
  // The GPU target: every walk scheduled for it, as lowerWalksToPtx does.
  walk::WalkSelectSamplerOptions gpu;
  gpu.target = "gpu";
  pm.addPass(walk::createWalkSelectSampler(gpu));
  pm.addPass(conversion::createWalkToGPU());
  if (failed(pm.run(*copy))) {
    error = "walk-to-gpu failed";
    return nullptr;
  }
  auto gpuModule = *copy->getOps<gpu::GPUModuleOp>().begin();
  OwningOpRef<ModuleOp> host(ModuleOp::create(copy->getLoc()));
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(host->getBody());
  auto i32 = b.getI32Type();
  auto shuffle = b.create<func::FuncOp>(
      copy->getLoc(), "sluice_emu_shuffle_xor",
      b.getFunctionType({i32, i32}, {i32}));
  shuffle.setPrivate();
  for (Operation &op :
       llvm::make_early_inc_range(gpuModule.getBody()->getOperations())) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      continue;
    auto gf = dyn_cast<gpu::GPUFuncOp>(op);
    if (!gf) {
      op.moveBefore(host->getBody(), host->getBody()->end());
      continue;
    }
    b.setInsertionPointToEnd(host->getBody());
    test::hostFunction(b, gf, gf.getName());
  }
  // The gpu ops left, in kernels and helpers alike.
  auto i32XorShuffle = [&](OpBuilder &b, gpu::ShuffleOp sh,
                           std::string &error) -> Value {
    if (sh.getMode() != gpu::ShuffleMode::XOR ||
        !sh.getValue().getType().isInteger(32)) {
      error = "the emulation knows only i32 xor shuffles";
      return nullptr;
    }
    return b
        .create<func::CallOp>(sh.getLoc(), shuffle,
                              ValueRange{sh.getValue(), sh.getOffset()})
        .getResult(0);
  };
  if (!test::replaceGpuOpsOnHost(*host, i32XorShuffle, error))
    return nullptr;
  if (failed(lowerMathAsOnTheDevice(*host))) {
    error = "lowering the math ops of the emulated kernels failed";
    return nullptr;
  }
  PassManager lower(ctx);
  lower.addPass(createConvertSCFToCFPass());
  lower.addPass(createConvertMathToLLVMPass());
  lower.addPass(createArithToLLVMConversionPass());
  lower.addPass(createConvertControlFlowToLLVMPass());
  lower.addPass(createConvertFuncToLLVMPass());
  lower.addPass(createReconcileUnrealizedCastsPass());
  if (failed(lower.run(*host))) {
    error = "lowering the emulated kernels failed";
    return nullptr;
  }
  llvm::StringMap<void *> symbols;
  symbols["sluice_emu_shuffle_xor"] =
      reinterpret_cast<void *>(&WarpEmulator::shuffleXor);
  for (auto [name, fn] : kLibdeviceOnTheHost)
    symbols[name] = reinterpret_cast<void *>(fn);
  return target::HostJit::create(*host, symbols, 2, error);
}

Launch::Launch(const sluice_graph_t *graph) : graph(graph) {
  uint32_t nv = sluice_graph_num_vertices(graph);
  for (uint32_t v = 0; v < nv; ++v) {
    wmax.push_back(sluice_graph_weight_max(graph, v));
    wmin.push_back(sluice_graph_weight_min(graph, v));
    wsum.push_back(sluice_graph_weight_sum(graph, v));
    starts.push_back(v);
  }
}

void Launch::thread(Kernel kernel, int64_t base, int64_t count,
                    uint32_t *rows, uint32_t *lengths, int64_t thread) const {
  auto address = [](const void *p) {
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
  };
  sluice_walk_gpu_args_t args;
  std::memset(&args, 0, sizeof(args));
  args.offsets = address(sluice_graph_offsets(graph));
  args.targets = address(sluice_graph_targets(graph));
  args.weights = address(sluice_graph_weights(graph));
  args.weight_max = address(wmax.data());
  args.weight_min = address(wmin.data());
  args.weight_sum = address(wsum.data());
  args.labels = address(sluice_graph_vertex_labels(graph));
  args.params = address(params);
  args.starts = address(starts.data());
  args.num_walkers = count;
  args.walks_per_vertex = walksPerVertex;
  args.max_length = maxLength;
  args.stop_probability = stopProbability;
  args.seed = seed;
  args.rows = address(rows);
  args.lengths = address(lengths);
  args.num_vertices = sluice_graph_num_vertices(graph);
  args.num_edges = sluice_graph_num_edges(graph);
  args.edge_labels = address(sluice_graph_edge_labels(graph));
  args.walker_base = base;
  args.fault = address(fault);
  args.original_ids = address(sluice_graph_original_ids(graph));
  args.id_base = sluice_graph_id_base(graph);
  kernel(&args, thread);
}

namespace {

/// Runs `launch(base, count, rows, lengths)` for batches of `batch`
/// walkers and appends their rows and lengths in walker order.
void inBatches(int64_t walkers, int64_t len, int64_t batch,
               std::vector<uint32_t> &rows, std::vector<uint32_t> &lengths,
               const std::function<void(int64_t, int64_t, uint32_t *,
                                        uint32_t *)> &launch) {
  if (batch <= 0)
    batch = std::max<int64_t>(walkers, 1);
  rows.assign(walkers * len, 0);
  lengths.assign(walkers, 0);
  std::vector<uint32_t> r(batch * len), l(batch);
  for (int64_t base = 0; base < walkers; base += batch) {
    int64_t count = std::min(batch, walkers - base);
    std::fill(r.begin(), r.end(), 0);
    std::fill(l.begin(), l.end(), 0);
    launch(base, count, r.data(), l.data());
    std::copy(r.begin(), r.begin() + count * len, rows.begin() + base * len);
    std::copy(l.begin(), l.begin() + count, lengths.begin() + base);
  }
}

} // namespace

void Launch::runRejection(Kernel kernel, std::vector<uint32_t> &rows,
                          std::vector<uint32_t> &lengths,
                          int64_t batch) const {
  inBatches(walkers(), maxLength, batch, rows, lengths,
            [&](int64_t base, int64_t count, uint32_t *r, uint32_t *l) {
              for (int64_t t = 0; t < count; ++t)
                thread(kernel, base, count, r, l, t);
            });
}

bool Launch::runReservoir(Kernel kernel, std::vector<uint32_t> &rows,
                          std::vector<uint32_t> &lengths,
                          int64_t batch) const {
  bool lockstep = true;
  inBatches(walkers(), maxLength, batch, rows, lengths,
            [&](int64_t base, int64_t count, uint32_t *r, uint32_t *l) {
              WarpEmulator warp;
              lockstep = warp.run([&](int lane) {
                for (int64_t w = 0; w < count; ++w)
                  thread(kernel, base, count, r, l,
                         w * WarpEmulator::kLanes + lane);
              }) && lockstep;
            });
  return lockstep;
}

void CompiledProgramTest::compileProgram(
    const std::string &program,
    const std::vector<std::pair<std::string, std::string>> &files) {
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("sluice-walk-gpu", dir));
  for (const auto &[name, text] : files)
    write(name, text);
  write("prog.sluice", program);
  registerSluiceDialects(registry);
  ctx = std::make_unique<MLIRContext>(registry);
  ctx->loadAllAvailableDialects();
  handler = std::make_unique<SourceMgrDiagnosticHandler>(sourceMgr, ctx.get(),
                                                         diagOs);
  compilation = std::make_unique<Compilation>(*ctx, sourceMgr);
  // runWalkJob is the CPU engine here (the reference); the device side is
  // scheduled for the GPU by lowerWalksToPtx and emulateKernels.
  compilation->setWalkTarget("cpu");
  ASSERT_TRUE(succeeded(compilation->parse(path("prog.sluice"))) &&
              succeeded(compilation->check()) &&
              succeeded(compilation->lower()))
      << diagnostics;
}

void CompiledProgramTest::TearDown() {
  if (!dir.empty())
    llvm::sys::fs::remove_directories(dir);
}

std::string CompiledProgramTest::path(llvm::StringRef name) const {
  llvm::SmallString<256> p(dir);
  llvm::sys::path::append(p, name);
  return p.str().str();
}

void CompiledProgramTest::write(llvm::StringRef name,
                                llvm::StringRef text) const {
  std::ofstream(path(name)) << text.str();
}

std::string CompiledProgramTest::read(const std::string &p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

sluice_graph_t *CompiledProgramTest::loadGraph(llvm::StringRef name,
                                               llvm::StringRef labels,
                                               bool weighted) {
  sluice_graph_load_options_t load;
  sluice_graph_load_options_init(&load);
  load.format = SLUICE_GRAPH_FORMAT_SNAP;
  // What `load(name, format: snap, undirected)` asks for.
  load.flags =
      sluice::target::runtimeLoadFlags(sluice::walk::GraphFormat::Snap, true,
                                       sluice::walk::Duplicates::Merge,
                                       sluice::walk::SelfLoops::Drop) |
      SLUICE_GRAPH_LOAD_QUIET;
  if (weighted)
    load.weights = SLUICE_WEIGHTS_COLUMN;
  std::string labelsPath = labels.empty() ? "" : path(labels);
  load.vertex_labels_path = labels.empty() ? nullptr : labelsPath.c_str();
  sluice_graph_t *g = nullptr;
  sluice_error_t error;
  EXPECT_EQ(sluice_graph_load(path(name).c_str(), &load, &g, &error),
            SLUICE_STATUS_OK)
      << error.message;
  return g;
}

namespace {

/// The fibers of the running WarpEmulator::run (one at a time).
struct Fibers {
  static constexpr int kLanes = WarpEmulator::kLanes;
  ucontext_t scheduler;
  ucontext_t lanes[kLanes];
  std::vector<char> stacks[kLanes];
  uint32_t slots[2][kLanes] = {};
  int parity[kLanes] = {};
  uint64_t exchanges[kLanes] = {};
  bool done[kLanes] = {};
  int current = 0;
  const std::function<void(int)> *body = nullptr;
};
Fibers *active = nullptr;

void laneMain() {
  Fibers &f = *active;
  int lane = f.current;
  (*f.body)(lane);
  f.done[lane] = true; // returns to uc_link, the scheduler
}

} // namespace

uint32_t WarpEmulator::shuffleXor(uint32_t value, uint32_t offset) {
  Fibers &f = *active;
  int lane = f.current;
  f.slots[f.parity[lane]][lane] = value;
  ++f.exchanges[lane];
  swapcontext(&f.lanes[lane], &f.scheduler);
  // Every lane has published: read the partner's value of this exchange
  // (the next exchange writes the other slot row).
  uint32_t out = f.slots[f.parity[lane]][(lane ^ offset) % kLanes];
  f.parity[lane] ^= 1;
  return out;
}

bool WarpEmulator::run(const std::function<void(int lane)> &body) {
  auto fibers = std::make_unique<Fibers>();
  Fibers &f = *fibers;
  f.body = &body;
  active = &f;
  for (int lane = 0; lane < kLanes; ++lane) {
    f.stacks[lane].resize(1 << 20);
    getcontext(&f.lanes[lane]);
    f.lanes[lane].uc_stack.ss_sp = f.stacks[lane].data();
    f.lanes[lane].uc_stack.ss_size = f.stacks[lane].size();
    f.lanes[lane].uc_link = &f.scheduler;
    makecontext(&f.lanes[lane], &laneMain, 0);
  }
  bool lockstep = true;
  for (bool running = true; running;) {
    running = false;
    for (int lane = 0; lane < kLanes; ++lane) {
      if (f.done[lane])
        continue;
      f.current = lane;
      swapcontext(&f.scheduler, &f.lanes[lane]);
      running = running || !f.done[lane];
    }
    for (int lane = 1; lane < kLanes; ++lane)
      if (f.exchanges[lane] != f.exchanges[0] || f.done[lane] != f.done[0])
        lockstep = false;
    if (!lockstep) {
      // Diverged lanes would read stale values; finish them one at a time.
      for (int lane = 0; lane < kLanes; ++lane)
        while (!f.done[lane]) {
          f.current = lane;
          swapcontext(&f.scheduler, &f.lanes[lane]);
        }
      break;
    }
  }
  exchanges = f.exchanges[0];
  active = nullptr;
  return lockstep;
}

} // namespace sluice::gpuemu
