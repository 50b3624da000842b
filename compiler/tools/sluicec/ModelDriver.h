//===- ModelDriver.h - sluicec --emit=plan for model jobs -------*- C++ -*-===//
//
// What sluicec does with a program's finetune/infer jobs (the offload
// planners) and train jobs (model-plan-parallel) for --emit=plan, and the
// output formats of --emit=report and --emit=plan.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TOOLS_SLUICEC_MODELDRIVER_H
#define SLUICE_COMPILER_TOOLS_SLUICEC_MODELDRIVER_H

#include "compiler/Pipelines/Compilation.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

namespace sluice {

/// --format of --emit=report and --emit=plan.
enum class ReportFormat {
  Table,
  Json,
  Dot,
  Svg,
  Mlir,
  Trace,
  DeepSpeed,
  Megatron
};

struct ModelPlanOptions {
  ReportFormat format = ReportFormat::Table;
  std::string job;   ///< --job: empty for every model job
  uint64_t seed = 0; ///< --plan-seed (placement annealing)
  bool remarks = false; ///< --remarks: the offload search per finetune job
};

/// --emit=plan of a program with model jobs: train jobs through
/// model-plan-parallel, finetune/infer jobs through the offload planners
/// (an error when both kinds are selected). Returns the exit code.
int emitModelPlans(Compilation &compilation, llvm::StringRef top,
                   const ModelPlanOptions &options, llvm::raw_ostream &os);

} // namespace sluice

#endif // SLUICE_COMPILER_TOOLS_SLUICEC_MODELDRIVER_H
