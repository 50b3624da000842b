//===- GnnPlan.h - sluicec --emit=plan of gnn train jobs --------*- C++ -*-===//
//
// The thin adaptor between model.gnn_train and the cost model
// (compiler/Analysis/Gnn/GnnCost.h): loads the job's graph and its labels
// (the seeds), reads the feature file's size and density, takes the
// machine from the job's flattened topology, and writes the pipeline, the
// cache placement, the predicted epoch time per stage and the throughput
// per cost as text or JSON (docs/gnn.md, "Plan and cost model").
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TARGET_GNN_GNNPLAN_H
#define SLUICE_COMPILER_TARGET_GNN_GNNPLAN_H

#include "compiler/Analysis/TopoGraph.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace sluice::target {

struct GnnPlanOptions {
  std::string job;        ///< empty: every gnn train job on `top`
  std::string top;        ///< the flattened topology
  bool json = false;      ///< else text
  bool graphCache = true; ///< load graphs through the binary CSR cache
  double budget = 0;      ///< --tpc-budget: price limit of the advice; 0: none
};

/// True when the module has gnn train jobs (`job` one of them, if given).
bool hasGnnTrainJobs(mlir::ModuleOp module, llvm::StringRef job);

/// Plans the gnn train jobs on `topology` (the flattened topology of the
/// jobs' target). Errors are emitted at the job, the model or the graph.
mlir::LogicalResult writeGnnPlans(mlir::ModuleOp module,
                                  const analysis::TopoGraph &topology,
                                  const GnnPlanOptions &options,
                                  llvm::raw_ostream &os);

} // namespace sluice::target

#endif // SLUICE_COMPILER_TARGET_GNN_GNNPLAN_H
