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
