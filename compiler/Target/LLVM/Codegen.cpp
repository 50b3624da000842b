//===- Codegen.cpp - LLVM-dialect modules to machine code -----------------===//
//
// Translation, optimisation, object/PTX emission (with libdevice linked in
// where GPU code calls it) and the JIT. Everything here works on a module
// that is already in the LLVM dialect (plus NVVM for GPU code); producing
// one is the job of the conversions.
//
//===----------------------------------------------------------------------===//
#include "compiler/Target/LLVM/Codegen.h"
#include "compiler/Target/LLVM/CpuDispatch.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/IPO/Internalize.h"

#include <mutex>

#ifndef SLUICE_LIBDEVICE_PATH
#error "SLUICE_LIBDEVICE_PATH must name libdevice (CMake: SLUICE_LIBDEVICE)"
#endif

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

using namespace sluice::target;

namespace {

void initializeHostTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

void initializeNvptxTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

/// The subtarget information of the host's triple (its CPUs and
/// features), or null with `error` set.
std::unique_ptr<llvm::MCSubtargetInfo> hostSubtargetInfo(std::string &error) {
  initializeHostTarget();
  std::string triple = llvm::sys::getDefaultTargetTriple();
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  return std::unique_ptr<llvm::MCSubtargetInfo>(
      target->createMCSubtargetInfo(triple, "", ""));
}

/// A target machine for `triple`/`cpu`, or null with `error` set.
std::unique_ptr<llvm::TargetMachine>
makeTargetMachine(const std::string &triple, llvm::StringRef cpu,
                  llvm::StringRef features, llvm::CodeGenOptLevel level,
                  std::string &error) {
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  llvm::TargetOptions options;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, cpu, features, options, llvm::Reloc::PIC_, std::nullopt, level));
}

llvm::CodeGenOptLevel codeGenLevel(unsigned optLevel) {
  return optLevel == 0   ? llvm::CodeGenOptLevel::None
         : optLevel == 1 ? llvm::CodeGenOptLevel::Less
         : optLevel == 2 ? llvm::CodeGenOptLevel::Default
                         : llvm::CodeGenOptLevel::Aggressive;
}

mlir::LogicalResult runOptimizer(llvm::Module &module, unsigned optLevel,
                                 llvm::TargetMachine *tm, std::string &error) {
  auto transformer = mlir::makeOptimizingTransformer(optLevel, 0, tm);
  if (llvm::Error err = transformer(&module)) {
    error = "LLVM optimisation failed: " + llvm::toString(std::move(err));
    return mlir::failure();
  }
  return mlir::success();
}

/// Runs the code generator of `tm` over `module` into `os`.
mlir::LogicalResult emitWith(llvm::TargetMachine &tm, llvm::Module &module,
                             llvm::raw_pwrite_stream &os,
                             llvm::CodeGenFileType kind, std::string &error) {
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, kind)) {
    error = "the target cannot emit this kind of file";
    return mlir::failure();
  }
  pm.run(module);
  return mlir::success();
}

/// Collects the diagnostics of an LLVM context (the IR linker's) as text,
/// instead of printing them (and exiting on an error), for as long as it
/// lives.
class CollectDiagnostics {
public:
  explicit CollectDiagnostics(llvm::LLVMContext &ctx) : ctx(ctx) {
    ctx.setDiagnosticHandlerCallBack(&collect, this);
  }
  ~CollectDiagnostics() { ctx.setDiagnosticHandlerCallBack(nullptr, nullptr); }
  const std::string &text() const { return messages; }

private:
  static void collect(const llvm::DiagnosticInfo *info, void *self) {
    std::string &messages = static_cast<CollectDiagnostics *>(self)->messages;
    if (!messages.empty())
      messages += "; ";
    llvm::raw_string_ostream os(messages);
    llvm::DiagnosticPrinterRawOStream printer(os);
    info->print(printer);
  }
  llvm::LLVMContext &ctx;
  std::string messages;
};

