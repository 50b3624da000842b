//===- CodegenTest.cpp - JIT, object files and PTX from the LLVM dialect --===//
#include "compiler/Target/LLVM/Codegen.h"
#include "compiler/Target/LLVM/CpuDispatch.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <gtest/gtest.h>

using namespace sluice::target;

namespace {

const char *kHostModule = R"mlir(
module {
  llvm.func @ext_add(i64, i64) -> i64
  llvm.func @twice_plus_one(%a: i64) -> i64 {
    %c = llvm.call @ext_add(%a, %a) : (i64, i64) -> i64
    %one = llvm.mlir.constant(1 : i64) : i64
    %r = llvm.add %c, %one : i64
    llvm.return %r : i64
  }
  llvm.mlir.global external constant @table(dense<[1.5, 2.5]> : tensor<2xf64>) : !llvm.array<2 x f64>
}
)mlir";

const char *kGpuModule = R"mlir(
module {
  llvm.func @store_tid(%p: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %t = nvvm.read.ptx.sreg.tid.x : i32
    %q = llvm.getelementptr %p[%t] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %t, %q : i32, !llvm.ptr<1>
    llvm.return
  }
}
)mlir";

/// A kernel that calls the function @CALLEE (f64 -> f64), as
/// convert-gpu-to-nvvm calls libdevice's __nv_sqrt for math.sqrt.
std::string callingKernel(llvm::StringRef callee) {
  std::string text = R"mlir(
module {
  llvm.func @CALLEE(f64) -> f64
  llvm.func @root(%p: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %x = llvm.load %p : !llvm.ptr<1> -> f64
    %r = llvm.call @CALLEE(%x) : (f64) -> f64
    llvm.store %r, %p : f64, !llvm.ptr<1>
    llvm.return
  }
}
)mlir";
  for (size_t at; (at = text.find("CALLEE")) != std::string::npos;)
    text.replace(at, 6, callee.str());
  return text;
}

extern "C" int64_t extAdd(int64_t a, int64_t b) { return a + b; }

struct Fixture : ::testing::Test {
  Fixture() {
    ctx.loadDialect<mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect>();
  }
  mlir::OwningOpRef<mlir::ModuleOp> parse(llvm::StringRef text) {
    return mlir::parseSourceString<mlir::ModuleOp>(text, &ctx);
  }
  /// kHostModule written by writeHostObject for `cpus` to a temporary
  /// file and read back (the file is removed); no binary on a failure,
  /// which is reported.
  llvm::object::OwningBinary<llvm::object::ObjectFile>
  hostObject(llvm::ArrayRef<HostCpu> cpus) {
    auto module = parse(kHostModule);
    llvm::SmallString<128> path;
    if (!module ||
        llvm::sys::fs::createTemporaryFile("sluice-codegen", "o", path)) {
      ADD_FAILURE() << "no module or no temporary file";
      return {};
    }
    llvm::FileRemover remover(path);
    std::string error;
    if (mlir::failed(writeHostObject(*module, path, 2, cpus, error))) {
      ADD_FAILURE() << error;
      return {};
    }
    auto object = llvm::object::ObjectFile::createObjectFile(path);
    if (!object) {
      ADD_FAILURE() << llvm::toString(object.takeError());
      return {};
    }
    return std::move(*object);
  }
  mlir::MLIRContext ctx;
};

TEST_F(Fixture, JitResolvesExternalsFromTheTable) {
  auto module = parse(kHostModule);
  ASSERT_TRUE(module);
  llvm::StringMap<void *> symbols;
  symbols["ext_add"] = reinterpret_cast<void *>(&extAdd);
  std::string error;
  auto jit = HostJit::create(*module, symbols, 2, error);
  ASSERT_TRUE(jit) << error;
  auto *fn = reinterpret_cast<int64_t (*)(int64_t)>(
      jit->lookup("twice_plus_one", error));
  ASSERT_TRUE(fn) << error;
  EXPECT_EQ(fn(20), 41);
  EXPECT_EQ(fn(-5), -9);
  auto *table = static_cast<const double *>(jit->lookup("table", error));
  ASSERT_TRUE(table) << error;
  EXPECT_EQ(table[0], 1.5);
  EXPECT_EQ(table[1], 2.5);
  EXPECT_EQ(jit->lookup("no_such_symbol", error), nullptr);
  EXPECT_NE(error.find("no_such_symbol"), std::string::npos);
}

