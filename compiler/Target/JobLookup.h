//===- JobLookup.h - Finding the job a run asks for -------------*- C++ -*-===//
//
// Shared by sluicec --run of walk jobs (Walk/WalkRun.cpp) and algorithm
// jobs (Graph/AlgoRun.cpp): the job named on the command line, or the
// only one, with located errors that list the jobs there are.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TARGET_JOBLOOKUP_H
#define SLUICE_COMPILER_TARGET_JOBLOOKUP_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallVector.h"

#include <chrono>
#include <string>

namespace sluice::target {

/// The job of type JobOp named `name` in `module`, or its only one when
/// `name` is empty. `kind` names the jobs in messages ("walk",
/// "algorithm"); `declare` shows how to declare one ("job J = walk W on M
/// { ... }").
template <class JobOp>
mlir::FailureOr<JobOp> findJob(mlir::ModuleOp module, llvm::StringRef name,
                               llvm::StringRef kind, llvm::StringRef declare) {
  llvm::SmallVector<JobOp> jobs(module.getOps<JobOp>());
  std::string names;
  for (JobOp j : jobs)
    names += (names.empty() ? "" : ", ") + j.getSymName().str();
  if (name.empty()) {
    if (jobs.size() == 1)
      return jobs.front();
    if (jobs.empty())
      return mlir::emitError(module.getLoc())
             << "the program has no " << kind << " job to run (declare one: "
             << declare << ")";
    return mlir::emitError(module.getLoc())
           << "the program has " << jobs.size() << " " << kind
           << " jobs; choose one with --job (" << names << ")";
  }
  for (JobOp j : jobs)
    if (j.getSymName() == name)
      return j;
  return mlir::emitError(module.getLoc())
         << "no " << kind << " job named '" << name << "'"
         << (names.empty() ? std::string(" (the program has none)")
                           : " (" + kind.str() + " jobs: " + names + ")");
}

/// Seconds since `t0`, for the phase times of a run's report.
inline double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
      .count();
}

} // namespace sluice::target

#endif // SLUICE_COMPILER_TARGET_JOBLOOKUP_H