/// Whether `module` calls a libdevice function that it does not define.
bool callsLibdevice(const llvm::Module &module) {
  return llvm::any_of(module, [](const llvm::Function &fn) {
    return fn.isDeclaration() && fn.getName().starts_with(kLibdevicePrefix);
  });
}

/// Links the libdevice functions `module` calls from the bitcode file
/// `path`, as clang does for CUDA (-mlink-builtin-bitcode): only what is
/// needed, internalised, with `nvvm-reflect-ftz` = 0.
mlir::LogicalResult linkLibdevice(llvm::Module &module, llvm::StringRef path,
                                  std::string &error) {
  if (path.empty()) {
    error = "the GPU code calls libdevice functions, but no libdevice file "
            "is configured";
    return mlir::failure();
  }
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    error = "cannot read libdevice '" + path.str() +
            "': " + buffer.getError().message();
    return mlir::failure();
  }
  CollectDiagnostics diagnostics(module.getContext());
  llvm::Expected<std::unique_ptr<llvm::Module>> lib =
      llvm::parseBitcodeFile((*buffer)->getMemBufferRef(), module.getContext());
  if (!lib) {
    error = "cannot read libdevice '" + path.str() +
            "': " + llvm::toString(lib.takeError());
    return mlir::failure();
  }
  // libdevice is built for any nvptx64 module (its triple says
  // nvptx64-nvidia-gpulibs): it takes the kernels' triple and layout.
  (*lib)->setTargetTriple(module.getTargetTriple());
  (*lib)->setDataLayout(module.getDataLayout());
  // The functions linked in are internal: inlined into the kernels and
  // dropped by the optimiser, so that the PTX declares none of them.
  bool failed = llvm::Linker::linkModules(
      module, std::move(*lib), llvm::Linker::LinkOnlyNeeded,
      [](llvm::Module &m, const llvm::StringSet<> &linked) {
        llvm::internalizeModule(m, [&](const llvm::GlobalValue &gv) {
          return !gv.hasName() || !linked.count(gv.getName());
        });
      });
  if (failed) {
    error = "cannot link libdevice '" + path.str() + "': " + diagnostics.text();
    return mlir::failure();
  }
  // libdevice asks __nvvm_reflect("__CUDA_FTZ") whether single-precision
  // denormals flush to zero; the NVVMReflect pass (run by the optimiser for
  // NVPTX) answers from this flag: no, as on the CPU.
  if (!module.getModuleFlag("nvvm-reflect-ftz"))
    module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz",
                         uint32_t(0));
  return mlir::success();
}

/// The translations translateModuleToLLVMIR needs, on the module's own
/// context (callers need not have registered them).
void registerTranslations(mlir::ModuleOp module) {
  mlir::DialectRegistry registry;
  registerLLVMTranslations(registry);
  module->getContext()->appendDialectRegistry(registry);
}

} // namespace

llvm::StringRef sluice::target::defaultLibdevicePath() {
  return SLUICE_LIBDEVICE_PATH;
}

void sluice::target::registerLLVMTranslations(mlir::DialectRegistry &registry) {
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerNVVMDialectTranslation(registry);
}

std::unique_ptr<llvm::Module>
sluice::target::translateToLLVMIR(mlir::ModuleOp module,
                                  llvm::LLVMContext &llvmCtx) {
  registerTranslations(module);
  return mlir::translateModuleToLLVMIR(module, llvmCtx, "sluice");
}

std::string sluice::target::hostTriple() {
  return llvm::sys::getDefaultTargetTriple();
}