TEST_F(Fixture, JitReportsAMissingExternal) {
  auto module = parse(kHostModule);
  ASSERT_TRUE(module);
  std::string error;
  // ext_add cannot be resolved: compilation must refuse, naming it.
  EXPECT_EQ(HostJit::create(*module, {}, 2, error), nullptr);
  EXPECT_NE(error.find("'ext_add'"), std::string::npos) << error;
}

TEST_F(Fixture, HostObjectDefinesAndReferencesSymbols) {
  auto object = hostObject(HostCpu());
  ASSERT_NE(object.getBinary(), nullptr);
  bool defined = false, undefinedExt = false, table = false;
  for (const auto &sym : object.getBinary()->symbols()) {
    auto name = sym.getName();
    auto flags = sym.getFlags();
    if (!name || !flags)
      continue;
    bool undef = *flags & llvm::object::SymbolRef::SF_Undefined;
    if (*name == "twice_plus_one" && !undef)
      defined = true;
    if (*name == "ext_add" && undef)
      undefinedExt = true;
    if (*name == "table" && !undef)
      table = true;
  }
  EXPECT_TRUE(defined);
  EXPECT_TRUE(undefinedExt);
  EXPECT_TRUE(table);
}

TEST_F(Fixture, HostObjectToAMissingDirectoryFails) {
  auto module = parse(kHostModule);
  ASSERT_TRUE(module);
  std::string error;
  EXPECT_TRUE(mlir::failed(
      writeHostObject(*module, "/nonexistent-dir/x.o", 2, HostCpu(), error)));
  EXPECT_NE(error.find("/nonexistent-dir/x.o"), std::string::npos) << error;
}

TEST(HostCpu, GenericIsTheDefaultAndKeptAsIs) {
  std::string error;
  auto cpu = resolveHostCpu(HostCpu(), error);
  ASSERT_TRUE(mlir::succeeded(cpu)) << error;
  EXPECT_EQ(cpu->name, "generic");
  EXPECT_EQ(cpu->features, "");
  EXPECT_NE(describeHostCpu(HostCpu()).find(", CPU generic (runs on any CPU"),
            std::string::npos);
}

TEST(HostCpu, NativeIsTheHostsCpuWithItsFeatures) {
  std::string error;
  auto cpu = resolveHostCpu({"native", ""}, error);
  ASSERT_TRUE(mlir::succeeded(cpu)) << error;
  EXPECT_EQ(cpu->name, llvm::sys::getHostCPUName().str());
  // Sorted, each with its sign; resolving them again changes nothing.
  llvm::SmallVector<llvm::StringRef> features;
  llvm::StringRef(cpu->features).split(features, ',', -1, false);
  EXPECT_TRUE(llvm::is_sorted(features));
  for (llvm::StringRef f : features)
    EXPECT_TRUE(f.starts_with("+") || f.starts_with("-")) << f.str();
  auto again = resolveHostCpu(*cpu, error);
  ASSERT_TRUE(mlir::succeeded(again)) << error;
  EXPECT_EQ(again->features, cpu->features);
  EXPECT_NE(describeHostCpu(HostCpu{"native", ""})
                .find(", CPU " + cpu->name + " (--mcpu=native)"),
            std::string::npos);
}

TEST(HostCpu, UnknownNamesAndFeaturesAreErrors) {
  std::string error;
  EXPECT_TRUE(mlir::failed(resolveHostCpu({"bogus", ""}, error)));
  EXPECT_NE(error.find("unknown CPU 'bogus' for " + hostTriple()),
            std::string::npos)
      << error;
  EXPECT_TRUE(mlir::failed(resolveHostCpu({"generic", "+bogus"}, error)));
  EXPECT_NE(error.find("unknown CPU feature 'bogus'"), std::string::npos)
      << error;
  EXPECT_TRUE(mlir::failed(resolveHostCpu({"generic", "+"}, error)));
  EXPECT_NE(error.find("unknown CPU feature ''"), std::string::npos) << error;
}

TEST_F(Fixture, HostObjectForAnUnknownCpuIsNotWritten) {
  auto module = parse(kHostModule);
  ASSERT_TRUE(module);
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("sluice-codegen", "o", path));
  ASSERT_FALSE(llvm::sys::fs::remove(path));
  std::string error;
  EXPECT_TRUE(mlir::failed(
      writeHostObject(*module, path, 2, HostCpu{"bogus", ""}, error)));
  EXPECT_NE(error.find("unknown CPU 'bogus'"), std::string::npos) << error;
  EXPECT_FALSE(llvm::sys::fs::exists(path));
}

