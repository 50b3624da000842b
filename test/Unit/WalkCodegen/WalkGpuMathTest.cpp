//===- WalkGpuMathTest.cpp - The math built-ins on the GPU ----------------===//
//
// One case per math built-in of the language (docs/language.md, 6.4: `abs`
// of an i64 and of an f64, `sqrt`, `exp`, `log`), each in the weight of a
// walk scheduled for the GPU, with the rejection kernel (whose upper bound
// repeats the weight's math) and the reservoir kernel:
//
// - the PTX links libdevice: no libdevice function is left to resolve (no
//   `.extern`, no `__nv_` name), the built-in's code is in the kernel, and
//   ptxas assembles it for sm_90 (where libdevice and ptxas are installed);
// - the rejection kernel's device code, emulated on the host
//   (GpuEmulation.h: the same libdevice calls, with libm's definitions),
//   walks byte for byte as the CPU engine with the same seed, while the
//   same walk with the built-in left out (its argument instead) walks
//   differently: the built-in is computed, and the comparison can fail.
//
// Both engines use libm here, so their weights are the same doubles. On a
// real GPU libdevice's exp and log may differ from libm's in the last bit;
// the device comparison (test/WalkCodegen/gpu-math-builtins.test, with a
// GPU) uses weights where that cannot change a step.
//
//===----------------------------------------------------------------------===//
#include "compiler/Pipelines/Compilation.h"
#include "compiler/Target/LLVM/Codegen.h"
#include "compiler/Target/Walk/WalkCompile.h"
#include "compiler/Target/Walk/WalkGpu.h"
#include "test/Unit/WalkCodegen/GpuEmulation.h"

#include "sluice/walk.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace sluice;

namespace {

/// A built-in and a weight that uses it.
struct MathCase {
  const char *name;
  const char *weight;  ///< the weight, calling the built-in
  const char *control; ///< the same with the built-in's argument instead
  const char *ptxMark; ///< what its code looks like in the PTX
};

void PrintTo(const MathCase &c, std::ostream *os) { *os << c.name; }

// The ptx marks: PTX's own instruction for abs and sqrt; for exp and log,
// a constant of libdevice's __nv_exp (log2(e)) and __nv_log (the high part
// of ln(2)), which neither the kernels nor the control have.
const MathCase kCases[] = {
    // The label clamped to [0, 4]: a bounded weight (rejection).
    {"abs_i64", "w * (abs(min(max(label(next), 0), 4) - 2) + 1)",
     "w * ((min(max(label(next), 0), 4) - 2) + 1)", "abs.s64"},
    {"abs_f64", "abs(w - 3.0) + 0.25", "(w - 3.0) + 0.25", "abs.f64"},
    {"sqrt", "sqrt(w)", "w", "sqrt.rn.f64"},
    {"exp", "exp(w / 4.0)", "w / 4.0", "0d3FF71547652B82FE"},
    {"log", "log(1.0 + w)", "1.0 + w", "0d3FE62E42FEFA39EF"},
};

/// 16 vertices, 40 edges of weights in [0.25, 9.25], labels 0..4: every
/// vertex has neighbours of several weights and labels.
std::string weightedGraph() {
  std::string text = "# weighted\n";
  for (int u = 0; u < 16; ++u)
    for (int d : {1, 3, 7}) {
      int v = (u + d) % 16;
      if (d == 7 && u % 2)
        continue;
      text += std::to_string(u) + " " + std::to_string(v) + " " +
              std::to_string(0.25 + 0.75 * ((u * 7 + v * 3) % 13)) + "\n";
    }
  return text;
}

std::string labels() {
  std::string text;
  for (int v = 0; v < 16; ++v)
    text += std::to_string(v) + " " + std::to_string(v % 5) + "\n";
  return text;
}

class WalkGpuMath : public gpuemu::CompiledProgramTest,
                    public ::testing::WithParamInterface<MathCase> {
protected:
  void SetUp() override {
    std::string program = R"(
graph g = load("g.txt", format: snap, undirected, weighted: true,
              labels: "g.labels")
walk m on g {
  length 12
  weight(cur, next, w) = WEIGHT
}
walk m_res on g {
  length 12
  weight(cur, next, w) = WEIGHT
}
walk control on g {
  length 12
  weight(cur, next, w) = CONTROL
}
schedule m { sampler: rejection, target: gpu }
schedule m_res { sampler: reservoir, target: gpu }
schedule control { sampler: rejection, target: gpu }
job j = walk m on g { walks_per_vertex: 7, seed: 42 }
)";
    for (auto [key, text] :
         {std::pair<std::string, std::string>{"WEIGHT", GetParam().weight},
          {"CONTROL", GetParam().control}})
      for (size_t at; (at = program.find(key)) != std::string::npos;)
        program.replace(at, key.size(), text);
    ASSERT_NO_FATAL_FAILURE(compileProgram(
        program, {{"g.txt", weightedGraph()}, {"g.labels", labels()}}));
    graph = loadGraph("g.txt", "g.labels", /*weighted=*/true);
    ASSERT_TRUE(graph);
  }
  void TearDown() override {
    sluice_graph_release(graph);
    CompiledProgramTest::TearDown();
  }

