//===- CpuDispatch.cpp - One object, code for several CPUs ----------------===//
//
// See CpuDispatch.h. The resolver follows clang's for target_clones
// (CodeGenFunction::EmitX86CpuSupports, EmitX86CpuInit): call
// __cpu_indicator_init, then test the CPU's feature bits in
// __cpu_model.__cpu_features[0] and __cpu_features2[0..2].
//
//===----------------------------------------------------------------------===//
#include "compiler/Target/LLVM/CpuDispatch.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/GlobalIFunc.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/TargetParser/X86TargetParser.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <array>

using namespace sluice::target;

namespace {

/// The baselines every x86-64 machine runs.
bool isBaseline(llvm::StringRef cpu) {
  return cpu == "generic" || cpu == "x86-64";
}

/// The features libgcc's and compiler-rt's CPU model can report
/// (X86_FEATURE_COMPAT in LLVM's X86TargetParser.def; the others, such as
/// x87, cx8, fxsr, sahf or crc32, are on every x86-64 CPU or come with one
/// that is reported: sse4.2 for crc32).
bool isReported(llvm::StringRef feature) {
  static const llvm::StringSet<> reported = {
#define X86_FEATURE_COMPAT(ENUM, STR, PRIORITY) STR,
#include "llvm/TargetParser/X86TargetParser.def"
  };
  return reported.contains(feature);
}

/// The feature bits (llvm::X86::getCpuSupportsMask) that a machine needs
/// to run code compiled for `cpu` (resolved): the CPU's features with what
/// they imply, then its +/- features.
std::array<uint32_t, 4> requiredFeatureBits(const HostCpu &cpu) {
  llvm::StringMap<bool> enabled;
  auto set = [&](llvm::StringRef feature, bool on) {
    enabled[feature] = on;
    llvm::X86::updateImpliedFeatures(feature, on, enabled);
  };
  if (!isBaseline(cpu.name) &&
      llvm::X86::parseArchX86(cpu.name, /*Only64Bit=*/true) !=
          llvm::X86::CK_None) {
    llvm::SmallVector<llvm::StringRef> features;
    llvm::X86::getFeaturesForCPU(cpu.name, features);
    for (llvm::StringRef feature : features)
      set(feature, true);
  }
  llvm::SmallVector<llvm::StringRef> signedFeatures;
  llvm::StringRef(cpu.features).split(signedFeatures, ',', -1, false);
  for (llvm::StringRef feature : signedFeatures)
    set(feature.drop_front(), feature.starts_with("+"));
  // Sorted: the masks do not depend on the map's order anyway, but the
  // list is built deterministically.
  llvm::SmallVector<llvm::StringRef> reported;
  for (const auto &entry : enabled)
    if (entry.getValue() && isReported(entry.getKey()))
      reported.push_back(entry.getKey());
  llvm::sort(reported);
  return llvm::X86::getCpuSupportsMask(reported);
}

/// `(word & mask) == mask` for each non-zero word of `mask`, read from
/// libgcc's/compiler-rt's CPU model as clang's __builtin_cpu_supports does.
llvm::Value *emitSupports(llvm::IRBuilder<> &b, llvm::Module &module,
                          const std::array<uint32_t, 4> &mask) {
  llvm::Type *i32 = b.getInt32Ty();
  llvm::Value *result = b.getTrue();
  auto test = [&](llvm::Value *word, uint32_t bits) {
    llvm::Value *m = b.getInt32(bits);
    result = b.CreateAnd(result, b.CreateICmpEQ(b.CreateAnd(word, m), m));
  };
  if (mask[0]) {
    // struct { unsigned vendor, type, subtype, features[1]; } __cpu_model
    auto *modelTy =
        llvm::StructType::get(i32, i32, i32, llvm::ArrayType::get(i32, 1));
    auto *model = llvm::cast<llvm::GlobalVariable>(
        module.getOrInsertGlobal("__cpu_model", modelTy));
    model->setDSOLocal(true);
    llvm::Value *at = b.CreateInBoundsGEP(
        modelTy, model, {b.getInt32(0), b.getInt32(3), b.getInt32(0)});
    test(b.CreateAlignedLoad(i32, at, llvm::Align(4)), mask[0]);
  }
  if (mask[1] || mask[2] || mask[3]) {
    // unsigned __cpu_features2[3]
    auto *wordsTy = llvm::ArrayType::get(i32, 3);
    auto *words = llvm::cast<llvm::GlobalVariable>(
        module.getOrInsertGlobal("__cpu_features2", wordsTy));
    words->setDSOLocal(true);
    for (unsigned i = 1; i != 4; ++i) {
      if (!mask[i])
        continue;
      llvm::Value *at = b.CreateInBoundsGEP(wordsTy, words,
                                            {b.getInt32(0), b.getInt32(i - 1)});
      test(b.CreateAlignedLoad(i32, at, llvm::Align(4)), mask[i]);
    }
  }
  return result;
}

/// The suffix of a CPU's copies: its name with `_` for what is neither a
/// letter nor a digit ("x86-64-v3" -> "x86_64_v3"), so that linker
/// scripts, --defsym and C asm labels can name them unquoted.
std::string copySuffix(llvm::StringRef cpu) {
  std::string suffix = cpu.str();
  for (char &c : suffix)
    if (!llvm::isAlnum(c))
      c = '_';
  return suffix;
}

/// Gives `fn` the CPU's code generation attributes.
void setCpuAttributes(llvm::Function &fn, const HostCpu &cpu) {
  fn.addFnAttr("target-cpu", cpu.name);
  if (cpu.features.empty())
    fn.removeFnAttr("target-features");
  else
    fn.addFnAttr("target-features", cpu.features);
}

/// `resolver` for the ifunc of one exported function: the first of
/// `clones` (one per CPU, baseline last) whose required bits are set.
void emitResolver(llvm::Module &module, llvm::Function &resolver,
                  llvm::ArrayRef<llvm::Function *> clones,
                  llvm::ArrayRef<std::array<uint32_t, 4>> required) {
  llvm::LLVMContext &ctx = module.getContext();
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", &resolver));
  auto *initTy = llvm::FunctionType::get(b.getVoidTy(), false);
  llvm::FunctionCallee init =
      module.getOrInsertFunction("__cpu_indicator_init", initTy);
  auto *initFn = llvm::cast<llvm::Function>(init.getCallee());
  initFn->setDSOLocal(true);
  b.CreateCall(init);
  // select(cpu0 ok, clone0, select(cpu1 ok, clone1, ... baseline)).
  llvm::Value *chosen = clones.back();
  for (size_t i = clones.size() - 1; i-- > 0;)
    chosen =
        b.CreateSelect(emitSupports(b, module, required[i]), clones[i], chosen);
  b.CreateRet(chosen);
}

} // namespace

