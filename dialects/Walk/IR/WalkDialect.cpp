//===- WalkDialect.cpp - The walk dialect ---------------------------------===//
//
// Registers the walk types, attributes and operations; verifies
// #walk.schedule. Op verifiers live in
// WalkOps.cpp.
//
//===----------------------------------------------------------------------===//
#include "dialects/Walk/IR/WalkDialect.h"

#include "dialects/Walk/IR/WalkOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace sluice::walk;

#include "dialects/Walk/IR/WalkDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/Walk/IR/WalkTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Walk/IR/WalkAttrs.cpp.inc"

void WalkDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Walk/IR/WalkAttrs.cpp.inc"
      >();
}

LogicalResult ScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   Target target, StepMethod method,
                                   int64_t perWalker, int64_t threads,
                                   int64_t walkersPerThread) {
  if (target == Target::Gpu && method != StepMethod::Rejection &&
      method != StepMethod::Reservoir)
    return emitError() << "a gpu schedule draws by rejection or reservoir, "
                          "not "
                       << stringifyStepMethod(method);
  if (perWalker != walk::threadsPerWalker(target, method))
    return emitError() << "threads_per_walker of a " << stringifyTarget(target)
                       << " " << stringifyStepMethod(method) << " schedule is "
                       << walk::threadsPerWalker(target, method) << ", got "
                       << perWalker;
  if (threads < 0 || threads > kMaxWalkThreads)
    return emitError() << "threads must be in [0, " << kMaxWalkThreads
                       << "] (0: the engine's default), got " << threads;
  if (walkersPerThread < 0 || walkersPerThread > kMaxWalkersPerThread)
    return emitError() << "walkers_per_thread must be in [0, "
                       << kMaxWalkersPerThread
                       << "] (0: the engine's default), got "
                       << walkersPerThread;
  return success();
}

LogicalResult KernelAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef name, uint32_t flags,
                                 int32_t weightClass, uint32_t numParams,
                                 uint32_t numState, ArrayAttr functions) {
  if (name.empty())
    return emitError() << "a kernel needs the name of its walk";
  if (functions.size() != 8)
    return emitError() << "a kernel lists 8 functions (weight, stop, update, "
                          "init and the four bounds), got "
                       << functions.size();
  if (!llvm::all_of(functions, [](Attribute a) { return llvm::isa<StringAttr>(a); }))
    return emitError() << "a kernel's functions are symbol names, \"\" for "
                          "none";
  return success();
}

void WalkDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/Walk/IR/WalkTypes.cpp.inc"
      >();
}

void WalkDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/Walk/IR/WalkOps.cpp.inc"
      >();
  registerTypes();
  registerAttributes();
}