  /// The walks of emulated kernel `name` (7 per vertex, length 12, seed 42)
  /// as the text file the CPU engine writes.
  std::string emulatedWalks(const target::HostJit &jit,
                            const std::string &name) {
    std::string error;
    auto kernel = reinterpret_cast<gpuemu::Kernel>(jit.lookup(name, error));
    EXPECT_TRUE(kernel) << error;
    if (!kernel)
      return "";
    gpuemu::Launch launch(graph);
    launch.walksPerVertex = 7;
    launch.maxLength = 12;
    launch.seed = 42;
    std::vector<uint32_t> rows, lengths;
    launch.runRejection(kernel, rows, lengths);
    sluice_error_t rtError;
    sluice_walk_writer_t *writer = nullptr;
    std::string out = path(name + ".walks");
    EXPECT_EQ(sluice_walk_writer_open(
                  out.c_str(), SLUICE_WALK_FORMAT_TEXT, launch.maxLength,
                  SLUICE_WALK_WRITE_ORIGINAL_IDS, graph, &writer, &rtError),
              SLUICE_STATUS_OK)
        << rtError.message;
    EXPECT_EQ(sluice_walk_writer_append(writer, rows.data(), lengths.data(),
                                        launch.walkers(), &rtError),
              SLUICE_STATUS_OK)
        << rtError.message;
    EXPECT_EQ(sluice_walk_writer_commit(writer, &rtError), SLUICE_STATUS_OK)
        << rtError.message;
    sluice_walk_writer_release(writer);
    return read(out);
  }

  sluice_graph_t *graph = nullptr;
};

TEST_P(WalkGpuMath, ThePtxLinksLibdeviceAndAssembles) {
  if (!llvm::sys::fs::exists(target::defaultLibdevicePath()))
    GTEST_SKIP() << "no libdevice at " << target::defaultLibdevicePath().str()
                 << " (CMake: SLUICE_LIBDEVICE)";
  std::string ptx, json;
  ASSERT_TRUE(mlir::succeeded(
      target::lowerWalksToPtx(compilation->module(), "sm_90", ptx, json)))
      << diagnostics;
  EXPECT_NE(ptx.find(".entry sluice_walk_m("), std::string::npos);
  EXPECT_NE(ptx.find(".entry sluice_walk_m_res("), std::string::npos);
  EXPECT_EQ(ptx.find(".extern"), std::string::npos) << ptx;
  EXPECT_EQ(ptx.find("__nv_"), std::string::npos) << ptx;
  EXPECT_EQ(ptx.find(".func"), std::string::npos)
      << "libdevice's functions are inlined";
  EXPECT_NE(ptx.find(GetParam().ptxMark), std::string::npos);

  auto ptxas = llvm::sys::findProgramByName("ptxas", {"/usr/local/cuda/bin"});
  if (!ptxas)
    GTEST_SKIP() << "no ptxas (CUDA toolkit) on this machine";
  llvm::SmallString<128> in, out;
  int fd;
  ASSERT_FALSE(
      llvm::sys::fs::createTemporaryFile("sluice-math", "ptx", fd, in));
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("sluice-math", "cubin", out));
  llvm::FileRemover removeIn(in), removeOut(out);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  llvm::StringRef args[] = {*ptxas, "-arch=sm_90", in, "-o", out};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(*ptxas, args, std::nullopt, {}, 120, 0,
                                     &message);
  EXPECT_EQ(rc, 0) << message;
}

TEST_P(WalkGpuMath, TheControlPtxHasNoneOfIt) {
  // The mark is the built-in's: the same walks without it do not have it.
  mlir::ModuleOp module = compilation->module();
  std::string ptx, json;
  ASSERT_TRUE(mlir::succeeded(target::lowerWalksToPtx(
      module, "sm_90", ptx, json, "control", "/nonexistent/libdevice.10.bc")))
      << "a walk without math needs no libdevice: " << diagnostics;
  EXPECT_NE(ptx.find(".entry sluice_walk_control("), std::string::npos);
  EXPECT_EQ(ptx.find(GetParam().ptxMark), std::string::npos);
}

TEST_P(WalkGpuMath, TheEmulatedKernelWalksAsTheCpuEngine) {
  std::string error;
  auto jit = gpuemu::emulateKernels(compilation->module(), error);
  ASSERT_TRUE(jit) << error << diagnostics;
  std::string emulated = emulatedWalks(*jit, "sluice_walk_m");
  std::string control = emulatedWalks(*jit, "sluice_walk_control");

  target::WalkRunOptions run;
  run.walksOut = path("cpu.walks");
  run.quiet = true;
  auto report = target::runWalkJob(compilation->module(), run);
  ASSERT_TRUE(mlir::succeeded(report)) << diagnostics;
  std::string cpu = read(run.walksOut);
  ASSERT_EQ(report->walks, 16u * 7u);
  EXPECT_EQ(emulated, cpu);
  EXPECT_NE(control, cpu) << "the walk without the built-in walks the same";
}

INSTANTIATE_TEST_SUITE_P(Builtins, WalkGpuMath, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<MathCase> &info) {
                           return std::string(info.param.name);
                         });

} // namespace