mlir::LogicalResult sluice::target::checkCpuList(llvm::ArrayRef<HostCpu> cpus,
                                                 std::string &error) {
  if (cpus.size() < 2)
    return mlir::success();
  llvm::Triple triple(hostTriple());
  if (triple.getArch() != llvm::Triple::x86_64 || !triple.isOSBinFormatELF()) {
    error = "several CPUs in --mcpu need x86-64 ELF (the object dispatches "
            "through an ifunc), not " +
            hostTriple();
    return mlir::failure();
  }
  llvm::StringSet<> seen;
  for (const HostCpu &cpu : cpus) {
    if (cpu.name.empty()) {
      error = "empty CPU name in --mcpu";
      return mlir::failure();
    }
    if (!seen.insert(cpu.name).second) {
      error = "CPU '" + cpu.name + "' is named twice in --mcpu";
      return mlir::failure();
    }
    if (!cpu.features.empty()) {
      error = "--mattr applies to one CPU, not to a list of several in "
              "--mcpu (each CPU's code has that CPU's features)";
      return mlir::failure();
    }
    if (cpu.name != "native" && !isBaseline(cpu.name) &&
        llvm::X86::parseArchX86(cpu.name, /*Only64Bit=*/true) ==
            llvm::X86::CK_None) {
      error = "CPU '" + cpu.name +
              "' cannot be dispatched to at run time (not an x86-64 CPU "
              "whose features the CPU model reports)";
      return mlir::failure();
    }
  }
  if (!isBaseline(cpus.back().name)) {
    error = "the last CPU of --mcpu must run on every x86-64 machine "
            "(generic or x86-64), not '" +
            cpus.back().name + "', e.g. --mcpu=" + cpus.front().name +
            ",x86-64";
    return mlir::failure();
  }
  for (const HostCpu &cpu : cpus.drop_back())
    if (isBaseline(cpu.name)) {
      error = "CPU '" + cpu.name +
              "' runs on every x86-64 machine: only the last CPU of --mcpu "
              "can be a baseline (the CPUs after it would never be chosen)";
      return mlir::failure();
    }
  return mlir::success();
}