#if defined(__x86_64__)
TEST(HostCpu, X86FeaturesAreCheckedAndKeptInOrder) {
  std::string error;
  auto cpu = resolveHostCpu({"x86-64-v3", " +avx512f, -fma "}, error);
  ASSERT_TRUE(mlir::succeeded(cpu)) << error;
  EXPECT_EQ(cpu->name, "x86-64-v3");
  EXPECT_EQ(cpu->features, "+avx512f,-fma");
  EXPECT_TRUE(mlir::failed(resolveHostCpu({"x86-64-v3", "avx2"}, error)));
  EXPECT_NE(error.find("'avx2' needs a sign: +avx2 adds it, -avx2 removes it"),
            std::string::npos)
      << error;
}
#endif

#if defined(__x86_64__) && defined(__ELF__)
TEST_F(Fixture, HostObjectForSeveralCpusHoldsACopyEachAndAnIfunc) {
  HostCpu cpus[] = {{"x86-64-v3", ""}, {"x86-64", ""}};
  auto object = hostObject(cpus);
  ASSERT_NE(object.getBinary(), nullptr);
  auto *elf =
      llvm::dyn_cast<llvm::object::ELFObjectFileBase>(object.getBinary());
  ASSERT_NE(elf, nullptr);
  llvm::StringMap<uint8_t> defined; // name -> ELF symbol type
  unsigned tables = 0;
  for (const llvm::object::ELFSymbolRef &sym : elf->symbols()) {
    auto name = sym.getName();
    auto flags = sym.getFlags();
    if (!name || !flags || (*flags & llvm::object::SymbolRef::SF_Undefined))
      continue;
    defined[*name] = sym.getELFType();
    tables += *name == "table";
  }
  EXPECT_EQ(defined.lookup("twice_plus_one"), llvm::ELF::STT_GNU_IFUNC);
  EXPECT_EQ(defined.lookup("twice_plus_one.x86_64_v3"), llvm::ELF::STT_FUNC);
  EXPECT_EQ(defined.lookup("twice_plus_one.x86_64"), llvm::ELF::STT_FUNC);
  EXPECT_EQ(defined.lookup("twice_plus_one.resolver"), llvm::ELF::STT_FUNC);
  // Data is not copied.
  EXPECT_EQ(tables, 1u);
  EXPECT_NE(describeHostCpu(cpus).find(
                ", CPUs x86-64-v3, x86-64: each function runs the code of "
                "the first CPU the machine supports"),
            std::string::npos);
}

TEST(HostCpu, ListsOfCpusEndInABaselineAndNameEachOnce) {
  std::string error;
  HostCpu good[] = {{"znver4", ""}, {"x86-64-v3", ""}, {"generic", ""}};
  EXPECT_TRUE(mlir::succeeded(checkCpuList(good, error))) << error;
  HostCpu one[] = {{"znver4", "+avx2"}};
  EXPECT_TRUE(mlir::succeeded(checkCpuList(one, error))) << error;
  HostCpu noBaseline[] = {{"x86-64-v3", ""}, {"znver4", ""}};
  EXPECT_TRUE(mlir::failed(checkCpuList(noBaseline, error)));
  EXPECT_NE(error.find("the last CPU of --mcpu must run on every x86-64 "
                       "machine (generic or x86-64), not 'znver4'"),
            std::string::npos)
      << error;
  HostCpu twice[] = {{"znver4", ""}, {"znver4", ""}, {"x86-64", ""}};
  EXPECT_TRUE(mlir::failed(checkCpuList(twice, error)));
  EXPECT_NE(error.find("'znver4' is named twice"), std::string::npos) << error;
  HostCpu features[] = {{"znver4", "+avx2"}, {"x86-64", "+avx2"}};
  EXPECT_TRUE(mlir::failed(checkCpuList(features, error)));
  EXPECT_NE(error.find("--mattr applies to one CPU"), std::string::npos)
      << error;
}
#endif

/// Expects ptxas -arch=sm_90 to assemble `ptx`; skips without ptxas.
void expectPtxasAccepts(const std::string &ptx) {
  auto ptxas = llvm::sys::findProgramByName("ptxas", {"/usr/local/cuda/bin"});
  if (!ptxas)
    GTEST_SKIP() << "no ptxas (CUDA toolkit) on this machine";
  llvm::SmallString<128> in, out;
  int fd;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("sluice-ptx", "ptx", fd, in));
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("sluice-ptx", "cubin", out));
  llvm::FileRemover removeIn(in), removeOut(out);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  llvm::StringRef args[] = {*ptxas, "-arch=sm_90", in, "-o", out};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(*ptxas, args, std::nullopt, {}, 120, 0,
                                     &message);
  EXPECT_EQ(rc, 0) << message << "\n" << ptx;
}