mlir::FailureOr<HostCpu> sluice::target::resolveHostCpu(const HostCpu &cpu,
                                                        std::string &error) {
  std::unique_ptr<llvm::MCSubtargetInfo> sti = hostSubtargetInfo(error);
  if (!sti)
    return mlir::failure();
  llvm::StringSet<> known;
  for (const llvm::SubtargetFeatureKV &feature : sti->getAllProcessorFeatures())
    known.insert(feature.Key);
  HostCpu resolved;
  llvm::SmallVector<std::string> features;
  if (cpu.name == "native") {
    resolved.name = llvm::sys::getHostCPUName().str();
    // The host's features, sorted (a StringMap has no stable order), and
    // only those the target knows (LLVM warns on stderr about others).
    for (const auto &entry : llvm::sys::getHostCPUFeatures())
      if (known.contains(entry.getKey()))
        features.push_back((entry.getValue() ? "+" : "-") +
                           entry.getKey().str());
    llvm::sort(features);
  } else {
    if (cpu.name != "generic" && !sti->isCPUStringValid(cpu.name)) {
      error = "unknown CPU '" + cpu.name + "' for " + hostTriple() +
              " (--mcpu=help lists the CPUs and features)";
      return mlir::failure();
    }
    resolved.name = cpu.name;
  }
  llvm::SmallVector<llvm::StringRef> requested;
  llvm::StringRef(cpu.features).split(requested, ',', -1, false);
  for (llvm::StringRef feature : requested) {
    feature = feature.trim();
    if (feature.empty())
      continue;
    if (!feature.starts_with("+") && !feature.starts_with("-")) {
      error = "CPU feature '" + feature.str() + "' needs a sign: +" +
              feature.str() + " adds it, -" + feature.str() + " removes it";
      return mlir::failure();
    }
    if (!known.contains(feature.drop_front())) {
      error = "unknown CPU feature '" + feature.drop_front().str() + "' for " +
              hostTriple() + " (--mcpu=help lists the CPUs and features)";
      return mlir::failure();
    }
    features.push_back(feature.str());
  }
  resolved.features = llvm::join(features, ",");
  return resolved;
}

void sluice::target::printHostCpus(llvm::raw_ostream &os) {
  std::string error;
  std::unique_ptr<llvm::MCSubtargetInfo> sti = hostSubtargetInfo(error);
  if (!sti) {
    os << "no CPUs known for " << hostTriple() << ": " << error << "\n";
    return;
  }
  os << "CPUs for " << hostTriple()
     << " (--mcpu=<name>; -c's default is generic, native is this "
        "machine's, "
     << llvm::sys::getHostCPUName() << "):\n";
  for (const llvm::SubtargetSubTypeKV &cpu : sti->getAllProcessorDescriptions())
    os << "  " << cpu.Key << "\n";
  os << "\nFeatures (--mattr=+<name>,-<name>):\n";
  for (const llvm::SubtargetFeatureKV &feature : sti->getAllProcessorFeatures())
    os << "  " << feature.Key << " - " << feature.Desc << "\n";
}

std::string sluice::target::describeHostCpu(llvm::ArrayRef<HostCpu> cpus) {
  if (cpus.size() > 1) {
    llvm::SmallVector<std::string> names;
    for (const HostCpu &cpu : cpus)
      names.push_back(cpu.name == "native"
                          ? "native (" + llvm::sys::getHostCPUName().str() + ")"
                          : cpu.name);
    return "built for " + hostTriple() + ", CPUs " + llvm::join(names, ", ") +
           ": each function runs the code of the first CPU the machine "
           "supports, chosen when the program is loaded (runs on any CPU of "
           "the architecture)";
  }
  const HostCpu &cpu = cpus.front();
  bool native = cpu.name == "native";
  std::string name = native ? llvm::sys::getHostCPUName().str() : cpu.name;
  std::string text = "built for " + hostTriple() + ", CPU " + name;
  if (native)
    text += " (--mcpu=native)";
  text += name == "generic" ? " (runs on any CPU of the architecture)"
                            : ": needs a CPU with its instruction set";
  if (!cpu.features.empty())
    text += "; features " + cpu.features;
  return text;
}