mlir::LogicalResult sluice::target::addCpuDispatch(
    llvm::Module &module, llvm::ArrayRef<HostCpu> cpus,
    llvm::ArrayRef<std::string> names, std::string &error) {
  if (cpus.size() < 2 || cpus.size() != names.size()) {
    error = "CPU dispatch needs two CPUs or more, each with its name";
    return mlir::failure();
  }
  llvm::SmallVector<llvm::Function *> defined;
  for (llvm::Function &fn : module)
    if (!fn.isDeclaration())
      defined.push_back(&fn);
  const HostCpu &baseline = cpus.back();
  for (llvm::Function *fn : defined)
    setCpuAttributes(*fn, baseline);

  // clones[c][i]: CPU c's copy of defined[i] (the baseline's is defined[i]).
  llvm::SmallVector<llvm::SmallVector<llvm::Function *>> clones(cpus.size());
  clones.back().assign(defined.begin(), defined.end());
  for (size_t c = 0; c + 1 < cpus.size(); ++c) {
    llvm::ValueToValueMapTy map;
    for (llvm::Function *fn : defined) {
      // Exported copies keep external linkage (hidden: not exported from a
      // shared library), so that a test can call one CPU's code.
      bool exported = !fn->hasLocalLinkage();
      auto *copy = llvm::Function::Create(
          fn->getFunctionType(),
          exported ? llvm::GlobalValue::ExternalLinkage
                   : llvm::GlobalValue::InternalLinkage,
          fn->getName() + "." + copySuffix(names[c]), module);
      if (exported)
        copy->setVisibility(llvm::GlobalValue::HiddenVisibility);
      map[fn] = copy;
      clones[c].push_back(copy);
    }
    for (auto [fn, copy] : llvm::zip(defined, clones[c])) {
      auto arg = copy->arg_begin();
      for (llvm::Argument &original : fn->args()) {
        arg->setName(original.getName());
        map[&original] = &*arg++;
      }
      llvm::SmallVector<llvm::ReturnInst *> returns;
      llvm::GlobalValue::LinkageTypes linkage = copy->getLinkage();
      llvm::GlobalValue::VisibilityTypes visibility = copy->getVisibility();
      llvm::CloneFunctionInto(copy, fn, map,
                              llvm::CloneFunctionChangeType::LocalChangesOnly,
                              returns);
      // CloneFunctionInto copies the original's linkage and attributes.
      copy->setLinkage(linkage);
      copy->setVisibility(visibility);
      copy->setDSOLocal(true);
      setCpuAttributes(*copy, cpus[c]);
    }
  }

  std::vector<std::array<uint32_t, 4>> required;
  for (const HostCpu &cpu : cpus.drop_back())
    required.push_back(requiredFeatureBits(cpu));
  auto *ptrTy = llvm::PointerType::getUnqual(module.getContext());
  auto *resolverTy = llvm::FunctionType::get(ptrTy, false);
  for (size_t i = 0; i != defined.size(); ++i) {
    llvm::Function *fn = defined[i];
    // Exported functions, and those whose address a global holds (the walk
    // kernel's descriptor), dispatch; calls from code stay within one
    // CPU's copies.
    bool exported = !fn->hasLocalLinkage();
    if (!exported && llvm::all_of(fn->users(), [](llvm::User *user) {
          return llvm::isa<llvm::Instruction>(user);
        }))
      continue;
    std::string name = fn->getName().str();
    llvm::GlobalValue::LinkageTypes linkage = fn->getLinkage();
    fn->setName(name + "." + copySuffix(names.back()));
    if (exported)
      fn->setVisibility(llvm::GlobalValue::HiddenVisibility);
    fn->setDSOLocal(true);
    llvm::SmallVector<llvm::Function *> choices;
    for (auto &perCpu : clones)
      choices.push_back(perCpu[i]);
    auto *resolver =
        llvm::Function::Create(resolverTy,
                               exported ? llvm::GlobalValue::ExternalLinkage
                                        : llvm::GlobalValue::InternalLinkage,
                               name + ".resolver", module);
    if (exported)
      resolver->setVisibility(llvm::GlobalValue::HiddenVisibility);
    resolver->setDSOLocal(true);
    setCpuAttributes(*resolver, baseline);
    emitResolver(module, *resolver, choices, required);
    auto *ifunc = llvm::GlobalIFunc::create(fn->getFunctionType(), 0, linkage,
                                            name, resolver, &module);
    // The addresses globals hold go through the ifunc; code keeps calling
    // its own CPU's copy directly.
    fn->replaceUsesWithIf(ifunc, [](llvm::Use &use) {
      return !llvm::isa<llvm::Instruction>(use.getUser());
    });
  }
  return mlir::success();
}