TEST_F(Fixture, PtxForSm90) {
  auto module = parse(kGpuModule);
  ASSERT_TRUE(module);
  std::string ptx, error;
  ASSERT_TRUE(mlir::succeeded(emitPtx(*module, "sm_90", "", ptx, error)))
      << error;
  EXPECT_NE(ptx.find(".target sm_90"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find(".entry store_tid"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("%tid.x"), std::string::npos) << ptx;
}

TEST_F(Fixture, PtxAssemblesWithPtxas) {
  auto module = parse(kGpuModule);
  ASSERT_TRUE(module);
  std::string ptx, error;
  ASSERT_TRUE(mlir::succeeded(emitPtx(*module, "sm_90", "", ptx, error)))
      << error;
  expectPtxasAccepts(ptx);
}

TEST_F(Fixture, LibdeviceIsLinkedInlinedAndReflected) {
  llvm::StringRef libdevice = defaultLibdevicePath();
  if (!llvm::sys::fs::exists(libdevice))
    GTEST_SKIP() << "no libdevice at " << libdevice.str();
  // __nv_exp asks __nvvm_reflect("__CUDA_FTZ"): NVVMReflect must answer.
  for (const char *fn : {"__nv_sqrt", "__nv_exp"}) {
    auto module = parse(callingKernel(fn));
    ASSERT_TRUE(module);
    std::string ptx, error;
    ASSERT_TRUE(
        mlir::succeeded(emitPtx(*module, "sm_90", libdevice, ptx, error)))
        << error;
    EXPECT_NE(ptx.find(".entry root"), std::string::npos) << ptx;
    EXPECT_EQ(ptx.find(".extern"), std::string::npos) << ptx;
    EXPECT_EQ(ptx.find(".func"), std::string::npos) << ptx;
    EXPECT_EQ(ptx.find("__nv"), std::string::npos) << ptx;
    if (llvm::StringRef(fn) == "__nv_sqrt") {
      EXPECT_NE(ptx.find("sqrt.rn.f64"), std::string::npos) << ptx;
    }
    ASSERT_NO_FATAL_FAILURE(expectPtxasAccepts(ptx));
  }
}

TEST_F(Fixture, LibdeviceMissingOrUnreadableIsAnError) {
  auto module = parse(callingKernel("__nv_sqrt"));
  ASSERT_TRUE(module);
  std::string ptx, error;
  EXPECT_TRUE(mlir::failed(emitPtx(*module, "sm_90", "", ptx, error)));
  EXPECT_NE(error.find("no libdevice file is configured"), std::string::npos)
      << error;
  error.clear();
  EXPECT_TRUE(mlir::failed(
      emitPtx(*module, "sm_90", "/nonexistent/libdevice.10.bc", ptx, error)));
  EXPECT_NE(error.find("cannot read libdevice '/nonexistent/libdevice.10.bc'"),
            std::string::npos)
      << error;
  llvm::SmallString<128> text;
  int fd;
  ASSERT_FALSE(
      llvm::sys::fs::createTemporaryFile("sluice-libdevice", "bc", fd, text));
  llvm::FileRemover removeText(text);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << "not bitcode\n";
  }
  error.clear();
  EXPECT_TRUE(mlir::failed(emitPtx(*module, "sm_90", text, ptx, error)));
  EXPECT_NE(error.find("cannot read libdevice '" + text.str().str() + "'"),
            std::string::npos)
      << error;
}

TEST_F(Fixture, AFunctionNobodyDefinesIsAnError) {
  // The PTX would declare it .extern and fail to load.
  auto module = parse(callingKernel("no_such_function"));
  ASSERT_TRUE(module);
  std::string ptx, error;
  EXPECT_TRUE(mlir::failed(emitPtx(*module, "sm_90", "", ptx, error)));
  EXPECT_EQ(error, "the GPU code calls 'no_such_function', which nothing "
                   "defines");
  llvm::StringRef libdevice = defaultLibdevicePath();
  if (!llvm::sys::fs::exists(libdevice))
    GTEST_SKIP() << "no libdevice at " << libdevice.str();
  module = parse(callingKernel("__nv_no_such_function"));
  ASSERT_TRUE(module);
  error.clear();
  EXPECT_TRUE(mlir::failed(emitPtx(*module, "sm_90", libdevice, ptx, error)));
  EXPECT_EQ(error, "the GPU code calls '__nv_no_such_function', which "
                   "libdevice '" +
                       libdevice.str() + "' does not define");
}

} // namespace