mlir::LogicalResult
sluice::target::writeHostObject(mlir::ModuleOp module, llvm::StringRef path,
                                unsigned optLevel, llvm::ArrayRef<HostCpu> cpus,
                                std::string &error) {
  initializeHostTarget();
  if (cpus.empty()) {
    error = "no CPU to compile for";
    return mlir::failure();
  }
  llvm::SmallVector<HostCpu> resolved;
  llvm::SmallVector<std::string> names;
  for (const HostCpu &cpu : cpus) {
    mlir::FailureOr<HostCpu> one = resolveHostCpu(cpu, error);
    if (failed(one))
      return mlir::failure();
    resolved.push_back(*one);
    names.push_back(cpu.name);
  }
  if (mlir::failed(checkCpuList(cpus, error)))
    return mlir::failure();
  llvm::LLVMContext llvmCtx;
  std::unique_ptr<llvm::Module> llvmModule = translateToLLVMIR(module, llvmCtx);
  if (!llvmModule) {
    error = "cannot translate the module to LLVM IR";
    return mlir::failure();
  }
  // The CPU's instructions (generic by default: a portable object) are
  // what the vectoriser targets and the code generator emits. With several
  // CPUs the target machine is the baseline's (the last), and each
  // function's "target-cpu"/"target-features" name its own CPU.
  std::string triple = hostTriple();
  auto tm =
      makeTargetMachine(triple, resolved.back().name, resolved.back().features,
                        codeGenLevel(optLevel), error);
  if (!tm)
    return mlir::failure();
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(tm->createDataLayout());
  if (resolved.size() > 1 &&
      mlir::failed(addCpuDispatch(*llvmModule, resolved, names, error)))
    return mlir::failure();
  if (mlir::failed(runOptimizer(*llvmModule, optLevel, tm.get(), error)))
    return mlir::failure();
  std::error_code ec;
  // ToolOutputFile removes the file unless keep() is called: no partial
  // object is left behind on failure.
  llvm::ToolOutputFile out(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot open '" + path.str() + "': " + ec.message();
    return mlir::failure();
  }
  if (mlir::failed(emitWith(*tm, *llvmModule, out.os(),
                            llvm::CodeGenFileType::ObjectFile, error)))
    return mlir::failure();
  out.os().flush();
  if (out.os().has_error()) {
    error = "cannot write '" + path.str() + "': " + out.os().error().message();
    out.os().clear_error();
    return mlir::failure();
  }
  out.keep();
  return mlir::success();
}

mlir::LogicalResult sluice::target::emitPtx(mlir::ModuleOp module,
                                            llvm::StringRef chip,
                                            llvm::StringRef libdevice,
                                            std::string &ptx,
                                            std::string &error) {
  initializeNvptxTarget();
  llvm::LLVMContext llvmCtx;
  std::unique_ptr<llvm::Module> llvmModule = translateToLLVMIR(module, llvmCtx);
  if (!llvmModule) {
    error = "cannot translate the GPU module to LLVM IR";
    return mlir::failure();
  }
  std::string triple = "nvptx64-nvidia-cuda";
  // PTX ISA 8.0 is the first to support sm_90 (CUDA 12.0).
  auto tm = makeTargetMachine(triple, chip, "+ptx80",
                              llvm::CodeGenOptLevel::Aggressive, error);
  if (!tm)
    return mlir::failure();
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(tm->createDataLayout());
  if (callsLibdevice(*llvmModule) &&
      mlir::failed(linkLibdevice(*llvmModule, libdevice, error)))
    return mlir::failure();
  if (mlir::failed(runOptimizer(*llvmModule, 3, tm.get(), error)))
    return mlir::failure();
  // A kernel is loaded on its own (cuModuleLoadData): every function it
  // calls must be in the PTX.
  for (const llvm::Function &fn : *llvmModule)
    if (fn.isDeclaration() && !fn.isIntrinsic() && !fn.use_empty()) {
      error = "the GPU code calls '" + fn.getName().str() + "', which " +
              (fn.getName().starts_with(kLibdevicePrefix)
                   ? "libdevice '" + libdevice.str() + "' does not define"
                   : std::string("nothing defines"));
      return mlir::failure();
    }
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream os(buffer);
  if (mlir::failed(emitWith(*tm, *llvmModule, os,
                            llvm::CodeGenFileType::AssemblyFile, error)))
    return mlir::failure();
  ptx.assign(buffer.begin(), buffer.end());
  return mlir::success();
}

