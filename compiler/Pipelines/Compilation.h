//===- Compilation.h - One compilation of a Sluice program -----*- C++ -*-===//
//
// The embeddable compiler API: sluicec is a thin command-line layer over it,
// and tests call it directly. A Compilation runs the phases in order (parse,
// check, lower to MLIR, flatten topologies, analyse or plan) and can stop
// after any of them; each phase reports located diagnostics through the
// MLIRContext. Walk code generation (sluicec --run, -c) is in
// compiler/Target/Walk/WalkCompile.h.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_PIPELINES_COMPILATION_H
#define SLUICE_COMPILER_PIPELINES_COMPILATION_H

#include "frontends/sluice/AST.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SourceMgr.h"
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
class DialectRegistry;
} // namespace mlir

namespace sluice {

/// The phases of the compiler, in order. `sluicec --emit=<phase>` stops after
/// the phase and prints its result.
enum class Phase {
  Ast,    ///< parse (with imports)
  Sema,   ///< names, types, units
  Mlir,   ///< MLIRGen: topo, walk, graph, plan, model, seq dialects;
          ///< walk-bounds, walk-select-sampler, graph-attach-schedule,
          ///< graph-check-parallel-writes, model-cost
  Flat,   ///< topo-flatten: one physical device per op
  Report, ///< topology analysis
  Plan,   ///< plan-schedule-flows on the flat topology (after Flat)
  Llvm,   ///< the walks lowered for the host: LLVM IR (after Mlir)
  Ptx,    ///< the walks lowered for the GPU: PTX for sm_90 (after Mlir)
};

/// Parses a phase name ("ast", "sema", "mlir", "flat", "report", "plan",
/// "llvm", "ptx").
std::optional<Phase> parsePhase(llvm::StringRef name);
llvm::StringRef phaseName(Phase phase);

/// Registers every Sluice dialect (and the upstream ones our pipelines use).
void registerSluiceDialects(mlir::DialectRegistry &registry);

class Compilation {
public:
  /// `ctx` must have the Sluice dialects registered (registerSluiceDialects);
  /// diagnostics go to its engine. `sourceMgr` receives every file read.
  Compilation(mlir::MLIRContext &ctx, llvm::SourceMgr &sourceMgr);

  /// Parses `path` and its imports.
  mlir::LogicalResult parse(llvm::StringRef path);
  /// Runs Sema over the parsed program.
  mlir::LogicalResult check();
  /// MLIRGen: lowers the checked program into Sluice dialects (verified),
  /// then runs walk-bounds and walk-select-sampler for programs with walks,
  /// graph-attach-schedule and graph-check-parallel-writes for programs with
  /// algorithms and model-cost for programs with transformers.
  mlir::LogicalResult lower();
  /// Runs topo-flatten around topology `top` (empty: the default of
  /// defaultTopTopology). Honours MLIR's pass-manager command-line options
  /// (e.g. --mlir-print-ir-after-all) when the tool registered them. A
  /// program without topologies and a `top` it does not declare are errors
  /// at fileLocation() (the latter lists the topologies).
  mlir::LogicalResult flatten(llvm::StringRef top = "");
  /// Runs plan-schedule-flows on the flattened module: every plan.demands
  /// becomes a plan.schedule. Before the pass, computes the access counts
  /// of sampled gather jobs from their graphs and attaches them
  /// (attachSampledAccessCounts); errors there stop before the pass.
  mlir::LogicalResult plan();

  /// Runs model-plan-parallel and model-plan-disdp on the flattened module:
  /// every `train` model.job gets a plan.parallel, or a plan.disdp when it
  /// names a parameter_server (annealing seeded with `seed`; with
  /// setWalkRemarks, a remark per job with the search's counts).
  /// `job`: only the train job of that name (empty: every one).
  mlir::LogicalResult planTraining(uint64_t seed = 1, llvm::StringRef job = "");
  /// Runs model-plan-distill on the flattened module: every `distill`
  /// model.job (only `job`, when not empty) gets a plan.distill.
  mlir::LogicalResult planDistillation(llvm::StringRef job = "");

  /// Whether lower() makes walk-bounds explain each walk, and
  /// graph-attach-schedule each algorithm and loop, with a remark (`sluicec
  /// --remarks`).
  void setWalkRemarks(bool on) { walkRemarks = on; }
  /// Whether plan() measures the host codec on this machine for every
  /// blockio demand (`sluicec --measure-compression`, CompressionRate.h).
  void setMeasureCompression(bool on) { measureCompression = on; }
  /// Where lower() schedules every walk ("cpu" or "gpu", `sluicec
  /// --target`); empty (the default): where each walk's schedule says.
  void setWalkTarget(llvm::StringRef target) { walkTarget = target.str(); }
  /// Runs walk-select-sampler again on the lowered module, scheduling every
  /// walk for `target` ("cpu" or "gpu"; empty: each walk's own), e.g. for
  /// the CPU when the GPU a walk asks for is missing.
  mlir::LogicalResult scheduleWalks(llvm::StringRef target);
  /// For running: when a walk asks for the GPU and none is available (the
  /// CUDA driver is probed only then), warns at each such walk ("... it
  /// runs on the CPU" + `hint`) and schedules every walk for the CPU.
  mlir::LogicalResult scheduleGpuWalksOnCpuWithoutGpu(llvm::StringRef hint);

  /// sluicec -c and --emit=llvm compile either the walks or the
  /// algorithms of a program: fails, with an error at the file, when it has
  /// both.
  mlir::LogicalResult checkCompilable();
  /// sluicec --run of `job` (empty: the only job): fails with an error at
  /// the file when the program has jobs of both kinds and `job` is empty.
  mlir::LogicalResult checkRunnable(llvm::StringRef job);
  /// Whether `job` (empty: the only job) runs an algorithm.
  bool isAlgorithmJob(llvm::StringRef job);

  /// The main file as a whole (line 0), for errors about the program rather
  /// than a place in it, e.g. a name given on the command line.
  mlir::Location fileLocation();
  /// The names of the program's topologies, in declaration order (imports
  /// first).
  std::vector<std::string> topologyNames();

  /// The lowered module (after lower(), and transformed by flatten()).
  mlir::ModuleOp module() { return module_.get(); }

  ast::Program &program() { return program_; }
  mlir::MLIRContext &context() { return ctx; }
  llvm::SourceMgr &sourceManager() { return sourceMgr; }

private:
  mlir::MLIRContext &ctx;
  llvm::SourceMgr &sourceMgr;
  ast::Program program_;
  std::string mainPath;
  mlir::OwningOpRef<mlir::ModuleOp> module_;
  bool walkRemarks = false;
  bool measureCompression = false;
  std::string walkTarget;
};

} // namespace sluice

#endif // SLUICE_COMPILER_PIPELINES_COMPILATION_H
