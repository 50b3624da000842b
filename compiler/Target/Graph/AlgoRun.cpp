//===- AlgoRun.cpp - sluicec --run of an algorithm job --------------------===//
//
// Finds the job, loads the algorithm's graph as its declaration says
// (GraphLoadOptions.h, through the binary CSR cache of GraphCache.h),
// runs the JIT-compiled algorithm (CompiledAlgorithm) and writes its
// outputs: text ("id value ..." lines, original ids) or .npy (one file per
// output; with several, the property's name goes before the extension).
//
//===----------------------------------------------------------------------===//
#include "compiler/Target/Graph/AlgoCompile.h"

#include "compiler/Target/Walk/GraphCache.h"
#include "compiler/Target/JobLookup.h"
#include "compiler/Target/Walk/DeclaredGraph.h"
#include "dialects/Walk/IR/WalkOps.h"
#include "sluice/gpu.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <chrono>

using namespace mlir;
using namespace sluice;
using namespace sluice::target;

namespace {

/// `base` + `output` unless `output` is absolute.
std::string resolve(StringRef output, StringRef base) {
  if (base.empty() || llvm::sys::path::is_absolute(output))
    return output.str();
  llvm::SmallString<256> full(base);
  llvm::sys::path::append(full, output);
  return full.str().str();
}

} // namespace

FailureOr<AlgoRunReport>
sluice::target::runAlgorithmJob(ModuleOp module,
                                const AlgoRunOptions &options) {
  FailureOr<graph::JobOp> found = findJob<graph::JobOp>(
      module, options.job, "algorithm", "job J = run A on M { ... }");
  if (failed(found))
    return failure();
  graph::JobOp job = *found;
  auto algo = SymbolTable::lookupNearestSymbolFrom<graph::AlgorithmOp>(
      job, job.getAlgorithmAttr());
  if (!algo)
    return job.emitError("job '") << job.getSymName() << "' runs '"
                                  << job.getAlgorithm()
                                  << "', which is not an algorithm";
  // The algorithm is a symbol table of its own: look in the module.
  auto g = dyn_cast_or_null<walk::GraphOp>(
      SymbolTable::lookupSymbolIn(module, algo.getGraphAttr()));
  if (!g)
    return algo.emitError("algorithm '")
           << algo.getSymName() << "' runs on '" << algo.getGraph()
           << "', which is not a graph";
  graph::AlgorithmScheduleAttr schedule = algo.getScheduleAttr();
  if (!schedule)
    return algo.emitError("algorithm '")
           << algo.getSymName()
           << "' has no schedule (graph-attach-schedule has not run)";
  // The GPU when --target=gpu or the schedule asks for it (not with
  // --target=cpu); no silent fallback to the CPU.
  bool onGpu = options.gpu || (schedule.getTarget() == graph::Target::Gpu &&
                               !options.forceCpu);
  if (onGpu) {
    sluice_error_t reason;
    if (!sluice_gpu_available(&reason)) {
      if (options.gpu)
        return algo.emitError("cannot run algorithm '")
               << algo.getSymName()
               << "' on the GPU (--target=gpu): " << reason.message
               << "; --target=cpu runs it on the CPU";
      return algo.emitError("algorithm '")
             << algo.getSymName()
             << "' is scheduled for target gpu, and there is no GPU: "
             << reason.message << "; --target=cpu runs it on the CPU";
    }
  }
  AlgoRunReport report;
  report.job = job.getSymName().str();
  report.algorithm = algo.getSymName().str();
  report.graph = g.getSymName().str();

  if (failed(options.graph ? checkGivenGraph(g, options.graph)
                            : checkDeclaredGraphFile(g)))
    return failure();

  auto t0 = std::chrono::steady_clock::now();
  auto compiled = CompiledAlgorithm::compile(algo, options.remarks, onGpu,
                                             options.libdevice);
  if (failed(compiled))
    return failure();
  report.compileSeconds = secondsSince(t0);

  uint32_t threads = options.threads;
  if (!threads && job.getThreads())
    threads = static_cast<uint32_t>(*job.getThreads());
  if (!threads)
    threads = static_cast<uint32_t>(schedule.getThreads());
  // The graph, as the declaration loads it (the same options as walks,
  // parsed on the job's threads), unless the caller hands one over.
  const sluice_graph_t *graph = options.graph;
  sluice_graph_t *owned = nullptr;
  auto release = llvm::make_scope_exit([&] { sluice_graph_release(owned); });
  if (!graph) {
    auto t1 = std::chrono::steady_clock::now();
    FailureOr<sluice_graph_t *> loaded = loadDeclaredGraph(
        g, options.quiet, options.graphCache, report.graphCache, threads);
    if (failed(loaded))
      return failure();
    graph = owned = *loaded;
    report.loadSeconds = secondsSince(t1);
    if (options.keepResult) {
      report.loadedGraph.reset(owned, sluice_graph_release);
      owned = nullptr;
    }
  }
  report.vertices = sluice_graph_num_vertices(graph);
  report.edges = sluice_graph_num_edges(graph);

  auto result = (*compiled)->run(graph, job.getParams(), threads,
                                 options.quiet, job);
  if (failed(result))
    return failure();
  report.passes = result->passes;
  report.seconds = result->seconds;
  report.threads = result->threads;
  report.gpu = onGpu;
  report.gpuLaunches = result->gpuLaunches;
  report.gpuStats = result->gpuStats;
  report.tileNotes = result->tileNotes;
  report.binNotes = result->binNotes;
  report.orderNotes = result->orderNotes;
  // Warm runs: timed, their outputs dropped (the first run's are written).
  for (uint32_t trial = 1; trial < options.trials; ++trial) {
    auto again = (*compiled)->run(graph, job.getParams(), threads,
                                  /*quiet=*/true, job);
    if (failed(again))
      return failure();
    report.warmSeconds.push_back(again->seconds);
  }
  // The columns point into the storage vectors, whose buffers a move keeps
  // (a Result cannot be copied: its columns would point into the original).
  if (options.keepResult)
    report.result = std::move(*result);
  const CompiledAlgorithm::Result &columns =
      options.keepResult ? *report.result : *result;
  if (!options.writeOutputs)
    return report;

  std::string output = options.out;
  if (output.empty() && job.getOutput())
    output = resolve(*job.getOutput(), options.baseDir.empty()
                                           ? llvm::sys::path::parent_path(
                                                 cast<FileLineColLoc>(
                                                     job.getLoc())
                                                     .getFilename()
                                                     .getValue())
                                           : StringRef(options.baseDir));
  if (output.empty())
    return report;
  sluice_error_t error;
  auto failedWrite = [&]() {
    char text[2048];
    sluice_error_format(&error, text, sizeof(text));
    return job.emitError("cannot write the outputs of job '")
           << job.getSymName() << "': " << text;
  };
  if (StringRef(output).ends_with(".npy")) {
    for (const sluice_algo_column_t &column : columns.outputs) {
      std::string file = output;
      if (columns.outputs.size() > 1)
        file = (StringRef(output).drop_back(4) + "." + column.name + ".npy")
                   .str();
      if (sluice_algo_write_npy(file.c_str(), graph, &column, &error) !=
          SLUICE_STATUS_OK)
        return failedWrite();
    }
  } else if (sluice_algo_write_text(
                 output.c_str(), graph, columns.outputs.data(),
                 static_cast<uint32_t>(columns.outputs.size()),
                 &error) != SLUICE_STATUS_OK) {
    return failedWrite();
  }
  report.output = output;
  return report;
}
