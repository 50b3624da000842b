//===- PlanEmit.h - A program's plans, in the format asked for --*- C++ -*-===//
//
// What `sluicec --emit=plan` writes, as a library so that sluicec and the
// Python package (`Program.plan`) share it: the topology to plan on (the
// first demand's, or the first finetune/infer job's target, unless given),
// topo-flatten, then
//   - flow demands: plan-schedule-flows, written as a table, JSON, DOT,
//     Perfetto trace or the plan dialect;
//   - finetune/infer jobs: the offload planners (ModelOffload.h);
//   - train jobs: model-plan-parallel (ParallelExport.h);
//   - gnn train jobs: the GNN cost model (compiler/Target/Gnn/GnnPlan.h).
// Errors are located diagnostics (at the program's file when they are
// about the program as a whole).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TARGET_PLAN_PLANEMIT_H
#define SLUICE_COMPILER_TARGET_PLAN_PLANEMIT_H

#include "compiler/Pipelines/Compilation.h"
#include "compiler/Target/DotDetail.h"

#include "mlir/Support/LogicalResult.h"
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

struct PlanOptions {
  ReportFormat format = ReportFormat::Table;
  /// A flow plan without an explicit format prints as the plan dialect
  /// (sluicec's documented default); table when false.
  bool flowDefaultsToMlir = false;
  std::string top;        ///< --top: empty for the program's default
  std::string job;        ///< --job: empty for every model job
  uint64_t seed = 1;      ///< --plan-seed (placement annealing)
  bool remarks = false;   ///< --remarks: the offload search per finetune job
  double tpcBudget = 0;   ///< --tpc-budget: gnn jobs' TPC advice; 0: no limit
  bool graphCache = true; ///< gnn jobs load their graph through the CSR cache
  target::DotDetail dotDetail = target::DotDetail::Auto;
};

/// Plans a checked and lowered program (Compilation::lower has run) and
/// writes its plans to `os` in `options.format` (Svg is not written here:
/// sluicec renders the Dot format). Flattens the compilation's module.
mlir::LogicalResult emitPlans(Compilation &compilation,
                              const PlanOptions &options,
                              llvm::raw_ostream &os);

} // namespace sluice

#endif // SLUICE_COMPILER_TARGET_PLAN_PLANEMIT_H