HostJit::HostJit() = default;
HostJit::~HostJit() = default;

std::unique_ptr<HostJit>
HostJit::create(mlir::ModuleOp module, const llvm::StringMap<void *> &symbols,
                unsigned optLevel, std::string &error) {
  // Every declaration must be provided by `symbols`; ORC would only report
  // a missing one at the first lookup, and on stderr.
  for (auto fn : module.getOps<mlir::LLVM::LLVMFuncOp>())
    if (fn.isExternal() && !symbols.count(fn.getName())) {
      error = "the module calls '" + fn.getName().str() +
              "', which the JIT does not provide";
      return nullptr;
    }
  initializeHostTarget();
  auto tmBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!tmBuilder) {
    error = "cannot detect the host: " + llvm::toString(tmBuilder.takeError());
    return nullptr;
  }
  auto tm = tmBuilder->createTargetMachine();
  if (!tm) {
    error = "cannot create a host target machine: " +
            llvm::toString(tm.takeError());
    return nullptr;
  }
  // The transformer runs when the module is first looked up, which may be
  // long after create() returned and freed the target machine it was
  // given: it gets one of its own that lives as long as the JIT.
  auto optimizerTm = tmBuilder->createTargetMachine();
  if (!optimizerTm) {
    error = "cannot create a host target machine: " +
            llvm::toString(optimizerTm.takeError());
    return nullptr;
  }
  auto transformer =
      mlir::makeOptimizingTransformer(optLevel, 0, optimizerTm->get());
  mlir::ExecutionEngineOptions options;
  options.transformer = transformer;
  options.jitCodeGenOptLevel = codeGenLevel(optLevel);
  options.enableGDBNotificationListener = false;
  options.enablePerfNotificationListener = false;
  registerTranslations(module);
  auto engine = mlir::ExecutionEngine::create(module, options, std::move(*tm));
  if (!engine) {
    error = "JIT compilation failed: " + llvm::toString(engine.takeError());
    return nullptr;
  }
  (*engine)->registerSymbols([&](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
    for (const auto &entry : symbols)
      map[interner(entry.getKey())] = {
          llvm::orc::ExecutorAddr::fromPtr(entry.getValue()),
          llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
    return map;
  });
  std::unique_ptr<HostJit> jit(new HostJit());
  jit->optimizerTarget = std::move(*optimizerTm);
  jit->engine = std::move(*engine);
  return jit;
}

void *HostJit::lookup(llvm::StringRef name, std::string &error) const {
  auto address = engine->lookup(name);
  if (!address) {
    error = "no symbol '" + name.str() +
            "' in the compiled module: " + llvm::toString(address.takeError());
    return nullptr;
  }
  return *address;
}

mlir::OwningOpRef<mlir::ModuleOp>
sluice::target::moveIntoModule(mlir::Block &body, mlir::Location loc) {
  mlir::OwningOpRef<mlir::ModuleOp> module(mlir::ModuleOp::create(loc));
  mlir::Block *dst = module->getBody();
  for (mlir::Operation &op : llvm::make_early_inc_range(body.getOperations())) {
    if (op.hasTrait<mlir::OpTrait::IsTerminator>())
      continue;
    op.moveBefore(dst, dst->end());
  }
  return module;
}

mlir::LogicalResult sluice::target::writeTextFile(
    mlir::Location loc, llvm::StringRef path,
    llvm::function_ref<void(llvm::raw_ostream &)> write) {
  std::error_code ec;
  llvm::ToolOutputFile out(path, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return mlir::emitError(loc)
           << "cannot write '" << path << "': " << ec.message();
  write(out.os());
  out.os().flush();
  if (out.os().has_error()) {
    out.os().clear_error();
    return mlir::emitError(loc) << "cannot write '" << path << "'";
  }
  out.keep();
  return mlir::success();
}
